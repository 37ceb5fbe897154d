// Webhooks: registration (createWebhook) and management for the bearer key
// that owns them. Secrets are returned by createWebhook and rotateWebhookSecret only.
import { notFound } from '../errors.js';
import type { Prisma } from '../generated/prisma/client.js';
import { DeliveryStatus } from '../generated/prisma/enums.js';
import { parsePage } from '../issues/filters.js';
import { storedFilters, type IssueFilters } from '../webhooks/filters.js';
import { maxOverlapHours, queuePing, redeliver, rotateSecret } from '../webhooks/deliveries.js';
import { ownedWebhook, registerWebhook, requireOwnedWebhook, updateWebhook, webhookEventKinds, type WebhookEventKind } from '../webhooks/manage.js';
import { countDeliveries, listDeliveries } from '../webhooks/outbox.js';
import { deleteWebhook, findWebhook, listOwnerWebhooks } from '../webhooks/store.js';
import { builder, envelopeRef, selectionUnder } from './builder.js';
import { graphqlOnly, IssueTypeEnum, SeverityEnum } from './issue-type.js';
import { once, PageMetaRef } from './issue.js';
import { WebhookStackInput } from './stack.js';

// ---- types

const WebhookEventEnum = builder.enumType('WebhookEvent', {
  description:
    'An event kind a webhook receives. new_issues: issues published for the first time (the default). issues_updated: ' +
    'served issues whose content or enrichment changed, as {event, issues, deliveredAt}. issues_withdrawn: issues no ' +
    'longer served (withdrawn upstream), as {event, issues: [{id}], deliveredAt}. Changes are delivered within a minute.',
  values: webhookEventKinds,
});

const WebhookFiltersRef = builder.objectRef<IssueFilters>('WebhookFilters').implement({
  description: 'Which new issues a webhook receives; a null key matches everything.',
  fields: (t) => ({
    severity: t.field({ type: SeverityEnum, nullable: true, description: 'Only issues of this severity.', resolve: (f) => f.severity ?? null }),
    issueType: t.field({ type: IssueTypeEnum, nullable: true, description: 'Only issues of this type.', resolve: (f) => f.issueType ?? null }),
    vendor: t.string({ nullable: true, description: 'Only issues naming this vendor (case-insensitive).', resolve: (f) => f.vendor ?? null }),
    llmSpecific: t.boolean({ nullable: true, description: 'Only issues with this llmSpecific value.', resolve: (f) => f.llmSpecific ?? null }),
  }),
});

/** The same field on both Webhook variants. */
const eventsField = {
  type: [WebhookEventEnum] as [typeof WebhookEventEnum],
  description: 'Event kinds it receives.',
  extensions: graphqlOnly,
  select: { events: true as const },
  resolve: (w: { events: unknown }) => w.events as WebhookEventKind[],
};

/** On both variants and in REST too: the registration answer shows the stack was taken before any delivery. */
const watchedComponentsField = {
  type: 'Int' as const,
  description: 'How many components its watched stack lists; 0 when it watches none.',
  select: { stack: { select: { components: true as const } } },
  resolve: (w: { stack: { components: unknown } | null }) => (w.stack ? (w.stack.components as unknown[]).length : 0),
};

const WebhookRef = builder.prismaObject('Webhook', {
  description: 'A webhook subscription; its secret is never shown again after creation or rotation.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Subscription id (UUID).' }),
    url: t.exposeString('url', { description: 'Delivery target (https).' }),
    active: t.exposeBoolean('active', { description: 'False once the receiver answered 410 or deliveries kept dying.' }),
    filters: t.field({ type: WebhookFiltersRef, description: 'Filters narrowing deliveries.', resolve: (w) => storedFilters(w.filters) }),
    events: t.field(eventsField),
    watchedComponents: t.field(watchedComponentsField),
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
    events: t.field(eventsField),
    watchedComponents: t.field(watchedComponentsField),
  }),
});

const DeliveryStatusEnum = builder.enumType('DeliveryStatus', {
  description: 'pending: waiting for its first attempt; delivering: in flight; succeeded; failed: will be retried; dead: no more retries.',
  values: Object.values(DeliveryStatus),
});

builder.prismaObject('DeliveryAttempt', {
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

const WebhookEnvelope = envelopeRef('WebhookEnvelope', { description: 'One webhook.', data: { type: WebhookRef, description: 'The webhook.' } });

const WebhookSecretEnvelope = envelopeRef('WebhookSecretEnvelope', {
  description: 'A webhook with its secret (creation and rotation only).',
  data: { type: WebhookWithSecretRef, description: 'The webhook and its secret.' },
});

const WebhookList = envelopeRef('WebhookList', {
  description: "The bearer key's webhooks, oldest first.",
  data: { type: [WebhookRef], description: 'The webhooks.' },
});

const DeletedWebhook = builder.objectRef<{ id: string }>('DeletedWebhook').implement({
  description: 'A webhook that no longer exists.',
  fields: (t) => ({ id: t.exposeString('id', { description: 'Id of the deleted webhook.' }) }),
});

const DeletedWebhookEnvelope = envelopeRef('DeletedWebhookEnvelope', {
  description: 'Answer to a deletion.',
  data: { type: DeletedWebhook, description: 'The deleted webhook.' },
});

const WebhookDeliveryList = envelopeRef('WebhookDeliveryList', {
  description: "A webhook's deliveries, newest first.",
  data: { type: [WebhookDeliveryRef], description: 'The deliveries.' },
  meta: { type: PageMetaRef, description: 'Paging.' },
});

const WebhookDeliveryEnvelope = envelopeRef('WebhookDeliveryEnvelope', {
  description: 'One delivery.',
  data: { type: WebhookDeliveryRef, description: 'The delivery.' },
});

// ---- queries

builder.queryField('webhooks', (t) =>
  t.withAuth({ webhooks: true }).field({
    type: WebhookList,
    description: 'The webhooks registered with the bearer key (Authorization: Bearer <key>).',
    resolve: async (_root, _args, ctx, info) => {
      return { data: await listOwnerWebhooks(ctx.prisma, ctx.webhookOwner, selectionUnder('data', ctx, info)) };
    },
  }),
);

builder.queryField('webhook', (t) =>
  t.withAuth({ webhooks: true }).field({
    type: WebhookEnvelope,
    description: "One webhook of the bearer key; 404 for unknown ids and for other keys' webhooks.",
    args: { id: t.arg.id({ required: true, description: 'Webhook id.' }) },
    resolve: async (_root, args, ctx, info) => {
      const data = await findWebhook(ctx.prisma, ownedWebhook(String(args.id), ctx.webhookOwner), selectionUnder('data', ctx, info));
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
      const { limit, offset } = parsePage(args);
      const webhook = await requireOwnedWebhook(ctx.prisma, String(args.webhookId), ctx.webhookOwner);
      const where: Prisma.WebhookDeliveryWhereInput = { webhookId: webhook.id, ...(args.status ? { status: args.status } : {}) };
      const data = await listDeliveries(ctx.prisma, where, { limit, offset }, selectionUnder('data', ctx, info));
      return { data, meta: { total: once(() => countDeliveries(ctx.prisma, where)), limit, offset } };
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

builder.mutationField('createWebhook', (t) =>
  t.withAuth({ webhooks: true }).field({
    type: WebhookSecretEnvelope,
    description:
      'Registers a webhook (Authorization: Bearer <key>). The url must be https on a public address. ' +
      'Answers the secret once: deliveries are signed with it (X-Webhook-Signature and Standard Webhooks headers).',
    args: {
      url: t.arg.string({ required: true, description: 'https URL that receives the deliveries.' }),
      filters: t.arg({ type: WebhookFiltersInput, description: 'Optional filters: severity, issueType, vendor, llmSpecific.' }),
      events: t.arg({ type: [WebhookEventEnum], description: 'Event kinds to receive; default [new_issues], the only kind the spec sends.' }),
      stack: t.arg({ type: WebhookStackInput, description: 'A stack to watch: new_issues then carry only issues affecting it (docs/webhooks.md).' }),
    },
    resolve: async (_root, args, ctx, info) => ({ data: await registerWebhook(ctx, ctx.webhookOwner, args, selectionUnder('data', ctx, info)) }),
  }),
);

builder.mutationField('updateWebhook', (t) =>
  t.withAuth({ webhooks: true }).field({
    type: WebhookEnvelope,
    description:
      'Changes a webhook of the bearer key: its url (checked like a registration), its filters (replaced entirely; ' +
      '{} matches everything), active (false pauses it; true re-activates it with a clean failure count), or the events it ' +
      'receives. New filters, events and a re-activation apply to issues published from then on.',
    args: {
      id: t.arg.id({ required: true, description: 'Webhook id.' }),
      url: t.arg.string({ description: 'New https URL.' }),
      filters: t.arg({ type: WebhookFiltersInput, description: 'New filters, replacing the old ones; {} (or null) matches everything.' }),
      active: t.arg.boolean({ description: 'false pauses deliveries, true resumes them.' }),
      events: t.arg({ type: [WebhookEventEnum], description: 'Event kinds to receive, replacing the old ones; from then on.' }),
      stack: t.arg({ type: WebhookStackInput, description: 'A new stack to watch, replacing the old one; null stops watching. From then on.' }),
    },
    resolve: async (_root, args, ctx, info) => ({ data: await updateWebhook(ctx, String(args.id), ctx.webhookOwner, args, selectionUnder('data', ctx, info)) }),
  }),
);

builder.mutationField('deleteWebhook', (t) =>
  t.withAuth({ webhooks: true }).field({
    type: DeletedWebhookEnvelope,
    description: 'Deletes a webhook of the bearer key with its deliveries; nothing more is sent to it.',
    args: { id: t.arg.id({ required: true, description: 'Webhook id.' }) },
    resolve: async (_root, args, ctx) => {
      if (!(await deleteWebhook(ctx.prisma, ownedWebhook(String(args.id), ctx.webhookOwner)))) throw notFound('Webhook not found');
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
    resolve: async (_root, args, ctx, info) => ({
      data: await rotateSecret(ctx.prisma, String(args.id), ctx.webhookOwner, args.overlapHours, selectionUnder('data', ctx, info)),
    }),
  }),
);

builder.mutationField('redeliverWebhookDelivery', (t) =>
  t.withAuth({ webhooks: true }).field({
    type: WebhookDeliveryEnvelope,
    description: 'Sends a delivery again with the same webhook-id: a finished one gets a fresh retry schedule, a waiting one is due now.',
    args: {
      webhookId: t.arg.id({ required: true, description: 'Webhook id.' }),
      deliveryId: t.arg.id({ required: true, description: 'Delivery id.' }),
    },
    resolve: async (_root, args, ctx, info) => ({
      data: await redeliver(ctx.prisma, String(args.webhookId), String(args.deliveryId), ctx.webhookOwner, selectionUnder('data', ctx, info)),
    }),
  }),
);

builder.mutationField('pingWebhook', (t) =>
  t.withAuth({ webhooks: true }).field({
    type: WebhookDeliveryEnvelope,
    description: 'Queues a signed test delivery {event: "ping", webhookId, deliveredAt} (one attempt, no retries); ' + 'follow it in webhookDeliveries.',
    args: { id: t.arg.id({ required: true, description: 'Webhook id.' }) },
    resolve: async (_root, args, ctx, info) => ({ data: await queuePing(ctx.prisma, String(args.id), ctx.webhookOwner, selectionUnder('data', ctx, info)) }),
  }),
);
