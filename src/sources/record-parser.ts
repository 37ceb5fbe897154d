// Parses a source's records: small ones here, large ones in a worker thread (record-worker.ts),
// which answers with the item as classifying needs it and the stored text and content hash of the
// whole record.
import { readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import type { ParsedEntry } from '../ingest/parse.js';
import { adoptCanonicalSource } from '../ingest/row.js';
import { parseRecordJson, type ParsedOffThread, type RecordTask } from './record-worker.js';
import { checkRecordSize } from './record-size.js';

/**
 * Records of at least this many bytes are parsed in the worker. Nearly all are a few KB and stay
 * on this thread, where they cost less than a round trip to the worker would.
 */
export const offThreadBytes = 64 * 1024;

/** Run from TypeScript (tests, tsx), the worker loads its module the same way. */
const fromSource = import.meta.url.endsWith('.ts');
let pool: Piscina<RecordTask, ParsedOffThread> | undefined;

function workerPool(): Piscina<RecordTask, ParsedOffThread> {
  pool ??= new Piscina({
    filename: new URL(`./record-worker.${fromSource ? 'ts' : 'js'}`, import.meta.url).href,
    // Started on the first large record; one thread, as large records come one at a time.
    minThreads: 0,
    maxThreads: 1,
    // Idle, the thread ends (its modules and heap are tens of MB) and keeps no process alive.
    idleTimeout: 30_000,
    ...(fromSource ? { execArgv: ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href] } : {}),
  });
  return pool;
}

/** How many records this process has parsed in the worker thread (so a test can tell which path ran). */
export const parsedOffThread = (): number => pool?.completed ?? 0;

async function offThread(task: RecordTask, transferList?: ArrayBuffer[]): Promise<ParsedEntry> {
  const { parsed, canonical } = await workerPool().run(task, { transferList });
  if (canonical && 'item' in parsed) adoptCanonicalSource(parsed.item.source, canonical);
  return parsed;
}

/** A record's JSON bytes (a zip entry), parsed. */
export function parseRecordBytes(bytes: Uint8Array): Promise<ParsedEntry> {
  if (bytes.length < offThreadBytes) return Promise.resolve(parseRecordJson(bytes));
  // A copy of its own to hand over: a view may share its buffer with others.
  const own = bytes.slice();
  return offThread({ bytes: own }, [own.buffer]);
}

/** A record's JSON file, parsed; one over the record size limit is not read (RecordTooLarge). */
export async function parseRecordFile(path: string): Promise<ParsedEntry> {
  const { size } = await stat(path);
  checkRecordSize(size);
  return size < offThreadBytes ? parseRecordJson(await readFile(path)) : offThread({ path });
}
