// Reads run on the driver's own client past Prisma (src/db/driver-read.ts): the same values as
// Prisma's own raw queries, settings that stay local to their statement, errors that still read as
// an outage, on whichever database the suite runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/db/unavailable.js';
import { simpleStatement } from '../../src/db/simple-statement.js';
import { Prisma } from '../../src/generated/prisma/client.js';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../helpers/database.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db?.close());

describe('driver reads', () => {
  it('give each column the value Prisma gives it (instants, dates, decimals, big integers, JSON, enums, arrays, nulls)', async () => {
    const at = new Date('2025-06-01T10:00:00.123Z');
    const query = Prisma.sql`
      SELECT ${at}::timestamptz AS "at", '2025-06-01 12:00:00.4567+02'::timestamptz AS "offset",
             '2025-06-01 10:00:00.123456'::timestamp(3) AS "wall", ${at}::timestamp(3) AS "boundWall", '2025-06-01'::date AS "day",
             9.8::numeric(3, 1) AS "score", 12345678901::bigint AS "big", NULL::bigint AS "noBig", 7::int AS "small",
             0.25::float8 AS "share", '{"a": [1, "x"]}'::jsonb AS "doc", ARRAY[${'x'}, 'y']::text[] AS "names",
             ARRAY[]::text[] AS "noNames", ${[]}::text[] AS "boundNoNames", 'high'::"Severity" AS "severity",
             ARRAY['critical', 'low']::"Severity"[] AS "severities", ARRAY[]::"IssueType"[] AS "noTypes",
             NULL::timestamptz AS "none", true AS "flag", ${'d3b07384-d113-4ec3-9f3c-d0b5e4ecf1a1'}::uuid AS "id"`;
    const [read] = await db.read(query);
    const [prisma] = await db.prisma.$queryRaw<Record<string, unknown>[]>(query);
    expect(read).toEqual(prisma);
    expect(read!.at).toEqual(at);
    expect(read!.offset).toEqual(new Date('2025-06-01T10:00:00.456Z'));
    // A timestamp without a time zone (and a date) reads as UTC, whatever the process's zone.
    expect(read!.wall).toEqual(at);
    expect(read!.boundWall).toEqual(at);
    expect(read!.day).toEqual(new Date('2025-06-01T00:00:00Z'));
    expect(read!.score).toBeInstanceOf(Prisma.Decimal);
    expect(String(read!.score)).toBe('9.8');
    expect(read!.big).toBe(12345678901n);
    expect(read!.noBig).toBeNull();
    expect(read!.doc).toEqual({ a: [1, 'x'] });
    expect([read!.noNames, read!.boundNoNames]).toEqual([[], []]);
    expect(read!.severity).toBe('high');
  });

  it('keep settings to their own statement', async () => {
    const setting = Prisma.sql`SELECT current_setting('statement_timeout') AS "timeout", current_setting('jit', true) AS "jit"`;
    const [before] = await db.read<{ timeout: string }>(setting);
    const [inside] = await db.read<{ timeout: string; jit: string | null }>(setting, { statement_timeout: '4321', jit: 'off' });
    expect(inside).toEqual({ timeout: '4321ms', jit: 'off' });
    const [after] = await db.read<{ timeout: string }>(setting);
    expect(after!.timeout).toBe(before!.timeout);
  });

  it('end a failed statement with its transaction, and leave the connection usable', async () => {
    await expect(db.read(Prisma.sql`SELECT 1 / ${0}::int AS "x"`, { jit: 'off' })).rejects.toThrow(/division by zero/);
    expect(await db.read(Prisma.sql`SELECT ${1}::int AS "x"`)).toEqual([{ x: 1 }]);
  });

  // PGlite runs every statement to its end; the time-out is PostgreSQL's.
  it.runIf(testDatabaseUrl)('report a statement cancelled by its time-out as an outage (503), not a fault', async () => {
    const err = await db.read(Prisma.sql`SELECT pg_sleep(1)`, { statement_timeout: '50' }).catch((e: unknown) => e);
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it('write integers and UUIDs into a statement as untyped literals, which read as the bound values do', async () => {
    const id = 'd3b07384-d113-4ec3-9f3c-d0b5e4ecf1a1';
    // Each value meets an integer, a text and a uuid context, as a bound parameter without a type would.
    const query = Prisma.sql`SELECT ${7} + 1 AS "sum", 'n' || ${-3} AS "text", ${id}::uuid AS "id", ${id} AS "plain", ${0} = 0 AS "zero" LIMIT ${1} OFFSET ${0}`;
    expect(simpleStatement(query)).toBe(
      `SELECT '7' + 1 AS "sum", 'n' || '-3' AS "text", '${id}'::uuid AS "id", '${id}' AS "plain", '0' = 0 AS "zero" LIMIT '1' OFFSET '0'`,
    );
    const [simple] = await db.read(query);
    const [bound] = await db.prisma.$queryRaw<Record<string, unknown>[]>(query);
    expect(simple).toEqual(bound);
    expect(simple).toEqual({ sum: 8, text: 'n-3', id, plain: id, zero: true });
  });

  it('keep a statement bound when any value is not an integer or a UUID', () => {
    for (const value of ["x' OR '1'='1", "d3b07384-d113-4ec3-9f3c-d0b5e4ecf1a1'", 1.5, 2 ** 53, Number.NaN, 1n, true, new Date(0), ['1'], null]) {
      expect(simpleStatement(Prisma.sql`SELECT ${1} AS "a", ${value} AS "b"`)).toBeUndefined();
    }
    expect(simpleStatement(Prisma.sql`SELECT 1 AS "a"`)).toBe('SELECT 1 AS "a"');
  });
});
