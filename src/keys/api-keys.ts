// Issued bearer keys. Only the SHA-256 of a key is stored; the key itself is shown once, when the
// CLI issues it. Lookups go by hash, so the database never holds anything that opens the API.
import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Config } from '../config.js';
import { badRequest } from '../errors.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { secretsEqual, sha256Hex } from './bearer.js';
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

/** Whether an active issued key has this hash and scope; marks it used (one statement). */
export async function useActiveKey(prisma: PrismaClient, keyHash: string, scope: string): Promise<boolean> {
  const { count } = await prisma.apiKey.updateMany({
    where: { keyHash, revoked: false, scopes: { has: scope } },
    data: { lastUsedAt: new Date() },
  });
  return count > 0;
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
    for (const configured of [this.config.webhookApiKey, this.config.adminApiKey]) {
      if (configured && secretsEqual(token, configured)) return true;
    }
    // Made-up tokens of any other shape cost no lookup and no cache entry (they would evict real keys).
    if (!issuedKeyShape.test(token)) return false;
    const keyHash = sha256Hex(token);
    const cached = this.cache.get(keyHash);
    if (cached !== undefined) return cached;
    let known: boolean;
    try {
      const row = await this.prisma.apiKey.findUnique({ where: { keyHash }, select: { revoked: true } });
      known = row !== null && !row.revoked;
    } catch {
      return false; // the database is away: limit by address for now, and ask again next time
    }
    this.cache.set(keyHash, known);
    return known;
  }
}
