// Issued bearer keys. Only the SHA-256 of a key is stored; the key itself is shown once, when the
// CLI issues it. Lookups go by hash, so the database never holds anything that opens the API.
import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Config } from '../config.js';
import { badRequest } from '../errors.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { sameKey, sha256Hex } from './bearer.js';
import { isUuid, text } from '../params.js';

/** Scope an issued key needs to register and manage webhooks. */
export const webhookScope = 'webhooks';

/** The shape of an issued key (see issueKey): anything else cannot be one, and needs no lookup. */
export const issuedKeyShape = /^swk_[A-Za-z0-9_-]{43}$/;

export interface IssuedKey {
  id: string;
  name: string;
  key: string;
}

export async function issueKey(prisma: PrismaClient, name: string, scopes: string[] = [webhookScope]): Promise<IssuedKey> {
  const trimmed = text('name', name, 100).trim();
  if (!trimmed) throw badRequest('name must be 1 to 100 characters');
  // 32 random bytes; the prefix makes a leaked key easy to recognise in logs and secret scanners.
  const key = `swk_${randomBytes(32).toString('base64url')}`;
  const row = await prisma.apiKey.create({ data: { name: trimmed, keyHash: sha256Hex(key), scopes } });
  return { id: row.id, name: row.name, key };
}

export function listKeys(prisma: PrismaClient) {
  return prisma.apiKey.findMany({
    select: { id: true, name: true, scopes: true, revoked: true, createdAt: true, lastUsedAt: true },
    orderBy: { createdAt: 'asc' },
  });
}

/** Revokes a key; false when no such key exists. */
export async function revokeKey(prisma: PrismaClient, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const { count } = await prisma.apiKey.updateMany({ where: { id }, data: { revoked: true } });
  return count > 0;
}

/**
 * The one test of an issued key: one exists with this hash, it is not revoked, and it carries the
 * scope when one is named. `markUsed` records the use in the same statement.
 */
export async function isActiveKey(
  prisma: Pick<PrismaClient, 'apiKey'>,
  keyHash: string,
  { scope, markUsed = false }: { scope?: string; markUsed?: boolean } = {},
): Promise<boolean> {
  const where = { keyHash, revoked: false, ...(scope ? { scopes: { has: scope } } : {}) };
  if (markUsed) return (await prisma.apiKey.updateMany({ where, data: { lastUsedAt: new Date() } })).count > 0;
  return (await prisma.apiKey.count({ where })) > 0;
}

/**
 * Tells real bearer keys from made-up ones, so a client cannot buy itself a fresh budget per
 * request by inventing keys: the configured keys, and issued keys that are not revoked. Answers are
 * cached for a minute (bounded), so a key costs one indexed lookup per minute at most.
 */
export class KnownKeys {
  private readonly cache = new LRUCache<string, boolean>({ max: 10_000, ttl: 60_000 });

  constructor(
    private readonly config: Pick<Config, 'webhookApiKey' | 'adminApiKey'>,
    private readonly prisma: Pick<PrismaClient, 'apiKey'>,
  ) {}

  async isKnown(token: string): Promise<boolean> {
    if (sameKey(token, this.config.webhookApiKey) || sameKey(token, this.config.adminApiKey)) return true;
    // Made-up tokens of any other shape cost no lookup and no cache entry (they would evict real keys).
    if (!issuedKeyShape.test(token)) return false;
    const keyHash = sha256Hex(token);
    const cached = this.cache.get(keyHash);
    if (cached !== undefined) return cached;
    let known: boolean;
    try {
      known = await isActiveKey(this.prisma, keyHash);
    } catch {
      return false; // the database is away: limit by address for now, and ask again next time
    }
    this.cache.set(keyHash, known);
    return known;
  }
}
