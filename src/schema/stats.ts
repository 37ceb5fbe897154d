// Statistics over the served issues.
import { Prisma } from '../generated/prisma/client.js';
import { issueFilterSql } from '../issues/filters.js';
import { readFreshness, type Freshness, type SourceFreshness } from '../issues/freshness.js';
import { servedIssueSql } from '../issues/served.js';
import { builder, envelopeRef } from './builder.js';

interface Stats extends Freshness {
  totalIssues: number;
  totalDigests: number;
  last24h: number;
  last7d: number;
}

const SourceFreshnessRef = builder.objectRef<SourceFreshness>('SourceFreshness').implement({
  description: 'A source that has brought new data, and when it last did.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The source, as configured (the default list or SOURCES).' }),
    lastNewDataAt: t.expose('lastNewDataAt', { type: 'DateTime', description: 'When a sync of it last created or updated an issue.' }),
  }),
});

const StatsRef = builder.objectRef<Stats>('Stats').implement({
  description: 'Aggregate counts over served issues and digests.',
  fields: (t) => ({
    totalIssues: t.exposeInt('totalIssues', { description: 'All served issues.' }),
    totalDigests: t.exposeInt('totalDigests', { description: 'Number of digests.' }),
    last24h: t.exposeInt('last24h', { description: 'Served issues published in the last 24 hours.' }),
    last7d: t.exposeInt('last7d', { description: 'Served issues published in the last 7 days.' }),
    lastNewDataAt: t.expose('lastNewDataAt', {
      type: 'DateTime',
      nullable: true,
      description:
        'When the feed last received new data from a source: the end of the latest sync that created or updated an issue; null while no source has delivered (the feed is the bundled sample and what was ingested by hand).',
    }),
    newDataSources: t.field({
      type: [SourceFreshnessRef],
      description:
        'The sources that have brought new data, most recent first; empty while the feed holds only the bundled sample and what was ingested by hand.',
      resolve: (s) => s.newDataSources,
    }),
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
      const [totalIssues, [row], freshness] = await Promise.all([
        countIssues(issueFilterSql({})),
        db.read<Omit<Stats, 'totalIssues'>>(Prisma.sql`
          SELECT (SELECT count(*)::int FROM "Issue" WHERE ${servedIssueSql} AND "publishedAt" > now() - interval '24 hours') AS "last24h",
                 (SELECT count(*)::int FROM "Issue" WHERE ${servedIssueSql} AND "publishedAt" > now() - interval '7 days') AS "last7d",
                 (SELECT count(*)::int FROM "Digest") AS "totalDigests"`),
        readFreshness((query) => db.read(query)),
      ]);
      return { data: { totalIssues, ...row!, ...freshness } };
    },
  }),
);
