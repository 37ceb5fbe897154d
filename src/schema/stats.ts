// Statistics: GET /api/v1/stats.
import { servedIssue } from '../issues/served.js';
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

const StatsEnvelope = envelopeRef('StatsEnvelope', { description: 'The GET /api/v1/stats response.', data: { type: StatsRef } });

builder.queryField('stats', (t) =>
  t.field({
    type: StatsEnvelope,
    description: 'Counts of served issues (all, last 24 hours, last 7 days) and of digests.',
    resolve: async (_root, _args, { prisma }) => {
      const now = Date.now();
      const since = (ms: number) => ({ ...servedIssue, publishedAt: { gt: new Date(now - ms) } });
      const [totalIssues, totalDigests, last24h, last7d] = await Promise.all([
        prisma.issue.count({ where: servedIssue }),
        prisma.digest.count(),
        prisma.issue.count({ where: since(24 * 3600_000) }),
        prisma.issue.count({ where: since(7 * 24 * 3600_000) }),
      ]);
      return { data: { totalIssues, totalDigests, last24h, last7d } };
    },
  }),
);
