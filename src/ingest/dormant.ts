// Records a sync need not store whole because they can never be served: a malicious-package report
// (OpenSSF's MAL-*, most of an npm export) whose package names and text give the classifier no
// evidence at all of AI/ML software. The classifier's own evidence decides (classifier/evidence.ts),
// before any classification or store: such a record keeps a DormantRecord row (id, modified time,
// content hash, the classifier version that judged it) instead of an Issue row with its whole text.
// A record that already has an issue goes through the ingest as ever, so its issue follows it.
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import { defaultCatalogue } from './classifier/catalogue.js';
import { collectEvidence } from './classifier/evidence.js';
import type { Item } from './item.js';
import { contentHashOf } from './row.js';

export interface DormantRow {
  key: string;
  recordId: string;
  modified: string | null;
  contentHash: string;
}

/** The one place that decides: an OSV MAL-* report with no evidence of AI/ML in its names or text. */
export function cannotBeServed(item: Item): boolean {
  if (item.format !== 'osv' || !item.sourceId.startsWith('MAL-')) return false;
  return collectEvidence(item, defaultCatalogue(), []).evidence.length === 0;
}

export const dormantRow = (key: string, item: Item): DormantRow => ({
  key,
  recordId: item.sourceId,
  modified: item.source.modified,
  contentHash: contentHashOf(item),
});

/** Of these record ids, those an issue is already known by (they are ingested, not set aside). */
export async function idsWithIssues(prisma: PrismaClient, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await prisma.$queryRaw<{ id: string }[]>`
    SELECT DISTINCT x.id FROM "Issue", unnest("identifiers") AS x(id) WHERE "identifiers" && ${ids}::text[] AND x.id = ANY(${ids}::text[])`;
  return new Set(rows.map((r) => r.id));
}

/**
 * Writes the chunk's dormant rows, and drops those of its keys that were ingested instead (a
 * report that changed, or that a new classifier judges differently).
 */
export async function storeDormant(prisma: PrismaClient, source: string, judgedBy: string, dormant: DormantRow[], ingestedKeys: string[]): Promise<void> {
  if (ingestedKeys.length) await prisma.$executeRaw`DELETE FROM "DormantRecord" WHERE "source" = ${source} AND "key" = ANY(${ingestedKeys}::text[])`;
  if (dormant.length === 0) return;
  const unique = [...new Map(dormant.map((d) => [d.key, d])).values()];
  await prisma.$executeRaw`
    INSERT INTO "DormantRecord" ("source", "key", "recordId", "modified", "contentHash", "judgedBy")
    SELECT ${source}, x."key", x."recordId", x."modified", x."contentHash", ${judgedBy}
    FROM jsonb_to_recordset(${JSON.stringify(unique)}::jsonb) AS x("key" text, "recordId" text, "modified" text, "contentHash" text)
    ON CONFLICT ("source", "key") DO UPDATE SET "recordId" = excluded."recordId", "modified" = excluded."modified",
      "contentHash" = excluded."contentHash", "judgedBy" = excluded."judgedBy"`;
}

/** Keys of the source's dormant records that another classifier version judged: read again. */
export async function staleDormantKeys(prisma: PrismaClient, source: string, judgedBy: string): Promise<string[]> {
  const rows = await prisma.$queryRaw<{ key: string }[]>(
    Prisma.sql`SELECT "key" FROM "DormantRecord" WHERE "source" = ${source} AND "judgedBy" <> ${judgedBy}`,
  );
  return rows.map((r) => r.key);
}
