// Type-level checks for request parameters that may arrive as query-string text (REST, CSV export)
// or already typed (GraphQL arguments). The REST argument check and the issue filters both use
// these, so a client gets the same message for the same bad value on every surface.
import { badRequest } from './errors.js';

/** Absent, null and the empty string all mean "not given" (as `?limit=` does in a query string). */
export function isAbsent(value: unknown): value is null | undefined | '' {
  return value === undefined || value === null || value === '';
}

/** A query-string parameter as these checks take it: absent, its one value, or the list of values when repeated. */
export function queryParam(query: URLSearchParams, name: string): unknown {
  const values = query.getAll(name);
  return values.length > 1 ? values : values[0];
}

export function single(name: string, value: unknown): unknown {
  if (Array.isArray(value)) {
    if (value.length > 1) throw badRequest(`${name} must be given at most once`);
    return value[0];
  }
  return value;
}

const integerText = /^[+-]?\d+$/;
// Plain decimal notation only: no hex, no Infinity, no blanks around it.
const numberText = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** An integer that fits a GraphQL Int (32-bit signed), given as a number or as decimal text. */
export function integer(name: string, value: unknown): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && integerText.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n)) throw badRequest(`${name} must be an integer`);
  // A GraphQL Int cannot carry more.
  if (n > 2_147_483_647) throw badRequest(`${name} must be at most 2147483647`);
  if (n < -2_147_483_648) throw badRequest(`${name} must be at least -2147483648`);
  return n;
}

export function number(name: string, value: unknown): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && numberText.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(n)) throw badRequest(`${name} must be a number`);
  return n;
}

export function boolean(name: string, value: unknown): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw badRequest(`${name} must be true or false`);
}

export function oneOf<const T extends string>(name: string, values: readonly T[], value: unknown): T {
  if (typeof value !== 'string' || !(values as readonly string[]).includes(value)) {
    throw badRequest(`${name} must be one of: ${values.join(', ')}`);
  }
  return value as T;
}

export function text(name: string, value: unknown, maxLength: number): string {
  if (typeof value !== 'string') throw badRequest(`${name} must be a string`);
  // PostgreSQL text cannot hold NUL, and would answer it with an error (a 500) instead of no match.
  if (value.includes('\u0000')) throw badRequest(`${name} must not contain NUL characters`);
  if (value.length > maxLength) throw badRequest(`${name} must be at most ${maxLength} characters`);
  return value;
}

/** A misspelt parameter would otherwise be ignored silently (`?severty=critical` answering everything). */
export function rejectUnknownParameters(query: URLSearchParams, known: readonly string[]): void {
  const unknown = [...new Set(query.keys())].filter((key) => !known.includes(key));
  if (!unknown.length) return;
  const expected = known.length ? `known: ${known.join(', ')}` : 'this route takes none';
  throw badRequest(`Unknown query parameter${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (${expected})`);
}

const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs: anything else names nothing (and must not reach a uuid column, whose error would leak). */
export function isUuid(value: string): boolean {
  return uuidShape.test(value);
}
