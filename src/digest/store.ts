// The digests' one way to the database: every statement on "Digest" is here. The hot reads (the
// latest, a page, a day, the Atom feed) go past Prisma's client on the driver read
// (db/driver-read.ts), as the issue reads do; the write, run once a day, goes through Prisma's raw
// query, in one statement with the data version's bump.
import { bumpDataVersionCte } from '../db/data-version.js';
import type { DriverRead } from '../db/driver-read.js';
import { Prisma, type Digest, type PrismaClient } from '../generated/prisma/client.js';

/** The digests served (the latest, the list, the Atom feed): days that covered at least one issue. */
const nonEmptyDigestSql = Prisma.sql`"issueCount" > 0`;

/** A page of the served digests, newest day first (limit 1: the latest). */
export const readDigestPage = (read: DriverRead, columns: Prisma.Sql, limit: number, offset = 0) =>
  read<Digest>(Prisma.sql`SELECT ${columns} FROM "Digest" WHERE ${nonEmptyDigestSql} ORDER BY date DESC LIMIT ${limit} OFFSET ${offset}`);

/** How many digests are served. */
export async function countServedDigests(read: DriverRead): Promise<number> {
  const [row] = await read<{ total: number }>(Prisma.sql`SELECT count(*)::int AS total FROM "Digest" WHERE ${nonEmptyDigestSql}`);
  return row!.total;
}

/** The digest of one day, served or empty; undefined when none was written. */
export async function readDigestOf(read: DriverRead, columns: Prisma.Sql, date: string): Promise<Digest | undefined> {
  const [digest] = await read<Digest>(Prisma.sql`SELECT ${columns} FROM "Digest" WHERE date = ${date}`);
  return digest;
}

/** Which of these days have a digest, in date order. */
export async function daysWithDigests(prisma: PrismaClient, days: string[]): Promise<string[]> {
  const existing = await prisma.digest.findMany({ where: { date: { in: days } }, select: { date: true }, orderBy: { date: 'asc' } });
  return existing.map((d) => d.date);
}

/** Whether the day has a digest. */
export async function hasDigest(prisma: PrismaClient, date: string): Promise<boolean> {
  return (await prisma.digest.count({ where: { date } })) > 0;
}

/**
 * Insert or replace by date in one statement, so instances generating the same day never collide;
 * the same statement moves the data version.
 */
export async function saveDigest(prisma: PrismaClient, date: string, content: string, issueCount: number): Promise<Digest> {
  const rows = await prisma.$queryRaw<Digest[]>`
    WITH bump AS (${Prisma.raw(bumpDataVersionCte)})
    INSERT INTO "Digest" (id, date, content, "issueCount", "generatedAt")
    VALUES (gen_random_uuid(), ${date}, ${content}, ${issueCount}, now())
    ON CONFLICT (date) DO UPDATE SET content = EXCLUDED.content, "issueCount" = EXCLUDED."issueCount", "generatedAt" = EXCLUDED."generatedAt"
    RETURNING id::text AS id, date, content, "issueCount", "generatedAt"`;
  return rows[0]!;
}
