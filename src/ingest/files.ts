// Reads ingest input from files and directories: each .json file holds one OSV record, an array
// of records, or {items: [...]}. Directories are walked recursively, in name order.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { batchEntries } from './parse.js';

export interface FileRecords {
  records: unknown[];
  /** For each record, where it came from ("data/advisories/GHSA-....json#0"). */
  origins: string[];
  /** Files that are not valid JSON. */
  unreadable: { file: string; message: string }[];
}

async function jsonFiles(path: string): Promise<string[]> {
  const info = await stat(path).catch((err: NodeJS.ErrnoException) => {
    throw new Error(err.code === 'ENOENT' ? `${path}: no such file or directory` : `${path}: cannot be read (${err.code ?? err.message})`);
  });
  if (!info.isDirectory()) return [path];
  const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? jsonFiles(join(path, e.name)) : Promise.resolve(e.name.endsWith('.json') ? [join(path, e.name)] : []))),
  );
  return nested.flat();
}

export async function readRecordFiles(paths: string[]): Promise<FileRecords> {
  const out: FileRecords = { records: [], origins: [], unreadable: [] };
  for (const path of paths) {
    const files = await jsonFiles(path);
    if (files.length === 0) throw new Error(`${path}: no .json files in this directory`);
    for (const file of files) {
      let value: unknown;
      try {
        value = JSON.parse(await readFile(file, 'utf8'));
      } catch (err) {
        out.unreadable.push({ file, message: err instanceof Error ? err.message : String(err) });
        continue;
      }
      batchEntries(value).forEach((record, i) => {
        out.records.push(record);
        out.origins.push(`${file}#${i}`);
      });
    }
  }
  return out;
}
