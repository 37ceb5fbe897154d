// node-postgres reads a text[] column (packageNames, vendorKeys, labels...) with postgres-array,
// which walks the text one character at a time and allocates for each: on a scan reading thousands
// of rows it was 14% of the process's CPU under load, and more in garbage (bench/README.md). The
// arrays PostgreSQL sends are nearly always one dimension of plain elements, written without
// quotes or escapes; those are split here in one pass, and anything else goes to postgres-array as before.
// The answers are postgres-array's exactly (test/base/text-arrays.test.ts compares both).
import pg from 'pg';

/** text[]; pg-types' declarations name only the scalar types. */
const TEXT_ARRAY_OID = 1009 as Parameters<typeof pg.types.setTypeParser>[0];
const [OPEN, CLOSE, COMMA, QUOTE, BACKSLASH] = [...'{},"\\'].map((c) => c.charCodeAt(0));

/** node-postgres' own reader (postgres-array), for everything but plain one-dimensional arrays. */
export const generalTextArray = pg.types.getTypeParser(TEXT_ARRAY_OID, 'text') as (value: string) => (string | null)[] | null;

/** A text[] value as postgres-array reads it: unquoted NULL is null, unquoted empty elements are skipped. */
export function parseTextArray(value: string): (string | null)[] | null {
  const last = value.length - 1;
  // Not a plain one-dimensional array (explicit bounds such as [1:2]={...}, or empty): the general parser.
  if (value.charCodeAt(0) !== OPEN || value.charCodeAt(last) !== CLOSE) return generalTextArray(value);
  const entries: (string | null)[] = [];
  let from = 1;
  for (let i = 1; i <= last; i++) {
    const c = value.charCodeAt(i);
    if (c === COMMA || i === last) {
      if (i > from) {
        const entry = value.slice(from, i);
        entries.push(entry === 'NULL' ? null : entry);
      }
      from = i + 1;
    } else if (c === QUOTE || c === BACKSLASH || c === OPEN || c === CLOSE) {
      // A quoted or escaped element, or a nested dimension.
      return generalTextArray(value);
    }
  }
  return entries;
}

/** Installs the reader for every node-postgres connection of this process. */
export function useFastTextArrays(): void {
  pg.types.setTypeParser(TEXT_ARRAY_OID, parseTextArray);
}
