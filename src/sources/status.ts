// What each configured source last did, for GET /ready and the admin status route: the configured
// sources in order, each with its state row (null fields until its first sync).
import type { PrismaClient } from '../generated/prisma/client.js';
import type { SourceDefinition } from './definition.js';
import { sourceStates } from './store.js';

export interface SourceStatus {
  name: string;
  kind: string;
  location: string;
  intervalMinutes: number;
  lastAttemptAt: Date | null;
  lastSuccessAt: Date | null;
  lastError: string | null;
  lastErrorAt: Date | null;
  counts: Record<string, number> | null;
}

export async function sourceStatuses(prisma: PrismaClient, sources: SourceDefinition[]): Promise<SourceStatus[]> {
  if (sources.length === 0) return [];
  const rows = await sourceStates(
    prisma,
    sources.map((s) => s.name),
  );
  const byName = new Map(rows.map((r) => [r.name, r]));
  return sources.map((s) => {
    const row = byName.get(s.name);
    const counts = row?.counts as Record<string, number> | undefined;
    return {
      name: s.name,
      kind: s.kind,
      location: s.location,
      intervalMinutes: s.intervalMinutes,
      lastAttemptAt: row?.lastAttemptAt ?? null,
      lastSuccessAt: row?.lastSuccessAt ?? null,
      lastError: row?.lastError ?? null,
      lastErrorAt: row?.lastErrorAt ?? null,
      counts: counts && Object.keys(counts).length ? counts : null,
    };
  });
}
