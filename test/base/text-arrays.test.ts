// The fast text[] reader (src/db/text-arrays.ts) against node-postgres' own, on the text the
// database itself writes for arrays of awkward elements (quotes, escapes, braces, commas, spaces,
// NULL and the word NULL, empty strings), on whichever database the suite runs.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generalTextArray, parseTextArray } from '../../src/db/text-arrays.js';
import { Prisma } from '../../src/generated/prisma/client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db?.close());

/** The database's own text for an array, as a driver receives it. */
async function arrayText(query: Prisma.Sql): Promise<string> {
  const [row] = await db.read<{ text: string }>(Prisma.sql`SELECT (${query})::text AS "text"`);
  return row!.text;
}

describe('text[] reader', () => {
  it('reads what the database writes exactly as node-postgres does', async () => {
    const awkward = fc.constantFrom('', ' ', 'NULL', 'null', 'a,b', '"', '\\', '{', '}', '{}', 'a b', 'é', '\t', '[1:2]', 'x=y');
    const element = fc.oneof(fc.string({ maxLength: 12 }), awkward, fc.stringMatching(/^[a-z0-9@/._-]{1,20}$/));
    await fc.assert(
      fc.asyncProperty(fc.array(element, { maxLength: 8 }), async (values) => {
        const text = await arrayText(Prisma.sql`${values}::text[]`);
        expect(parseTextArray(text)).toEqual(values);
        expect(parseTextArray(text)).toEqual(generalTextArray(text));
      }),
      { numRuns: 150 },
    );
  });

  it('reads NULL elements, nested dimensions and explicit bounds as node-postgres does', async () => {
    for (const query of [
      Prisma.sql`ARRAY['a', NULL, 'b']::text[]`,
      Prisma.sql`ARRAY[NULL]::text[]`,
      Prisma.sql`ARRAY[]::text[]`,
      Prisma.sql`ARRAY[ARRAY['a', 'b'], ARRAY['c', NULL]]::text[]`,
      Prisma.sql`'[2:3]={x,y}'::text[]`,
    ]) {
      const text = await arrayText(query);
      expect(parseTextArray(text), text).toEqual(generalTextArray(text));
    }
  });

  it('gives reads their arrays', async () => {
    const [row] = await db.read<{ names: string[] }>(Prisma.sql`SELECT ARRAY['langchain', 'NULL', ''] AS "names"`);
    expect(row!.names).toEqual(['langchain', 'NULL', '']);
  });
});
