// Upstream sources (SOURCES / SOURCES_FILE): what each one's last sync did, for operators.
import { maxRecordBytes } from '../sources/record-size.js';
import { sourceStatuses, type SourceStatus } from '../sources/status.js';
import { builder, envelopeRef } from './builder.js';

const SourceCountsRef = builder.objectRef<Record<string, number>>('SourceSyncCounts').implement({
  description: 'What the last sync that fetched new data did with its records.',
  fields: (t) => ({
    received: t.int({ description: 'Records read (changed since the sync before).', resolve: (c) => c.received ?? 0 }),
    created: t.int({ description: 'Records that created an issue.', resolve: (c) => c.created ?? 0 }),
    updated: t.int({ description: 'Records or signals that changed an issue.', resolve: (c) => c.updated ?? 0 }),
    unchanged: t.int({ description: 'Records or signals that changed nothing.', resolve: (c) => c.unchanged ?? 0 }),
    rejected: t.int({ description: 'Records that could not be read or were invalid.', resolve: (c) => c.rejected ?? 0 }),
    skipped: t.int({ description: 'Records not read: the same as at the sync before.', resolve: (c) => c.skipped ?? 0 }),
    tooLarge: t.int({
      description: `Records not read: over the size limit of one record (${maxRecordBytes / 1024 / 1024} MB).`,
      resolve: (c) => c.tooLarge ?? 0,
    }),
  }),
});

const SourceStatusRef = builder.objectRef<SourceStatus>('SourceStatus').implement({
  description: 'A configured source and what its last sync did.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The name it is configured under.' }),
    kind: t.exposeString('kind', { description: 'osv-zip, osv-dir, kev, epss or feed.' }),
    location: t.exposeString('location', { description: 'The https URL or local path it is read from.' }),
    intervalMinutes: t.exposeInt('intervalMinutes', { description: 'Minutes between syncs when the server runs them.' }),
    lastAttemptAt: t.expose('lastAttemptAt', { type: 'DateTime', nullable: true, description: 'When a sync last started.' }),
    lastSuccessAt: t.expose('lastSuccessAt', { type: 'DateTime', nullable: true, description: 'When a sync last finished without error.' }),
    lastError: t.exposeString('lastError', { nullable: true, description: 'Why the last sync failed; null once a sync succeeds.' }),
    lastErrorAt: t.expose('lastErrorAt', { type: 'DateTime', nullable: true, description: 'When the last sync failed.' }),
    counts: t.field({ type: SourceCountsRef, nullable: true, description: 'What the last sync that fetched new data did.', resolve: (s) => s.counts }),
  }),
});

const SourceListRef = envelopeRef('SourceStatusList', {
  description: 'The configured sources under `data`, the REST response shape.',
  data: { type: [SourceStatusRef], description: 'The sources, in configuration order.' },
});

builder.queryField('sources', (t) =>
  t.field({
    authScopes: { admin: true },
    type: SourceListRef,
    description: 'Admin (bearer ADMIN_API_KEY): the configured upstream sources and what each last sync did (last success, last error, counts).',
    resolve: async (_root, _args, ctx) => ({ data: await sourceStatuses(ctx.prisma, ctx.config.sources) }),
  }),
);
