// Statistics over the served issues.
import { Prisma } from '../generated/prisma/client.js';
import { issueFilterSql } from '../issues/filters.js';
import { servedIssueSql } from '../issues/served.js';
import { builder, envelopeRef } from './builder.js';

interface Stats {
  totalIssues: number;
  totalDigests: number;
  last24h: number;
  last7d: number;
}

const StatsRef = builder.objectRef<Stats>('Stats').implement({
  description: 'Aggregate counts over served issues and digests.',
  fields: (t) => ({
    totalIssues: t.exposeInt('totalIssues', { description: 'All served issues.' }),
    totalDigests: t.exposeInt('totalDigests', { description: 'Number of digests.' }),
    last24h: t.exposeInt('last24h', { description: 'Served issues published in the last 24 hours.' }),
    last7d: t.exposeInt('last7d', { description: 'Served issues published in the last 7 days.' }),
  }),
});

const StatsEnvelope = envelopeRef('StatsEnvelope', { description: 'The statistics under `data`.', data: { type: StatsRef } });

builder.queryField('stats', (t) =>
  t.field({
    type: StatsEnvelope,
    description: 'Counts of served issues (all, last 24 hours, last 7 days) and of digests.',
    // The total is the count of every served issue, kept per data version by the count cache
    // (db/count-cache.ts: it is the dearest of the four, an index-only scan of every served row);
    // the unfiltered list's total is the same entry.
    // The rest is one statement sent past Prisma's client (db/driver-read.ts): the windows are
    // index range scans on the served publishedAt index (FILTER clauses over one count compared
    // every served row's date, and reached a quarter of the raw server's req/s, bench/README.md).
    resolve: async (_root, _args, { countIssues, db }) => {
      const [totalIssues, [row]] = await Promise.all([
        countIssues(issueFilterSql({})),
        db.read<Omit<Stats, 'totalIssues'>>(Prisma.sql`
          SELECT (SELECT count(*)::int FROM "Issue" WHERE ${servedIssueSql} AND "publishedAt" > now() - interval '24 hours') AS "last24h",
                 (SELECT count(*)::int FROM "Issue" WHERE ${servedIssueSql} AND "publishedAt" > now() - interval '7 days') AS "last7d",
                 (SELECT count(*)::int FROM "Digest") AS "totalDigests"`),
      ]);
      return { data: { totalIssues, ...row! } };
    },
  }),
);
