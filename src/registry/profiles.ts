// The stored registry summaries (PackageProfile): what the classifier reads at every ingest, so
// each instance and each re-ingest decides with what any instance looked up.
import type { Item } from '../ingest/item.js';
import { packageLookupKey } from '../ingest/classifier/catalogue.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { lookupEcosystems } from './summaries.js';

const askable = new Set<string>(lookupEcosystems);

/** The items' PyPI and npm packages, by packageLookupKey ("pypi:llama-index"). */
export function lookupKeys(items: Item[]): string[] {
  const keys = new Set<string>();
  for (const item of items) {
    for (const { package: pkg } of item.affected) if (askable.has(pkg.ecosystem.toLowerCase())) keys.add(packageLookupKey(pkg.ecosystem, pkg.name));
  }
  return [...keys];
}

/** The stored summaries of these items' packages that speak of AI/ML, by packageLookupKey. */
export async function aiSummaries(prisma: PrismaClient, items: Item[]): Promise<Map<string, string>> {
  const keys = lookupKeys(items);
  if (keys.length === 0) return new Map();
  const rows = await prisma.$queryRaw<{ key: string; summary: string }[]>`
    SELECT "ecosystem" || ':' || "name" AS key, "summary" FROM "PackageProfile"
    WHERE "aiSummary" AND "ecosystem" || ':' || "name" = ANY(${keys}::text[])`;
  return new Map(rows.map((r) => [r.key, r.summary]));
}
