// Generates (or regenerates) the digest of one UTC day from the served issues published that day.
import { utcDay } from '../dates.js';
import { bumpDataVersionCte } from '../db/data-version.js';
import { columnsSql } from '../db/driver-read.js';
import { Prisma, type Digest, type PrismaClient } from '../generated/prisma/client.js';
import { readFreshness, type Freshness } from '../issues/freshness.js';
import { servedIssueSql } from '../issues/served.js';
import { digestIssueSelect, renderDigest, type DigestContext, type DigestIssue } from './render.js';

const digestIssueColumns = columnsSql(Object.keys(digestIssueSelect));

/** The digests served (the latest, the list, the Atom feed): days that covered at least one issue. */
export const nonEmptyDigestSql = Prisma.sql`"issueCount" > 0`;

/** A page of the served digests, newest day first. */
export const digestPageSql = (columns: Prisma.Sql, limit: number, offset = 0) =>
  Prisma.sql`SELECT ${columns} FROM "Digest" WHERE ${nonEmptyDigestSql} ORDER BY date DESC LIMIT ${limit} OFFSET ${offset}`;

/**
 * Insert or replace by date in one statement, so instances generating the same day never collide;
 * the same statement moves the data version.
 */
async function saveDigest(prisma: PrismaClient, date: string, content: string, issueCount: number): Promise<Digest> {
  const rows = await prisma.$queryRaw<Digest[]>`
    WITH bump AS (${Prisma.raw(bumpDataVersionCte)})
    INSERT INTO "Digest" (id, date, content, "issueCount", "generatedAt")
    VALUES (gen_random_uuid(), ${date}, ${content}, ${issueCount}, now())
    ON CONFLICT (date) DO UPDATE SET content = EXCLUDED.content, "issueCount" = EXCLUDED."issueCount", "generatedAt" = EXCLUDED."generatedAt"
    RETURNING id::text AS id, date, content, "issueCount", "generatedAt"`;
  return rows[0]!;
}

const DAY_MS = 24 * 3600_000;
const dayStart = (date: string) => new Date(`${date}T00:00:00.000Z`);
const dayOffset = (date: string, days: number) => utcDay(new Date(dayStart(date).getTime() + days * DAY_MS));

/**
 * What a day's digest says beyond its own issues, from served issues that include at least those
 * published in the seven days before it and those added to KEV in the seven days to it.
 */
function contextOf(date: string, served: DigestIssue[], freshness: Freshness): DigestContext {
  const weekBefore = dayStart(dayOffset(date, -7)).getTime();
  const start = dayStart(date).getTime();
  const kevFrom = dayOffset(date, -6);
  const previousWeek = new Map<string, number>();
  for (const issue of served) {
    const at = issue.publishedAt.getTime();
    if (at < weekBefore || at >= start) continue;
    for (const type of issue.attackType) previousWeek.set(type, (previousWeek.get(type) ?? 0) + 1);
  }
  const exploitedNow = served.filter((i) => i.kevDateAdded !== null && i.kevDateAdded >= kevFrom && i.kevDateAdded <= date);
  return { exploitedNow, previousWeek, freshness };
}

const readWith =
  (prisma: PrismaClient) =>
  <T>(query: Prisma.Sql) =>
    prisma.$queryRaw<T[]>(query);

export async function generateDigest(prisma: PrismaClient, date: string): Promise<Digest> {
  const start = dayStart(date);
  const end = new Date(start.getTime() + DAY_MS);
  const [around, freshness] = await Promise.all([
    prisma.$queryRaw<DigestIssue[]>`
      SELECT ${digestIssueColumns} FROM "Issue" WHERE ${servedIssueSql}
        AND (("publishedAt" >= ${new Date(start.getTime() - 7 * DAY_MS)} AND "publishedAt" < ${end})
          OR "kevDateAdded" BETWEEN ${dayOffset(date, -6)} AND ${date})`,
    readFreshness(readWith(prisma)),
  ]);
  const issues = around.filter((i) => i.publishedAt >= start && i.publishedAt < end);
  return saveDigest(prisma, date, renderDigest(date, issues, contextOf(date, around, freshness)), issues.length);
}

/**
 * Regenerates the digests already written for these days: an advisory that arrives days late, one
 * withdrawn, or one whose date moved would otherwise leave a digest wrong for good (the schedule
 * only writes the day that just ended). Days without a digest stay without one.
 */
export async function refreshDigests(prisma: PrismaClient, days: string[]): Promise<string[]> {
  if (days.length === 0) return [];
  const existing = await prisma.digest.findMany({ where: { date: { in: days } }, select: { date: true }, orderBy: { date: 'asc' } });
  for (const { date } of existing) await generateDigest(prisma, date);
  return existing.map((d) => d.date);
}

/** Digests for every day that has served issues (the sample data's days at seed time). */
export async function generateDigestsForAllDays(prisma: PrismaClient): Promise<number> {
  const [issues, freshness] = await Promise.all([
    prisma.$queryRaw<DigestIssue[]>`SELECT ${digestIssueColumns} FROM "Issue" WHERE ${servedIssueSql}`,
    readFreshness(readWith(prisma)),
  ]);
  const byDay = new Map<string, DigestIssue[]>();
  for (const issue of issues) {
    const day = utcDay(issue.publishedAt);
    const ofDay = byDay.get(day);
    if (ofDay) ofDay.push(issue);
    else byDay.set(day, [issue]);
  }
  for (const [day, ofDay] of byDay) await saveDigest(prisma, day, renderDigest(day, ofDay, contextOf(day, issues, freshness)), ofDay.length);
  return byDay.size;
}
