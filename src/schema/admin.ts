// Admin operations, behind the bearer ADMIN_API_KEY: ingest records, (re)generate a digest.
import { generateDigest, isCalendarDate, utcDay, yesterdayUtc } from '../digest/generate.js';
import { badRequest } from '../errors.js';
import { requireAdminKey } from '../http/admin-auth.js';
import { ingest, type IngestResult } from '../ingest/ingest.js';
import type { Rejection } from '../ingest/parse.js';
import { builder } from './builder.js';
import { DigestEnvelopeRef } from './digest.js';

/** Records per request; larger loads go through the CLI. */
export const maxItemsPerRequest = 5000;

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

const IngestEnvelope = builder.objectRef<{ data: IngestResult }>('IngestResultEnvelope').implement({
  description: 'An ingest result under `data`, the REST response shape.',
  fields: (t) => ({ data: t.field({ type: IngestResultRef, resolve: (parent) => parent.data }) }),
});

builder.mutationField('ingestItems', (t) =>
  t.field({
    type: IngestEnvelope,
    description:
      'Admin (bearer ADMIN_API_KEY): ingests OSV records and/or native items. Each record is validated on its own; ' +
      're-ingesting unchanged content changes and publishes nothing; new relevant issues are published to webhooks. ' +
      'REST: POST /api/v1/admin/ingest with one OSV record, an array of records, or {items: [...]} as the body.',
    args: {
      items: t.arg({
        type: ['JSON'],
        required: true,
        description: 'OSV records (https://ossf.github.io/osv-schema/) and/or native items (see README, "Ingestion").',
      }),
    },
    resolve: async (_root, { items }, ctx) => {
      requireAdminKey(ctx);
      if (items.length > maxItemsPerRequest) throw badRequest(`At most ${maxItemsPerRequest} records per request; use the CLI for larger loads`);
      return { data: await ingest({ prisma: ctx.prisma, pubsub: ctx.pubsub, log: ctx.log }, items) };
    },
  }),
);

builder.mutationField('generateDigest', (t) =>
  t.field({
    type: DigestEnvelopeRef,
    description:
      "Admin (bearer ADMIN_API_KEY): generates or regenerates a UTC day's digest (default: yesterday). " +
      'REST: POST /api/v1/admin/digests with body {date?: "YYYY-MM-DD"}.',
    args: {
      date: t.arg.string({ required: false, description: 'Day to summarise, YYYY-MM-DD (UTC); not in the future. Default: yesterday.' }),
    },
    resolve: async (_root, { date }, ctx) => {
      requireAdminKey(ctx);
      const day = date ?? yesterdayUtc();
      if (!isCalendarDate(day)) throw badRequest('date must be a calendar date written YYYY-MM-DD');
      if (day > utcDay(new Date())) throw badRequest('date must not be in the future');
      return { data: await generateDigest(ctx.prisma, day) };
    },
  }),
);
