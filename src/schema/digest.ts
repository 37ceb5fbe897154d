// The Digest type, as the spec's table describes it.
import type { Digest } from '../generated/prisma/client.js';
import { builder } from './builder.js';

export const DigestRef = builder.prismaObject('Digest', {
  description: "A day's Markdown summary of the issues published that UTC day.",
  fields: (t) => ({
    date: t.exposeString('date', { description: 'Calendar date (UTC), YYYY-MM-DD.' }),
    content: t.exposeString('content', { description: 'Markdown text of the daily summary.' }),
    issueCount: t.exposeInt('issueCount', { description: 'Number of issues covered.' }),
    generatedAt: t.expose('generatedAt', { type: 'DateTime', description: 'Generation time.' }),
  }),
});

export const DigestEnvelope = builder.objectRef<{ data: Digest }>('DigestEnvelope').implement({
  description: 'A digest under `data`, the REST response shape.',
  fields: (t) => ({ data: t.field({ type: DigestRef, resolve: (parent) => parent.data }) }),
});
