// osv-dir: a directory tree of OSV JSON files, such as a clone of the GitHub Advisory Database
// (advisories/github-reviewed/YYYY/MM/<id>/<id>.json). A file's fingerprint is its modification
// time and size, so a walk reads only the files that changed since the last sync.
import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseRecordFile } from './record-parser.js';
import type { SourceRecordEntry } from './records.js';

async function* jsonFiles(dir: string): AsyncGenerator<string> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* jsonFiles(path);
    else if (entry.isFile() && entry.name.endsWith('.json')) yield path;
  }
}

export async function listOsvDir(root: string): Promise<{ total: number; entries: AsyncIterable<SourceRecordEntry> }> {
  const files: SourceRecordEntry[] = [];
  for await (const path of jsonFiles(root)) {
    const info = await stat(path);
    files.push({
      key: relative(root, path),
      fingerprint: `${Math.trunc(info.mtimeMs)}:${info.size}`,
      bytes: info.size,
      read: () => parseRecordFile(path),
    });
  }
  return {
    total: files.length,
    entries: (async function* () {
      yield* files;
    })(),
  };
}
