// Issued bearer keys. Only the SHA-256 of a key is stored; the key itself is shown once, when the
// CLI issues it. Lookups go by hash, so the database never holds anything that opens the API.
import { randomBytes } from 'node:crypto';
import { badRequest } from '../errors.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { sha256Hex } from '../http/auth.js';
import { isUuid, text } from '../http/params.js';

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
