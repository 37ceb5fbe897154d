// The daily digest: GET /api/v1/digest/latest.
import { notFound } from '../errors.js';
import type { Digest } from '../generated/prisma/client.js';
import { builder, selectionUnder } from './builder.js';

export const DigestRef = builder.prismaObject('Digest', {
  description: 'The daily summary of new issues.',
  select: { id: true },
  fields: (t) => ({
    date: t.exposeString('date', { description: 'Calendar day (UTC) the digest covers, YYYY-MM-DD.' }),
    content: t.exposeString('content', { description: 'Markdown text of the daily summary.' }),
    issueCount: t.exposeInt('issueCount', { description: 'Number of issues covered.' }),
    generatedAt: t.expose('generatedAt', { type: 'DateTime', description: 'Generation time.' }),
  }),
});

export const DigestEnvelopeRef = builder.objectRef<{ data: Digest }>('DigestEnvelope').implement({
  description: 'One digest: the GET /api/v1/digest/latest response.',
  fields: (t) => ({ data: t.field({ type: DigestRef, description: 'The digest.', resolve: (envelope) => envelope.data }) }),
});

builder.queryField('latestDigest', (t) =>
  t.field({
    type: DigestEnvelopeRef,
    nullable: true, // a missing digest spoils only this field of a larger query
    description:
      'The newest digest that covers at least one issue (an empty newest day is skipped); NOT_FOUND (404) when there is none. REST: GET /api/v1/digest/latest.',
    resolve: async (_root, _args, context, info) => {
      const digest = await context.prisma.digest.findFirst({
        ...selectionUnder('data', context, info),
        where: { issueCount: { gt: 0 } },
        orderBy: { date: 'desc' },
      });
      if (!digest) throw notFound('No digest yet');
      return { data: digest };
    },
  }),
);
