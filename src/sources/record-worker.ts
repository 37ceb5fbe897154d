// A source's record from its JSON bytes to a parsed item. Large records are parsed here in a worker
// thread (record-parser.ts runs it): parsing, validating and hashing a record of megabytes is
// seconds of CPU that every request would otherwise wait behind (issue 27). Small ones are parsed
// the same way on the main thread, where a round trip to the worker would cost more.
import { readFileSync } from 'node:fs';
import { factVersions } from '../ingest/classifier/packages.js';
import type { Item, OsvAffected } from '../ingest/item.js';
import { parseEntry, type ParsedEntry } from '../ingest/parse.js';
import { canonicalSource, type CanonicalSource } from '../ingest/row.js';

export type RecordTask = { bytes: Uint8Array } | { path: string };

export interface ParsedOffThread {
  parsed: ParsedEntry;
  /** The stored text and content hash of the whole record (the item that comes back is cut). */
  canonical?: CanonicalSource;
}

/** UTF-8, a byte-order mark dropped (as stream/consumers' text() decoded zip entries). */
const utf8 = new TextDecoder();

export function parseRecordJson(bytes: Uint8Array): ParsedEntry {
  let record: unknown;
  try {
    record = JSON.parse(utf8.decode(bytes));
  } catch {
    return { message: 'not valid JSON' };
  }
  return parseEntry(record);
}

const cutVersions = (affected: OsvAffected[]) =>
  affected.map((a) => (a.versions && a.versions.length > factVersions ? { ...a, versions: a.versions.slice(0, factVersions) } : a));

/**
 * The item as the main thread classifies it: each package's versions list cut to the versions its
 * facts name. A long versions list is what makes an OSV record megabytes; copying it back to the
 * main thread would cost that thread about what parsing it did. The record's stored text and hash
 * were computed from the whole record before (`canonical`).
 */
function forClassifying(item: Item): Item {
  const affected = cutVersions(item.affected);
  const record = item.source.record as { affected?: unknown };
  const cutRecord = Array.isArray(record.affected) ? { ...record, affected: cutVersions(record.affected as OsvAffected[]) } : record;
  return { ...item, affected, source: { ...item.source, affected: cutVersions(item.source.affected), record: cutRecord } };
}

/** The worker's task: the file is read here too, so its bytes never pass through the main thread. */
export default function parseLargeRecord(task: RecordTask): ParsedOffThread {
  const parsed = parseRecordJson('path' in task ? readFileSync(task.path) : task.bytes);
  if (!('item' in parsed)) return { parsed };
  return { parsed: { item: forClassifying(parsed.item) }, canonical: canonicalSource(parsed.item.source) };
}
