// Turns a request body or a file's JSON into items. Each record is validated on its own: a bad
// one is rejected with its index and reason and never harms the others.
import type { z } from 'zod';
import type { Item } from './item.js';
import { nativeItem, nativeToItem } from './native.js';
import { looksLikeOsv, osvRecord, osvToItem } from './osv-record.js';

export interface Rejection {
  index: number;
  message: string;
}

export interface ParsedBatch {
  received: number;
  items: { index: number; item: Item }[];
  rejected: Rejection[];
}

/** One OSV record, an array of OSV records and/or native items, or `{items: [...]}`. */
export function batchEntries(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  if (body && typeof body === 'object' && Object.keys(body).length === 1 && Array.isArray((body as { items?: unknown }).items)) {
    return (body as { items: unknown[] }).items;
  }
  return [body];
}

function describe(error: z.ZodError): string {
  const parts = error.issues.slice(0, 3).map((issue) => {
    const path = issue.path.map(String).join('.');
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  const more = error.issues.length > 3 ? ` (and ${error.issues.length - 3} more)` : '';
  return parts.join('; ') + more;
}

/**
 * PostgreSQL text cannot hold U+0000, and the batch goes to the database as one jsonb value, so
 * one such record would fail its whole chunk. Iterative: ingest bodies may be deeply nested.
 */
function containsNul(value: unknown): boolean {
  const stack = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return true;
    } else if (v && typeof v === 'object') {
      // Keys and values apart: Object.entries made an array per property.
      if (!Array.isArray(v)) for (const key of Object.keys(v)) if (key.includes('\u0000')) return true;
      for (const item of Object.values(v)) stack.push(item);
    }
  }
  return false;
}

export function parseEntry(entry: unknown): { item: Item } | { message: string } {
  if (!entry || typeof entry !== 'object' || Array.isArray(entry)) {
    return { message: 'must be a JSON object (an OSV record or a native item)' };
  }
  if (containsNul(entry)) return { message: 'must not contain NUL characters (U+0000)' };
  if (looksLikeOsv(entry as Record<string, unknown>)) {
    const result = osvRecord.safeParse(entry);
    return result.success ? { item: osvToItem(result.data) } : { message: `invalid OSV record: ${describe(result.error)}` };
  }
  const result = nativeItem.safeParse(entry);
  return result.success ? { item: nativeToItem(result.data) } : { message: `invalid item: ${describe(result.error)}` };
}

export type ParsedEntry = ReturnType<typeof parseEntry>;

/** Entries parsed one by one (parseEntry), as one batch: each keeps its place as its index. */
export function batchOf(entries: ParsedEntry[]): ParsedBatch {
  const batch: ParsedBatch = { received: entries.length, items: [], rejected: [] };
  entries.forEach((parsed, index) => {
    if ('item' in parsed) batch.items.push({ index, item: parsed.item });
    else batch.rejected.push({ index, message: parsed.message });
  });
  return batch;
}

export function parseBatch(body: unknown): ParsedBatch {
  return batchOf(batchEntries(body).map(parseEntry));
}
