// What affects a watched stack now: the scan's answer for its components, kept per stack and data
// version, so a repeated read of its findings, its VEX or its Atom feed is a lookup instead of the
// scan's matching again. The data version moves with every change to what is served
// (db/data-version.ts), so an answer kept here is never served after a change that could alter it.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Database } from '../db/client.js';
import { DataVersionReader } from '../db/data-version.js';
import { scanStack, type ScanResult } from '../scan/scan.js';
import { stackOf, type WatchedComponent } from './watched.js';

/** Matches kept across every stack of a process: an answer's weight is its number of matches. */
const MAX_KEPT_MATCHES = 200_000;

interface StackAnswers {
  /** The data version the kept answers are of. */
  version?: string;
  /** By stack key. */
  answers: LRUCache<string, Promise<ScanResult>>;
  versions: DataVersionReader;
}

/** Per database (a process has one; tests open several): its kept answers and its version reader. */
const caches = new WeakMap<Database, StackAnswers>();

function cacheOf(db: Database): StackAnswers {
  let cache = caches.get(db);
  if (!cache) {
    cache = { answers: new LRUCache({ maxSize: MAX_KEPT_MATCHES, sizeCalculation: () => 1 }), versions: new DataVersionReader(db.read) };
    caches.set(db, cache);
  }
  return cache;
}

/** How many stacks' answers are kept (at the current data version only). */
export const keptStackAnswers = (db: Database): number => caches.get(db)?.answers.size ?? 0;

/** The stack's identity: its distinct entries, in order (what the scan reads of it). */
const stackKey = (components: WatchedComponent[]) =>
  createHash('sha256')
    .update([...new Set(components.map((c) => c.entry))].sort().join('\n'))
    .digest('base64url');

/** The scan's answer for a watched stack at the current data version: computed once per stack and version. */
export async function stackFindings(db: Database, components: WatchedComponent[]): Promise<ScanResult> {
  const cache = cacheOf(db);
  const { answers } = cache;
  const version = await cache.versions.current();
  // Versions only move forward, so an answer of an earlier one is never asked for again: without
  // this it would weigh on the process until the size bound pushed it out.
  if (version !== cache.version) {
    answers.clear();
    cache.version = version;
  }
  const key = stackKey(components);
  const hit = answers.get(key);
  if (hit) return hit;
  const answer = scanStack(db.read, stackOf(components));
  answers.set(key, answer);
  // A failed scan is not kept: the next read tries again. Once known, the answer weighs its matches.
  // (Only while it is still the kept one: the version may have moved on meanwhile.)
  const kept = () => answers.peek(key) === answer;
  answer.then(
    (result) => kept() && answers.set(key, answer, { size: Math.max(1, result.data.length) }),
    () => kept() && answers.delete(key),
  );
  return answer;
}
