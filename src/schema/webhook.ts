// Webhooks: registration (POST /api/v1/webhooks, createWebhook) and management for the bearer key
// that owns them. Secrets are returned by createWebhook and rotateWebhookSecret only.
import { queryFromInfo } from '@pothos/plugin-prisma';
import { badRequest, notFound } from '../errors.js';
import type { Prisma } from '../generated/prisma/client.js';
import { isUuid } from '../params.js';
import { parsePage } from '../issues/filters.js';
import { storedFilters, type IssueFilters } from '../webhooks/filters.js';
import {
  createWebhookData,
  ownedWebhook,
  withinWebhookCap,
  requireOwnedWebhook,
  validateRegistration,
  validateUpdate,
} from '../webhooks/manage.js';
import { newSecret } from '../webhooks/signing.js';
import { builder } from './builder.js';
import { IssueTypeEnum, SeverityEnum } from './issue-type.js';

// ---- types

const WebhookFiltersRef = builder.objectRef<IssueFilters>('WebhookFilters').implement({
  description: 'Which new issues a webhook receives; a null key matches everything.',
  fields: (t) => ({
    severity: t.field({ type: SeverityEnum, nullable: true, description: 'Only issues of this severity.', resolve: (f) => f.severity ?? null }),
    issueType: t.field({ type: IssueTypeEnum, nullable: true, description: 'Only issues of this type.', resolve: (f) => f.issueType ?? null }),
    vendor: t.string({ nullable: true, description: 'Only issues naming this vendor (case-insensitive).', resolve: (f) => f.vendor ?? null }),
    llmSpecific: t.boolean({ nullable: true, description: 'Only issues with this llmSpecific value.', resolve: (f) => f.llmSpecific ?? null }),
  }),
});

const WebhookRef = builder.prismaObject('Webhook', {
  description: 'A webhook subscription; its secret is never shown again after creation or rotation.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Subscription id (UUID).' }),
    url: t.exposeString('url', { description: 'Delivery target (https).' }),
    active: t.exposeBoolean('active', { description: 'False once the receiver answered 410 or deliveries kept dying.' }),
    filters: t.field({ type: WebhookFiltersRef, description: 'Filters narrowing deliveries.', resolve: (w) => storedFilters(w.filters) }),
    deactivatedReason: t.exposeString('deactivatedReason', { nullable: true, description: 'Why the webhook became inactive.' }),
    previousSecretExpiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Until when the secret before the last rotation also signs deliveries; null when it no longer does.',
      select: { previousSecretExpiresAt: true },
      resolve: (w) => (w.previousSecretExpiresAt && w.previousSecretExpiresAt > new Date() ? w.previousSecretExpiresAt : null),
    }),
    consecutiveFailures: t.exposeInt('consecutiveFailures', { description: 'Failed attempts since the last success.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'Registration time.' }),
  }),
});

const WebhookWithSecretRef = builder.prismaObject('Webhook', {
  variant: 'WebhookWithSecret',
  description: 'A webhook subscription with its signing secret, returned once when created or rotated.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Subscription id (UUID).' }),
    url: t.exposeString('url', { description: 'Delivery target (https).' }),
    secret: t.exposeString('secret', { description: 'Shared signing secret (64 hex characters); store it now, it is not shown again.' }),
    active: t.exposeBoolean('active', { description: 'True after creation.' }),
    filters: t.field({ type: WebhookFiltersRef, description: 'Filters narrowing deliveries.', resolve: (w) => storedFilters(w.filters) }),
  }),
});

const DeliveryStatusEnum = builder.enumType('DeliveryStatus', {
  description: 'pending: waiting for its first attempt; delivering: in flight; succeeded; failed: will be retried; dead: no more retries.',
  values: ['pending', 'delivering', 'succeeded', 'failed', 'dead'] as const,
});

const DeliveryAttemptRef = builder.prismaObject('DeliveryAttempt', {
  description: 'One HTTP attempt of a delivery.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Attempt id (UUID).' }),
    attemptedAt: t.expose('attemptedAt', { type: 'DateTime', description: 'When the attempt started.' }),
    statusCode: t.exposeInt('statusCode', { nullable: true, description: 'HTTP status the receiver answered; null when no response came.' }),
    error: t.exposeString('error', { nullable: true, description: 'Why the attempt failed; null on success.' }),
    durationMs: t.exposeInt('durationMs', { description: 'Time until the response (or failure), in milliseconds.' }),
  }),
});

const WebhookDeliveryRef = builder.prismaObject('WebhookDelivery', {
  description: 'One message to one webhook (a batch of new issues, or a ping), with every attempt made.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Delivery id; sent as the webhook-id header, the same on every retry.' }),
    kind: t.exposeString('kind', { description: 'new_issues or ping.' }),
    eventId: t.exposeString('eventId', { nullable: true, description: 'The publish batch it belongs to; null for pings.' }),
    status: t.expose('status', { type: DeliveryStatusEnum, description: 'Delivery state.' }),
    nextAttemptAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the next attempt is due; null once succeeded or dead.',
      resolve: (d) => (d.status === 'succeeded' || d.status === 'dead' ? null : d.nextAttemptAt),
    }),
    lastStatusCode: t.exposeInt('lastStatusCode', { nullable: true, description: 'HTTP status of the latest attempt.' }),
    lastError: t.exposeString('lastError', { nullable: true, description: 'Failure of the latest attempt.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the delivery was queued.' }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true, description: 'When it succeeded or died.' }),
    attempts: t.relation('attemptLog', {
      description: 'Every attempt, oldest first.',
      query: { orderBy: [{ attemptedAt: 'asc' }, { id: 'asc' }] },
    }),
  }),
});

const WebhookEnvelope = builder.objectRef<{ data: unknown }>('WebhookEnvelope').implement({
  description: 'One webhook.',
  fields: (t) => ({ data: t.field({ type: WebhookRef, description: 'The webhook.', resolve: (p) => p.data as never }) }),
});

const WebhookSecretEnvelope = builder.objectRef<{ data: unknown }>('WebhookSecretEnvelope').implement({
  description: 'A webhook with its secret (creation and rotation only).',
  fields: (t) => ({ data: t.field({ type: WebhookWithSecretRef, description: 'The webhook and its secret.', resolve: (p) => p.data as never }) }),
});

const WebhookList = builder.objectRef<{ data: unknown[] }>('WebhookList').implement({
  description: "The bearer key's webhooks, oldest first.",
  fields: (t) => ({ data: t.field({ type: [WebhookRef], description: 'The webhooks.', resolve: (p) => p.data as never }) }),
});

const DeletedWebhook = builder.objectRef<{ id: string }>('DeletedWebhook').implement({
  description: 'A webhook that no longer exists.',
  fields: (t) => ({ id: t.exposeString('id', { description: 'Id of the deleted webhook.' }) }),
});

const DeletedWebhookEnvelope = builder.objectRef<{ data: { id: string } }>('DeletedWebhookEnvelope').implement({
  description: 'Answer to a deletion.',
  fields: (t) => ({ data: t.field({ type: DeletedWebhook, description: 'The deleted webhook.', resolve: (p) => p.data }) }),
});

const DeliveryPageMeta = builder.objectRef<{ total: number; limit: number; offset: number }>('DeliveryPageMeta').implement({
  description: 'Paging of a delivery list.',
  fields: (t) => ({
    total: t.exposeInt('total', { description: 'Deliveries matching the filters.' }),
    limit: t.exposeInt('limit', { description: 'Page size in effect.' }),
    offset: t.exposeInt('offset', { description: 'Items skipped.' }),
  }),
});

const WebhookDeliveryList = builder
  .objectRef<{ data: unknown[]; meta: { total: number; limit: number; offset: number } }>('WebhookDeliveryList')
  .implement({
    description: "A webhook's deliveries, newest first.",
    fields: (t) => ({
      data: t.field({ type: [WebhookDeliveryRef], description: 'The deliveries.', resolve: (p) => p.data as never }),
      meta: t.field({ type: DeliveryPageMeta, description: 'Paging.', resolve: (p) => p.meta }),
    }),
  });

const WebhookDeliveryEnvelope = builder.objectRef<{ data: unknown }>('WebhookDeliveryEnvelope').implement({
  description: 'One delivery.',
  fields: (t) => ({ data: t.field({ type: WebhookDeliveryRef, description: 'The delivery.', resolve: (p) => p.data as never }) }),
});

// ---- queries

builder.queryField('webhooks', (t) =>
  t.withAuth({ webhooks: true }).field({
    type: WebhookList,
    description: 'The webhooks registered with the bearer key (Authorization: Bearer <key>).',
    resolve: async (_root, _args, ctx, info) => {
      const ownerKeyHash = ctx.webhookOwner;
      const data = await ctx.prisma.webhook.findMany({
        ...queryFromInfo({ context: ctx, info, path: ['data'] }),
        where: { ownerKeyHash },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      });
      return { data };
    },
  }),
);

builder.queryField('webhook', (t) =>
  t.withAuth({ webhooks: true }).field({
    type: WebhookEnvelope,
    description: 'One webhook of the bearer key; 404 for unknown ids and for other keys\' webhooks.',
    args: { id: t.arg.id({ required: true, description: 'Webhook id.' }) },
    resolve: async (_root, args, ctx, info) => {
      const ownerKeyHash = ctx.webhookOwner;
      const data = await ctx.prisma.webhook.findFirst({
        ...queryFromInfo({ context: ctx, info, path: ['data'] }),
        where: ownedWebhook(String(args.id), ownerKeyHash),
      });
      if (!data) throw notFound('Webhook not found');
      return { data };
    },
  }),
);

builder.queryField('webhookDeliveries', (t) =>
  t.withAuth({ webhooks: true }).field({
    type: WebhookDeliveryList,
    description: "A webhook's deliveries with every attempt, newest first.",
    args: {
      webhookId: t.arg.id({ required: true, description: 'Webhook id.' }),
      status: t.arg({ type: DeliveryStatusEnum, description: 'Only deliveries in this state.' }),
      limit: t.arg.int({ description: 'Page size; default 20, maximum 100.' }),
      offset: t.arg.int({ description: 'Items to skip; default 0.' }),
    },
    resolve: async (_root, args, ctx, info) => {
      const ownerKeyHash = ctx.webhookOwner;
      const { limit, offset } = parsePage(args);
      const webhook = await requireOwnedWebhook(ctx, String(args.webhookId), ownerKeyHash);
      const where: Prisma.WebhookDeliveryWhereInput = { webhookId: webhook.id, ...(args.status ? { status: args.status } : {}) };
      const [data, total] = await Promise.all([
        ctx.prisma.webhookDelivery.findMany({
          ...queryFromInfo({ context: ctx, info, path: ['data'] }),
          where,
          orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
          take: limit,
          skip: offset,
        }),
        ctx.prisma.webhookDelivery.count({ where }),
      ]);
      return { data, meta: { total, limit, offset } };
    },
  }),
);

// ---- inputs

export const WebhookFiltersInput = builder.inputType('WebhookFiltersInput', {
  description: 'Filters for new issues: severity, issueType, vendor, llmSpecific; absent keys match everything.',
  fields: (t) => ({
    severity: t.field({ type: SeverityEnum, description: 'Only issues of this severity.' }),
    issueType: t.field({ type: IssueTypeEnum, description: 'Only issues of this type.' }),
    vendor: t.string({ description: 'Only issues naming this vendor (case-insensitive).' }),
    llmSpecific: t.boolean({ description: 'Only issues with this llmSpecific value.' }),
  }),
});

// ---- mutations

/** A week: long enough for any receiver's deploy, short enough that an old secret does not linger. */
const maxOverlapHours = 168;

builder.mutationField('createWebhook', (t) =>
  t.withAuth({ webhooks: true }).field({
    type: WebhookSecretEnvelope,
    description:
      'Registers a webhook (Authorization: Bearer <key>). The url must be https on a public address. ' +
      'Answers the secret once: deliveries are signed with it (X-Webhook-Signature and Standard Webhooks headers).',
    args: {
      url: t.arg.string({ required: true, description: 'https URL that receives the deliveries.' }),
      filters: t.arg({ type: WebhookFiltersInput, description: 'Optional filters: severity, issueType, vendor, llmSpecific.' }),
    },
    resolve: async (_root, args, ctx, info) => {
      const ownerKeyHash = ctx.webhookOwner;
      const valid = await validateRegistration(ctx, args);
      const data = await withinWebhookCap(ctx, ownerKeyHash, (tx) =>
        tx.webhook.create({
          ...queryFromInfo({ context: ctx, info, path: ['data'] }),
          data: createWebhookData(ownerKeyHash, valid),
        }),
      );
      return { data };
    },
  }),
);

builder.mutationField('updateWebhook', (t) =>
  t.withAuth({ webhooks: true }).field({
    type: WebhookEnvelope,
    description:
      'Changes a webhook of the bearer key: its url (checked like a registration), its filters (replaced entirely; ' +
      '{} matches everything), or active (false pauses it; true re-activates it with a clean failure count). ' +
      'New filters and a re-activation apply to issues published from then on.',
    args: {
      id: t.arg.id({ required: true, description: 'Webhook id.' }),
      url: t.arg.string({ description: 'New https URL.' }),
      filters: t.arg({ type: WebhookFiltersInput, description: 'New filters, replacing the old ones; {} (or null) matches everything.' }),
      active: t.arg.boolean({ description: 'false pauses deliveries, true resumes them.' }),
    },
    resolve: async (_root, args, ctx, info) => {
      const ownerKeyHash = ctx.webhookOwner;
      const where = ownedWebhook(String(args.id), ownerKeyHash);
      const current = await ctx.prisma.webhook.findFirst({ where, select: { id: true, url: true, filters: true, active: true } });
      if (!current) throw notFound('Webhook not found');
      const data = await ctx.prisma.webhook.update({
        ...queryFromInfo({ context: ctx, info, path: ['data'] }),
        where: { id: current.id },
        data: await validateUpdate(ctx, current, args),
      });
      return { data };
    },
  }),
);

builder.mutationField('deleteWebhook', (t) =>
  t.withAuth({ webhooks: true }).field({
    type: DeletedWebhookEnvelope,
    description: 'Deletes a webhook of the bearer key with its deliveries; nothing more is sent to it.',
    args: { id: t.arg.id({ required: true, description: 'Webhook id.' }) },
    resolve: async (_root, args, ctx) => {
      const ownerKeyHash = ctx.webhookOwner;
      const { count } = await ctx.prisma.webhook.deleteMany({ where: ownedWebhook(String(args.id), ownerKeyHash) });
      if (count === 0) throw notFound('Webhook not found');
      return { data: { id: String(args.id) } };
    },
  }),
);

builder.mutationField('rotateWebhookSecret', (t) =>
  t.withAuth({ webhooks: true }).field({
    type: WebhookSecretEnvelope,
    description:
      'Replaces the signing secret and answers the new one once; every later attempt is signed with it. For overlapHours ' +
      '(default 24) the old secret signs too, as a second v1 signature in webhook-signature, so a receiver can switch ' +
      'without dropping deliveries; 0 drops it at once (a leaked secret).',
    args: {
      id: t.arg.id({ required: true, description: 'Webhook id.' }),
      overlapHours: t.arg.int({ description: `Hours the old secret keeps signing too: 0 to ${maxOverlapHours}, default 24.` }),
    },
    resolve: async (_root, args, ctx, info) => {
      const ownerKeyHash = ctx.webhookOwner;
      const overlapHours = args.overlapHours ?? 24;
      if (overlapHours < 0 || overlapHours > maxOverlapHours) throw badRequest(`overlapHours must be between 0 and ${maxOverlapHours}`);
      const current = await ctx.prisma.webhook.findFirst({ where: ownedWebhook(String(args.id), ownerKeyHash), select: { id: true, secret: true } });
      if (!current) throw notFound('Webhook not found');
      const data = await ctx.prisma.webhook.update({
        ...queryFromInfo({ context: ctx, info, path: ['data'] }),
        where: { id: current.id },
        data: {
          secret: newSecret(),
          previousSecret: overlapHours > 0 ? current.secret : null,
          previousSecretExpiresAt: overlapHours > 0 ? new Date(Date.now() + overlapHours * 3600_000) : null,
        },
      });
      return { data };
    },
  }),
);

builder.mutationField('redeliverWebhookDelivery', (t) =>
  t.withAuth({ webhooks: true }).field({
    type: WebhookDeliveryEnvelope,
    description:
      'Sends a delivery again with the same webhook-id: a finished one gets a fresh retry schedule, a waiting one is due now.',
    args: {
      webhookId: t.arg.id({ required: true, description: 'Webhook id.' }),
      deliveryId: t.arg.id({ required: true, description: 'Delivery id.' }),
    },
    resolve: async (_root, args, ctx, info) => {
      const ownerKeyHash = ctx.webhookOwner;
      const webhook = await requireOwnedWebhook(ctx, String(args.webhookId), ownerKeyHash);
      if (!webhook.active) throw badRequest('Webhook is inactive');
      const deliveryId = String(args.deliveryId);
      if (!isUuid(deliveryId)) throw notFound('Delivery not found');
      const delivery = await ctx.prisma.webhookDelivery.findFirst({ where: { id: deliveryId, webhookId: webhook.id }, select: { status: true } });
      if (!delivery) throw notFound('Delivery not found');
      if (delivery.status === 'delivering') throw badRequest('Delivery is in flight');
      const finished = delivery.status === 'succeeded' || delivery.status === 'dead';
      // The status guard makes a redelivery racing the worker's claim a no-op rather than a double send.
      const { count } = await ctx.prisma.webhookDelivery.updateMany({
        where: { id: deliveryId, status: delivery.status },
        data: { status: 'pending', nextAttemptAt: new Date(), completedAt: null, ...(finished ? { attempts: 0 } : {}) },
      });
      if (count === 0) throw badRequest('Delivery is in flight');
      const data = await ctx.prisma.webhookDelivery.findUniqueOrThrow({
        ...queryFromInfo({ context: ctx, info, path: ['data'] }),
        where: { id: deliveryId },
      });
      return { data };
    },
  }),
);

builder.mutationField('pingWebhook', (t) =>
  t.withAuth({ webhooks: true }).field({
    type: WebhookDeliveryEnvelope,
    description:
      'Queues a signed test delivery {event: "ping", webhookId, deliveredAt} (one attempt, no retries); ' +
      'follow it in webhookDeliveries.',
    args: { id: t.arg.id({ required: true, description: 'Webhook id.' }) },
    resolve: async (_root, args, ctx, info) => {
      const ownerKeyHash = ctx.webhookOwner;
      const webhook = await requireOwnedWebhook(ctx, String(args.id), ownerKeyHash);
      if (!webhook.active) throw badRequest('Webhook is inactive');
      const data = await ctx.prisma.webhookDelivery.create({
        ...queryFromInfo({ context: ctx, info, path: ['data'] }),
        data: {
          webhookId: webhook.id,
          kind: 'ping',
          payload: Buffer.from(JSON.stringify({ event: 'ping', webhookId: webhook.id })),
        },
      });
      return { data };
    },
  }),
);
