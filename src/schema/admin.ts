// Admin operations, behind the bearer ADMIN_API_KEY: ingest records, reclassify stored issues,
// (re)generate a digest.
import { calendarDate, utcDay, yesterdayUtc } from '../dates.js';
import { generateDigest } from '../digest/generate.js';
import { badRequest } from '../errors.js';
import type { IngestResult } from '../ingest/ingest.js';
import { issueKey, type IssuedKey } from '../keys/api-keys.js';
import type { Rejection } from '../ingest/parse.js';
import type { ReclassifyResult } from '../ingest/reclassify.js';
import { builder, envelopeRef } from './builder.js';
import { DigestEnvelopeRef } from './digest.js';

/** Records per request; larger loads go through the CLI. */
const maxItemsPerRequest = 5000;

const RejectionRef = builder.objectRef<Rejection>('IngestRejection').implement({
  description: 'A record that was not ingested, and why.',
  fields: (t) => ({
    index: t.exposeInt('index', { description: 'Position of the record in the request (0-based).' }),
    message: t.exposeString('message', { description: 'Why it was rejected.' }),
  }),
});

const IngestResultRef = builder.objectRef<IngestResult>('IngestResult').implement({
  description: 'What an ingest did with each record.',
  fields: (t) => ({
    received: t.exposeInt('received', { description: 'Records in the request.' }),
    created: t.exposeInt('created', { description: 'Records that created a new issue.' }),
    updated: t.exposeInt('updated', { description: 'Records that changed an existing issue.' }),
    unchanged: t.exposeInt('unchanged', { description: 'Records identical to what is stored (nothing changed, nothing published).' }),
    rejected: t.field({ type: [RejectionRef], description: 'Invalid records, with their index and the reason.', resolve: (r) => r.rejected }),
    ids: t.exposeStringList('ids', { description: 'Ids of the issues the accepted records map to, in request order.' }),
  }),
});

const IngestEnvelope = envelopeRef('IngestResultEnvelope', {
  description: 'An ingest result under `data`, the REST response shape.',
  data: { type: IngestResultRef },
});

builder.mutationField('ingestItems', (t) =>
  t.field({
    authScopes: { admin: true },
    type: IngestEnvelope,
    description:
      'Admin (bearer ADMIN_API_KEY): ingests OSV records and/or native items. Each record is validated on its own; ' +
      're-ingesting unchanged content changes and publishes nothing; new relevant issues are published to webhooks. ' +
      'Over REST the body may also be one OSV record or an array of records.',
    args: {
      items: t.arg({
        type: ['JSON'],
        // Entries may be null: the ingest rejects such an entry on its own, like any other bad record.
        required: { list: true, items: false },
        description: 'OSV records (https://ossf.github.io/osv-schema/) and/or native items (see docs/ingestion.md).',
      }),
    },
    resolve: async (_root, { items }, ctx) => {
      if (items.length > maxItemsPerRequest) throw badRequest(`At most ${maxItemsPerRequest} records per request; use the CLI for larger loads`);
      // The pipeline (the classifier's tables and model) is loaded by the first ingest: a server
      // that only serves never holds it (bench/README.md, start-up time and memory).
      const { ingest } = await import('../ingest/ingest.js');
      const result = await ingest(ctx, items, { stopping: ctx.stopping });
      ctx.registryLookups?.request(result.ids);
      return { data: result };
    },
  }),
);

const ReclassifyResultRef = builder.objectRef<ReclassifyResult>('ReclassifyResult').implement({
  description: 'What a reclassification did.',
  fields: (t) => ({
    version: t.exposeString('version', { description: 'The classifierPromptVersion applied.' }),
    examined: t.exposeInt('examined', { description: 'Stored issues classified by another version.' }),
    updated: t.exposeInt('updated', { description: 'Issues rewritten with the current classification.' }),
    newlyServed: t.exposeInt('newlyServed', { description: 'Issues served now that were not (published once as new, if never published before).' }),
    unserved: t.exposeInt('unserved', { description: 'Issues no longer judged relevant, so no longer served.' }),
    failed: t.exposeInt('failed', { description: 'Issues whose stored record could not be reclassified; they keep their classification.' }),
  }),
});

const ReclassifyEnvelope = envelopeRef('ReclassifyResultEnvelope', {
  description: 'A reclassification result under `data`, the REST response shape.',
  data: { type: ReclassifyResultRef },
});

builder.mutationField('reclassifyIssues', (t) =>
  t.field({
    authScopes: { admin: true },
    type: ReclassifyEnvelope,
    description:
      'Admin (bearer ADMIN_API_KEY): re-runs the current classifier over every stored issue classified by another version, ' +
      'from its stored source record. Idempotent. An issue that becomes relevant is published once as new; one that stops ' +
      'being relevant stops being served. Large stores: npm run cli -- reclassify.',
    resolve: async (_root, _args, ctx) => {
      const { reclassify } = await import('../ingest/reclassify.js');
      return { data: await reclassify(ctx) };
    },
  }),
);

builder.mutationField('generateDigest', (t) =>
  t.field({
    authScopes: { admin: true },
    type: DigestEnvelopeRef,
    description: "Admin (bearer ADMIN_API_KEY): generates or regenerates a UTC day's digest (default: yesterday).",
    args: {
      date: t.arg.string({ required: false, description: 'Day to summarise, YYYY-MM-DD (UTC); not in the future. Default: yesterday.' }),
    },
    resolve: async (_root, { date }, ctx) => {
      const day = calendarDate(date ?? yesterdayUtc());
      if (day > utcDay(new Date())) throw badRequest('date must not be in the future');
      return { data: await generateDigest(ctx.prisma, day) };
    },
  }),
);

const IssuedKeyRef = builder.objectRef<IssuedKey>('IssuedApiKey').implement({
  description: 'A bearer key for webhooks, shown once: only its SHA-256 is stored.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Key id (UUID), for listing and revoking with the CLI.' }),
    name: t.exposeString('name', { description: 'The name it was issued under.' }),
    key: t.exposeString('key', { description: 'The key itself (swk_...); it cannot be shown again.' }),
  }),
});

const IssuedKeyEnvelope = envelopeRef('IssuedApiKeyEnvelope', {
  description: 'An issued key under `data`, the REST response shape.',
  data: { type: IssuedKeyRef },
});

builder.mutationField('createApiKey', (t) =>
  t.field({
    authScopes: { admin: true },
    type: IssuedKeyEnvelope,
    description:
      'Admin (bearer ADMIN_API_KEY): issues a bearer key for registering and managing webhooks, as `npm run cli -- keys create` does, ' +
      'while the server runs (the CLI needs the embedded database to itself).',
    args: {
      name: t.arg.string({ required: true, description: 'What the key is for (1 to 100 characters), shown by `keys list`.' }),
    },
    resolve: async (_root, { name }, ctx) => ({ data: await issueKey(ctx.prisma, name) }),
  }),
);
