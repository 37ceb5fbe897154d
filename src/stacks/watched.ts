// A webhook's watched stack: read from the scan's own inputs (package entries, or a CycloneDX or
// SPDX JSON SBOM) by the scan's own parsers, with the same limits and errors, and stored as its
// entries plus one index row per lookup key, so that the dispatcher finds the stacks a batch
// touches by key (src/stacks/dispatch.ts). Saving a stack records what already affects it as
// known: nothing from the past is sent, and an upstream update notifies only what it newly affects.
import { randomBytes } from 'node:crypto';
import type { Config } from '../config.js';
import type { DriverRead } from '../db/driver-read.js';
import { badRequest } from '../errors.js';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import { isActiveKey, webhookScope } from '../keys/api-keys.js';
import { sameKey, sha256Hex } from '../keys/bearer.js';
import { sbomComponents } from '../sbom/parse.js';
import { scanStack } from '../scan/scan.js';
import { parseStack, type PackageQuery, type Stack } from '../scan/stack.js';
import { countWatchedComponents, writeFeedTokenHash, writeStack } from './store.js';

/** What a client sends as `stack`: the scan's `packages`, or an SBOM. */
export interface WatchedStackInput {
  packages?: readonly string[] | null;
  sbom?: unknown;
}

/** One watched component: its scan entry (a purl with version, or name@version), and where an SBOM gave it, its ref and name. */
export interface WatchedComponent {
  entry: string;
  ref: string;
  name: string;
  version?: string;
}

export interface ParsedStack {
  components: WatchedComponent[];
  stack: Stack;
}

/** Validates a stack as the scan would (plus: every purl of a known type); a 400 names what is wrong. */
export function parseWatchedStack(input: WatchedStackInput): ParsedStack {
  const { packages, sbom } = input;
  if ((packages == null) === (sbom == null)) throw badRequest('stack must give either packages or sbom');
  if (sbom != null) {
    const found = sbomComponents(sbom);
    // The SBOM's texts are stored (the findings' VEX names them): what the database cannot store was
    // refused with the arguments (schema/storable-text.ts).
    const stack = parseStack([...new Set(found.map((c) => c.purl))], undefined, { knownOnly: true });
    const components = found.map((c) => ({ entry: c.purl, ref: c.ref, name: c.name, ...(c.version ? { version: c.version } : {}) }));
    return { components, stack };
  }
  const stack = parseStack(packages, undefined, { knownOnly: true });
  return { components: stack.packages.map((q) => ({ entry: q.input, ref: q.input, name: q.input })), stack };
}

/**
 * The components a key may watch over all its webhooks: each is matched on every read of its
 * findings and on every published batch that names it (docs/webhooks.md, "Watching a stack").
 */
export const maxWatchedComponentsPerKey = 5_000;

/**
 * Refuses a stack that would take the owner's watched components past the cap (inside the caller's
 * transaction, under the owner's lock); `webhookId`'s own stack, being replaced, does not count.
 */
export async function checkWatchedComponents(tx: Prisma.TransactionClient, ownerKeyHash: string, adding: number, webhookId?: string): Promise<void> {
  const watched = await countWatchedComponents(tx, ownerKeyHash, webhookId);
  if (watched + adding > maxWatchedComponentsPerKey) {
    throw badRequest(
      `A key may watch at most ${maxWatchedComponentsPerKey} components over all its webhooks; it watches ${watched}, and this stack has ${adding}`,
    );
  }
}

/** The components stored with a stack, read back from its JSON column. */
export function storedComponents(value: Prisma.JsonValue): WatchedComponent[] {
  return Array.isArray(value) ? (value as unknown as WatchedComponent[]) : [];
}

/** The stack of stored components, as the scan reads it (they were valid when stored). */
export function stackOf(components: WatchedComponent[]): Stack {
  return parseStack([...new Set(components.map((c) => c.entry))], undefined);
}

/** The lookup keys of a stack's entries: each package spelling and, for an AI component, its product. */
export function entryKeys(queries: PackageQuery[]): { key: string; entry: string }[] {
  const rows = new Map<string, { key: string; entry: string }>();
  for (const q of queries) {
    for (const key of [...q.keys, ...(q.namedBy ? [q.namedBy.product] : [])]) rows.set(`${key}\u0000${q.input}`, { key, entry: q.input });
  }
  return [...rows.values()];
}

/** The ids of served issues affecting the stack now (the scan's answer). */
export async function currentFindings(read: DriverRead, stack: Stack): Promise<string[]> {
  return (await scanStack(read, stack)).data.map((m) => m.id);
}

/**
 * Replaces the webhook's stack (inside the caller's transaction): its entries, its index rows and
 * the issues known to affect it (`known`, what the scan answered just before).
 */
export async function saveStack(tx: Prisma.TransactionClient, webhookId: string, parsed: ParsedStack, known: string[]): Promise<void> {
  const components = parsed.components as unknown as Prisma.InputJsonValue;
  await writeStack(tx, webhookId, { components, entries: entryKeys(parsed.stack.packages), known });
}

/** A new feed token for the stack (the old one stops working); only its hash is kept. */
export async function issueFeedToken(prisma: PrismaClient, webhookId: string): Promise<string> {
  const token = `swf_${randomBytes(32).toString('base64url')}`;
  if (!(await writeFeedTokenHash(prisma, webhookId, sha256Hex(token)))) throw badRequest('The webhook watches no stack');
  return token;
}

export async function revokeFeedToken(prisma: PrismaClient, webhookId: string): Promise<void> {
  await writeFeedTokenHash(prisma, webhookId, null);
}

/** The shape of a feed token: anything else is not looked up. */
export const feedTokenShape = /^swf_[A-Za-z0-9_-]{43}$/;

/** Whether the key that owns a webhook may still use it: WEBHOOK_API_KEY, or an issued key not revoked. */
export async function ownerKeyActive(config: Pick<Config, 'webhookApiKey'>, prisma: PrismaClient, ownerKeyHash: string): Promise<boolean> {
  if (config.webhookApiKey && sameKey(sha256Hex(config.webhookApiKey), ownerKeyHash)) return true;
  return isActiveKey(prisma, ownerKeyHash, { scope: webhookScope });
}
