// Generates (or regenerates) the digest of one UTC day from the served issues published that day.
import { utcDay } from '../dates.js';
import { columnsSql, prismaRead } from '../db/driver-read.js';
import type { Digest, PrismaClient } from '../generated/prisma/client.js';
import type { Freshness } from '../issues/freshness.js';
import { readDigestIssues, readFreshness } from '../issues/reads.js';
import { digestIssueSelect, renderDigest, type DigestContext, type DigestIssue } from './render.js';
import { daysWithDigests, saveDigest } from './store.js';

const digestIssueColumns = columnsSql(Object.keys(digestIssueSelect));

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

export async function generateDigest(prisma: PrismaClient, date: string): Promise<Digest> {
  const start = dayStart(date);
  const end = new Date(start.getTime() + DAY_MS);
  const read = prismaRead(prisma);
  const [around, freshness] = await Promise.all([
    readDigestIssues<DigestIssue>(read, digestIssueColumns, {
      publishedFrom: new Date(start.getTime() - 7 * DAY_MS),
      to: end,
      kevFrom: dayOffset(date, -6),
      kevTo: date,
    }),
    readFreshness(read),
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
  const existing = await daysWithDigests(prisma, days);
  for (const date of existing) await generateDigest(prisma, date);
  return existing;
}

/** Digests for every day that has served issues (the sample data's days at seed time). */
export async function generateDigestsForAllDays(prisma: PrismaClient): Promise<number> {
  const read = prismaRead(prisma);
  const [issues, freshness] = await Promise.all([readDigestIssues<DigestIssue>(read, digestIssueColumns), readFreshness(read)]);
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
