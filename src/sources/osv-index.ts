// OSV's modified_id.csv: published next to each ecosystem's all.zip, one `<RFC 3339 modified>,<id>`
// line per record, newest first. With it a sync after the first fetches only the records modified
// since the newest one it has seen, each as `<id>.json` from the same directory, instead of the
// whole export again.
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fetchSource, SourceError, type FetchOptions } from './fetch.js';
import { parseRecordFile } from './record-parser.js';
import type { SourceRecordEntry } from './records.js';

export interface IndexEntry {
  modified: string;
  id: string;
}

/** Where a file next to the export is: same directory, same scheme. */
export function besideExport(location: string, name: string): string {
  return /^https:\/\//i.test(location) ? new URL(name, location).toString() : join(dirname(location), name);
}

/**
 * The index's lines modified after `since`, newest first (it is sorted newest first, so reading
 * stops at the first line that is not newer). Throws SourceError for a line that is not
 * `<timestamp>,<id>`.
 */
export function changedSince(csv: string, since: string): { changed: IndexEntry[]; newest: string | null } {
  const sinceMs = Date.parse(since);
  const changed: IndexEntry[] = [];
  let newest: string | null = null;
  for (const [n, raw] of csv.split('\n').entries()) {
    const line = raw.trim();
    if (!line) continue;
    const comma = line.indexOf(',');
    const modified = line.slice(0, comma);
    const id = line.slice(comma + 1).trim();
    const at = Date.parse(modified);
    if (comma < 1 || Number.isNaN(at) || !/^[A-Za-z0-9][A-Za-z0-9._:/-]*$/.test(id) || id.includes('..')) {
      throw new SourceError(`bad modified_id.csv: line ${n + 1} is not "<timestamp>,<id>"`);
    }
    newest ??= modified;
    if (at <= sinceMs) break;
    changed.push({ modified, id });
  }
  return { changed, newest };
}

/** The newest timestamp of the index (its first line), or null when it is empty. */
export function newestIn(csv: string): string | null {
  return changedSince(csv, new Date(8.64e15).toISOString()).newest;
}

/**
 * Reads the index, or answers null when the source does not offer a usable one: any fetch failure,
 * or a file that is not an index (an HTML error page served with 200), which `onUnusable` is told
 * about; the sync then reads the whole export instead of failing every time.
 */
export async function readIndex(location: string, options: FetchOptions, onUnusable: (problem: string) => void = () => {}): Promise<string | null> {
  let fetched;
  try {
    fetched = await fetchSource(besideExport(location, 'modified_id.csv'), { ...options, validators: {}, attempts: 1 });
  } catch (err) {
    if (err instanceof SourceError) return null;
    throw err;
  }
  if (!fetched.changed) return null;
  let text: string;
  try {
    text = await readFile(fetched.path, 'utf8');
  } finally {
    await fetched.cleanup();
  }
  try {
    // Every line checked once here (reading back to the epoch), so a bad line never fails the sync later.
    changedSince(text, new Date(0).toISOString());
  } catch (err) {
    if (!(err instanceof SourceError)) throw err;
    onUnusable(err.message);
    return null;
  }
  return text;
}

/**
 * The changed records as entries for syncRecords, keyed as the zip names them (`<id>.json`) so a
 * later full read of the zip finds them remembered. Each is fetched when read.
 */
export function indexEntries(location: string, changed: IndexEntry[], options: FetchOptions): AsyncIterable<SourceRecordEntry> {
  return (async function* () {
    for (const { modified, id } of changed) {
      yield {
        key: `${id}.json`,
        fingerprint: `modified:${modified}`,
        read: async () => {
          const fetched = await fetchSource(besideExport(location, `${id}.json`), { ...options, validators: {} });
          if (!fetched.changed) throw new Error('not fetched');
          try {
            return await parseRecordFile(fetched.path);
          } finally {
            await fetched.cleanup();
          }
        },
      };
    }
  })();
}
