// Watched stacks of webhooks (src/stacks): the stack input of createWebhook and updateWebhook, what
// affects a webhook's stack now (as a page of scan matches, or as CycloneDX VEX), and its Atom
// feed token (the feed itself is a plain route, src/stacks/feed.ts).
import { parsePage } from '../issues/filters.js';
import { issuePath, stackFeedPath } from '../api-paths.js';
import { vexDocument } from '../sbom/vex.js';
import { stackFindings } from '../stacks/findings.js';
import { readStackComponents } from '../stacks/store.js';
import { issueFeedToken, revokeFeedToken, storedComponents } from '../stacks/watched.js';
import { badRequest } from '../errors.js';
import { stackWorkCost } from '../stacks/cost.js';
import { requireOwnedWebhook } from '../webhooks/manage.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { builder, envelopeRef } from './builder.js';
import { ScanMatchRef } from './scan.js';
import { once, PageMetaRef } from './issue.js';

export const WebhookStackInput = builder.inputType('WebhookStackInput', {
  description:
    "A stack to watch: either packages (the scan's entries: name@version or purls, at most 1000) or sbom (a CycloneDX 1.4-1.6 " +
    "or SPDX 2.3 JSON document). Read by the scan's parsers with the same limits and errors; purls must be of a known type. " +
    'The webhook then receives new_issues only for issues affecting a listed version, with matchedComponents added to the body.',
  fields: (t) => ({
    packages: t.stringList({
      description: 'Package entries as in POST /scan, e.g. vllm@0.5.0, pkg:pypi/langchain@0.2.1, pkg:huggingface/meta-llama/Llama-3.1-8B.',
    }),
    sbom: t.field({ type: 'JSON', description: 'A CycloneDX or SPDX JSON SBOM; each component with a purl (or a machine-learning-model) is watched.' }),
  }),
});

/** The webhook's stack and its components, or a 400 when it watches none. */
async function stackOfWebhook(prisma: PrismaClient, webhookId: string, owner: string) {
  const webhook = await requireOwnedWebhook(prisma, webhookId, owner);
  const stored = await readStackComponents(prisma, webhook.id);
  if (stored === undefined) throw badRequest('The webhook watches no stack');
  return { webhook, components: storedComponents(stored) };
}

/**
 * A page of the VEX: a 1,000-entry stack can match thousands of issues, each naming every
 * component it affects, which as one document runs to tens of megabytes built in memory.
 */
export const VEX_PAGE = { defaultLimit: 100, maxLimit: 1000 };

const FindingsList = envelopeRef('WebhookFindings', {
  description: "Served issues affecting the webhook's stack now, by severity then newest first.",
  data: { type: [ScanMatchRef], description: 'Matches; matchedPackages names the stack entries (purls for an SBOM).' },
  meta: { type: PageMetaRef, description: 'Paging.' },
});

builder.queryField('webhookFindings', (t) =>
  t.withAuth({ webhooks: true }).field({
    type: FindingsList,
    description: "What affects the webhook's watched stack now (the scan's answer for its components), paged.",
    args: {
      webhookId: t.arg.id({ required: true, description: 'Webhook id.' }),
      limit: t.arg.int({ description: 'Page size; default 20, maximum 100.' }),
      offset: t.arg.int({ description: 'Items to skip; default 0.' }),
    },
    resolve: async (_root, args, ctx) => {
      const { limit, offset } = parsePage(args);
      const { components } = await stackOfWebhook(ctx.prisma, String(args.webhookId), ctx.webhookOwner);
      await ctx.chargeWork?.(stackWorkCost(components.length));
      const result = await stackFindings(ctx.db, components);
      return { data: result.data.slice(offset, offset + limit), meta: { total: once(async () => result.meta.total), limit, offset } };
    },
  }),
);

builder.queryField('webhookFindingsVex', (t) =>
  t.withAuth({ webhooks: true }).field({
    type: 'JSON',
    description:
      "What affects the webhook's watched stack now, as a CycloneDX 1.6 VEX document (the SBOM's own refs when it came from one), " +
      `paged like the findings: \`limit\` vulnerabilities (default ${VEX_PAGE.defaultLimit}, maximum ${VEX_PAGE.maxLimit}) from \`offset\`, ` +
      'with the paging in metadata.properties (secwire:total, secwire:limit, secwire:offset).',
    args: {
      webhookId: t.arg.id({ required: true, description: 'Webhook id.' }),
      limit: t.arg.int({ description: `Vulnerabilities per page; default ${VEX_PAGE.defaultLimit}, maximum ${VEX_PAGE.maxLimit}.` }),
      offset: t.arg.int({ description: 'Vulnerabilities to skip; default 0.' }),
    },
    resolve: async (_root, args, ctx) => {
      const { limit, offset } = parsePage(args, VEX_PAGE);
      const { components } = await stackOfWebhook(ctx.prisma, String(args.webhookId), ctx.webhookOwner);
      await ctx.chargeWork?.(stackWorkCost(components.length, limit));
      const result = await stackFindings(ctx.db, components);
      // Yoga puts the request in every context; the issue links are absolute, as the scan's VEX writes them.
      const request = (ctx as { request?: Request }).request;
      const origin = request ? new URL(request.url).origin : '';
      return vexDocument(
        { ...result, data: result.data.slice(offset, offset + limit) },
        components.map((c) => ({ ref: c.ref, purl: c.entry, name: c.name, ...(c.version ? { version: c.version } : {}) })),
        { issueUrl: (id) => `${origin}${issuePath(id)}`, page: { total: result.meta.total, limit, offset } },
      );
    },
  }),
);

const StackFeed = builder.objectRef<{ token: string; path: string }>('StackFeed').implement({
  description: "A watched stack's Atom feed: anyone with the token reads it, so keep it like a password.",
  fields: (t) => ({
    token: t.exposeString('token', { description: 'The feed token; shown once. Issuing a new one revokes it.' }),
    path: t.exposeString('path', { description: 'Where the feed is served, relative to the service.' }),
  }),
});

const StackFeedEnvelope = envelopeRef('StackFeedEnvelope', { description: 'A stack feed.', data: { type: StackFeed, description: 'The feed.' } });

builder.mutationField('issueStackFeed', (t) =>
  t.withAuth({ webhooks: true }).field({
    type: StackFeedEnvelope,
    description:
      "A new Atom feed token for the webhook's stack (GET /api/v1/stacks/{token}.atom), revoking any earlier one. The feed " +
      'works while the webhook and the bearer key that owns it do.',
    args: { webhookId: t.arg.id({ required: true, description: 'Webhook id.' }) },
    resolve: async (_root, args, ctx) => {
      const { webhook } = await stackOfWebhook(ctx.prisma, String(args.webhookId), ctx.webhookOwner);
      const token = await issueFeedToken(ctx.prisma, webhook.id);
      return { data: { token, path: stackFeedPath(token) } };
    },
  }),
);

const RevokedFeed = builder.objectRef<{ webhookId: string }>('RevokedStackFeed').implement({
  description: 'A stack whose feed token no longer works.',
  fields: (t) => ({ webhookId: t.exposeString('webhookId', { description: 'Webhook id.' }) }),
});

builder.mutationField('revokeStackFeed', (t) =>
  t.withAuth({ webhooks: true }).field({
    type: envelopeRef('RevokedStackFeedEnvelope', { description: 'Answer to a revocation.', data: { type: RevokedFeed, description: 'The stack.' } }),
    description: "Revokes the webhook's stack feed token: the feed answers 404 from now on.",
    args: { webhookId: t.arg.id({ required: true, description: 'Webhook id.' }) },
    resolve: async (_root, args, ctx) => {
      const { webhook } = await stackOfWebhook(ctx.prisma, String(args.webhookId), ctx.webhookOwner);
      await revokeFeedToken(ctx.prisma, webhook.id);
      return { data: { webhookId: webhook.id } };
    },
  }),
);
