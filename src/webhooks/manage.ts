// Registration and management of webhooks, always scoped to the bearer key that owns them: a key
// never sees, changes or learns of another key's webhooks (someone else's id is a plain 404).
import { isDeepStrictEqual } from 'node:util';
import type { Config } from '../config.js';
import { badRequest, notFound } from '../errors.js';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import { isUuid } from '../params.js';
import type { Database } from '../db/client.js';
import { withinDeadline } from '../db/deadline.js';
import { RETRY_AFTER_SECONDS, serviceUnavailable } from '../db/unavailable.js';
import { stackWorkCost } from '../stacks/cost.js';
import { removeStack } from '../stacks/store.js';
import { checkWatchedComponents, currentFindings, parseWatchedStack, saveStack, type ParsedStack, type WatchedStackInput } from '../stacks/watched.js';
import { normaliseFilters, storedFilters, type IssueFiltersInput } from './filters.js';
import { newSecret } from './signing.js';
import { checkTargetUrl, TargetRefused } from './ssrf.js';
import { countOwnerWebhooks, inOwnerTransaction, insertWebhook, insertWebhookId, readOwnedWebhookState, readWebhook, writeWebhook } from './store.js';

const maxUrlLength = 2048;

/**
 * Event kinds a webhook can receive. The spec sends new_issues only, so that is the default; a
 * webhook opts in to the others at registration or later, so a receiver built to the spec sees nothing new.
 */
export const webhookEventKinds = ['new_issues', 'issues_updated', 'issues_withdrawn'] as const;
export type WebhookEventKind = (typeof webhookEventKinds)[number];

/** The kinds asked for, without repeats; none given keeps the spec's default. */
function eventKinds(events: readonly WebhookEventKind[] | null | undefined): WebhookEventKind[] | undefined {
  if (events == null) return undefined;
  if (events.length === 0) throw badRequest(`events must name at least one of: ${webhookEventKinds.join(', ')}`);
  return webhookEventKinds.filter((kind) => events.includes(kind));
}

/** How long a change to a key's stacks waits for the key's earlier ones before it answers 503. */
const maxTurnWaitMs = 10_000;
/** Per owner key, the end of the last change queued: one key's stack writes run one at a time here. */
const turns = new Map<string, Promise<unknown>>();

/**
 * Runs `work` once the owner's earlier registrations and stack changes in this process are done, or
 * answers 503 after maxTurnWaitMs. Queued here, they do not each hold a pooled connection in a
 * transaction waiting on the key's lock (the lock still orders them across instances).
 */
async function inOwnerTurn<T>(ownerKeyHash: string, work: () => Promise<T>): Promise<T> {
  const previous = turns.get(ownerKeyHash) ?? Promise.resolve();
  let done!: () => void;
  const tail = Promise.all([previous, new Promise<void>((resolve) => (done = resolve))]);
  turns.set(ownerKeyHash, tail);
  try {
    const started = await withinDeadline(
      previous.then(() => true),
      maxTurnWaitMs,
    );
    if (!started) throw serviceUnavailable(`Too many changes to this key's webhooks at once; try again in ${RETRY_AFTER_SECONDS} seconds`);
    return await work();
  } finally {
    done();
    if (turns.get(ownerKeyHash) === tail) turns.delete(ownerKeyHash);
  }
}

/** What these rules need of the running service. */
type Deps = { config: Config; prisma: PrismaClient; db: Pick<Database, 'read'>; chargeWork?: (cost: number) => Promise<void> };

/** A stack read and checked, with what affects it now (saved as known: nothing from the past is sent). */
async function checkedStack(ctx: Deps, input: WatchedStackInput): Promise<{ parsed: ParsedStack; known: string[] }> {
  const parsed = parseWatchedStack(input);
  // Priced like the scan it runs, before it runs.
  await ctx.chargeWork?.(stackWorkCost(parsed.components.length));
  return { parsed, known: await currentFindings(ctx.db.read, parsed.stack) };
}

/** The where for one webhook of this owner; malformed ids are simply not found. */
export function ownedWebhook(id: string, ownerKeyHash: string): Prisma.WebhookWhereInput & { id: string } {
  if (!isUuid(id)) throw notFound('Webhook not found');
  return { id, ownerKeyHash };
}

/** One of the owner's webhooks (what updating and rotating read of it), or a 404; with `active`, an inactive one is a 400. */
export async function requireOwnedWebhook(prisma: PrismaClient, id: string, ownerKeyHash: string, { active = false } = {}) {
  const webhook = await readOwnedWebhookState(prisma, ownedWebhook(id, ownerKeyHash));
  if (!webhook) throw notFound('Webhook not found');
  if (active && !webhook.active) throw badRequest('Webhook is inactive');
  return webhook;
}

/** An https URL on a public address (unless allowed), normalised. */
async function checkedUrl(ctx: Deps, raw: string): Promise<string> {
  if (raw.length > maxUrlLength) throw badRequest(`url must be at most ${maxUrlLength} characters`);
  try {
    return (await checkTargetUrl(raw, { allowPrivate: ctx.config.webhookAllowPrivateTargets })).href;
  } catch (err) {
    if (err instanceof TargetRefused) throw badRequest(err.message);
    throw err;
  }
}

/**
 * Registers a webhook (a checked URL, known filters) unless the owner already has WEBHOOKS_PER_KEY
 * webhooks (a 400 naming the limit). Registrations of one key are serialised (inOwnerTurn, then a
 * transaction lock), so two at once cannot both take the last place; the stack is read and matched
 * before, outside any transaction. `query` selects what is answered.
 */
export async function registerWebhook<Q extends object>(
  ctx: Deps,
  ownerKeyHash: string,
  input: { url: string; filters?: IssueFiltersInput | null; events?: readonly WebhookEventKind[] | null; stack?: WatchedStackInput | null },
  query: Q,
) {
  const url = await checkedUrl(ctx, input.url);
  const stack = input.stack ? await checkedStack(ctx, input.stack) : undefined;
  // Widened to `object`: Prisma's JSON input wants an index signature that IssueFilters lacks.
  const filters: object = normaliseFilters(input.filters);
  const events = eventKinds(input.events);
  const data: Prisma.WebhookCreateInput = { url, filters, ...(events ? { events } : {}), ownerKeyHash, secret: newSecret() };
  const cap = ctx.config.webhooksPerKey;
  return inOwnerTurn(ownerKeyHash, () =>
    inOwnerTransaction(ctx.prisma, ownerKeyHash, async (tx) => {
      if ((await countOwnerWebhooks(tx, ownerKeyHash)) >= cap) {
        throw badRequest(`A key may have at most ${cap} webhooks; delete one before registering another`);
      }
      if (!stack) return insertWebhook(tx, data, query);
      await checkWatchedComponents(tx, ownerKeyHash, stack.parsed.components.length);
      const id = await insertWebhookId(tx, data);
      await saveStack(tx, id, stack.parsed, stack.known);
      return readWebhook(tx, id, query);
    }),
  );
}

/** Changes one of the owner's webhooks: a new url (checked like a registration), new filters, events, or the state. */
export async function updateWebhook<Q extends object>(
  ctx: Deps,
  id: string,
  ownerKeyHash: string,
  input: {
    url?: string | null;
    filters?: IssueFiltersInput | null;
    active?: boolean | null;
    events?: readonly WebhookEventKind[] | null;
    /** A new stack replacing the old one; null removes it (the webhook then receives what the spec says). */
    stack?: WatchedStackInput | null;
  },
  query: Q,
) {
  const current = await requireOwnedWebhook(ctx.prisma, id, ownerKeyHash);
  if (input.url == null && input.filters === undefined && input.active == null && input.events == null && input.stack === undefined) {
    throw badRequest('Give at least one of url, filters, active, events, stack');
  }
  const data: Prisma.WebhookUpdateInput = {};
  if (input.url != null) data.url = await checkedUrl(ctx, input.url);
  const now = new Date();
  if (input.filters !== undefined) {
    const filters = normaliseFilters(input.filters);
    // New filters apply to what is published from now on, not to the past day's events.
    // jsonb keeps its own key order, so compare values, not serialisations.
    if (!isDeepStrictEqual(filters, storedFilters(current.filters))) Object.assign(data, { filters, subscribedAt: now });
  }
  const events = eventKinds(input.events);
  // Like new filters, newly chosen kinds apply from now on, not to the past day's events.
  if (events && !isDeepStrictEqual(events, current.events)) Object.assign(data, { events, subscribedAt: now });
  if (input.active === true && !current.active) {
    // A fresh start: no failure history, and nothing from the time it was off.
    Object.assign(data, { active: true, consecutiveFailures: 0, deadDeliveries: 0, deactivatedReason: null, subscribedAt: now });
  } else if (input.active === false && current.active) {
    Object.assign(data, { active: false, deactivatedReason: 'paused by its owner' });
  }
  if (input.stack === undefined) return writeWebhook(ctx.prisma, current.id, data, query);
  const stack = input.stack === null ? undefined : await checkedStack(ctx, input.stack);
  // Like new filters, a new stack applies to what is published from now on.
  Object.assign(data, { subscribedAt: now });
  return inOwnerTurn(ownerKeyHash, () =>
    // Two stack writes of one webhook at once would each delete the rows the other inserts: the owner's lock orders them.
    inOwnerTransaction(ctx.prisma, ownerKeyHash, async (tx) => {
      if (stack) {
        await checkWatchedComponents(tx, ownerKeyHash, stack.parsed.components.length, current.id);
        await saveStack(tx, current.id, stack.parsed, stack.known);
      } else await removeStack(tx, current.id);
      return writeWebhook(tx, current.id, data, query);
    }),
  );
}
