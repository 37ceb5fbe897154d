// The daily digests: the latest, and past ones by page or by day.
import { calendarDate } from '../dates.js';
import { countServedDigests, readDigestOf, readDigestPage } from '../digest/store.js';
import { notFound } from '../errors.js';
import { pageDescriptions, parsePage } from '../issues/filters.js';
import type { Digest } from '../generated/prisma/client.js';
import { builder, envelopeRef } from './builder.js';
import { digestColumns } from './columns.js';
import { once, PageMetaRef } from './issue.js';

// A plain object type over the row: its resolvers read the selected columns (columns.ts).
const DigestRef = builder.objectRef<Digest>('Digest').implement({
  description: 'The daily summary of new issues.',
  fields: (t) => ({
    date: t.exposeString('date', { description: 'Calendar day (UTC) the digest covers, YYYY-MM-DD.' }),
    content: t.exposeString('content', { description: 'Markdown text of the daily summary.' }),
    issueCount: t.exposeInt('issueCount', { description: 'Number of issues covered.' }),
    generatedAt: t.expose('generatedAt', { type: 'DateTime', description: 'Generation time.' }),
  }),
});

export const DigestEnvelopeRef = envelopeRef('DigestEnvelope', {
  description: 'One digest under `data`.',
  data: { type: DigestRef, description: 'The digest.' },
});

builder.queryField('latestDigest', (t) =>
  t.field({
    type: DigestEnvelopeRef,
    nullable: true, // a missing digest spoils only this field of a larger query
    description: 'The newest digest that covers at least one issue (an empty newest day is skipped); NOT_FOUND (404) when there is none.',
    resolve: async (_root, _args, context, info) => {
      const [digest] = await readDigestPage(context.db.read, digestColumns(info, ['data']), 1);
      if (!digest) throw notFound('No digest yet');
      return { data: digest };
    },
  }),
);

const DigestListRef = envelopeRef('DigestList', {
  description: 'One page of digests, with its page metadata.',
  data: { type: [DigestRef], description: 'The digests, newest day first.' },
  meta: { type: PageMetaRef, description: 'Total, limit and offset.' },
});

builder.queryFields((t) => ({
  digests: t.field({
    type: DigestListRef,
    description: 'Past digests that cover at least one issue, newest day first, one page at a time (also an Atom feed: /api/v1/digests.atom).',
    args: {
      limit: t.arg.int({ description: pageDescriptions.limit(20, 100) }),
      offset: t.arg.int({ description: pageDescriptions.offset }),
    },
    resolve: (_root, args, context, info) => {
      const { limit, offset } = parsePage(args);
      return {
        data: once(() => readDigestPage(context.db.read, digestColumns(info, ['data']), limit, offset)),
        meta: { total: once(() => countServedDigests(context.db.read)), limit, offset },
      };
    },
  }),

  digest: t.field({
    type: DigestEnvelopeRef,
    nullable: true,
    description: 'The digest of one UTC day (YYYY-MM-DD); NOT_FOUND (404) when none was generated for it.',
    args: { date: t.arg.string({ required: true, description: 'The day, YYYY-MM-DD (UTC).' }) },
    resolve: async (_root, { date }, context, info) => {
      const digest = await readDigestOf(context.db.read, digestColumns(info, ['data']), calendarDate(date));
      if (!digest) throw notFound(`No digest for ${date}`);
      return { data: digest };
    },
  }),
}));
