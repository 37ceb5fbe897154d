// node-postgres sends a statement with parameters through the extended protocol: Parse, Bind,
// Describe, Execute and Sync out, as many acknowledgements back. For the hot one-row reads (one
// issue by id, the latest digest's LIMIT) that exchange cost the server process more CPU than the
// read itself. When every parameter is an integer or a UUID, the statement goes as one simple Query
// message instead, each value written in as the quoted text node-postgres would have bound: a quoted
// literal has no type of its own, like a parameter sent without one, so PostgreSQL resolves it from
// its context exactly as it resolved the parameter. Neither kind of value can hold a quote or a
// backslash; any other value (text from a request, instants, arrays) keeps the statement bound.
import type { Prisma } from '../generated/prisma/client.js';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The value as a quoted literal, or undefined when it is not one that can be written in. */
function literal(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return `'${value}'`;
  if (typeof value === 'string' && uuid.test(value)) return `'${value}'`;
  return undefined;
}

/** The statement's text with its parameters written in, or undefined when one of them has to stay bound. */
export function simpleStatement({ strings, values }: Prisma.Sql): string | undefined {
  let text = strings[0]!;
  for (let i = 0; i < values.length; i++) {
    const written = literal(values[i]);
    if (written === undefined) return undefined;
    text += written + strings[i + 1]!;
  }
  return text;
}
