// The stored registry summaries (PackageProfile): what the classifier reads at every ingest, so
// each instance and each re-ingest decides with what any instance looked up.
import type { Item } from '../ingest/item.js';
import { packageLookupKey } from '../ingest/classifier/catalogue.js';
import { packageKey } from '../ingest/classifier/packages.js';
import type { PackageProfile, PrismaClient } from '../generated/prisma/client.js';
import { lookupEcosystems } from './summaries.js';

/** A package as profiles key it: lower-case ecosystem, the name as the classifier compares it. */
export interface ProfileKey {
  ecosystem: string;
  name: string;
}

const askable = new Set<string>(lookupEcosystems);

/** The stored profiles of these packages, found by primary key. */
export async function storedProfiles(prisma: PrismaClient, keys: ProfileKey[]): Promise<PackageProfile[]> {
  if (keys.length === 0) return [];
  return prisma.$queryRaw<PackageProfile[]>`
    SELECT p.* FROM "PackageProfile" AS p
    JOIN unnest(${keys.map((k) => k.ecosystem)}::text[], ${keys.map((k) => k.name)}::text[]) AS k("ecosystem", "name") USING ("ecosystem", "name")`;
}

/** The stored summaries of these items' PyPI and npm packages that speak of AI/ML, by packageLookupKey. */
export async function aiSummaries(prisma: PrismaClient, items: Item[]): Promise<Map<string, string>> {
  const keys = new Map<string, ProfileKey>();
  for (const item of items) {
    for (const { package: pkg } of item.affected) {
      const ecosystem = pkg.ecosystem.toLowerCase();
      if (askable.has(ecosystem)) keys.set(packageLookupKey(ecosystem, pkg.name), { ecosystem, name: packageKey(ecosystem, pkg.name) });
    }
  }
  const profiles = await storedProfiles(prisma, [...keys.values()]);
  return new Map(profiles.filter((p) => p.aiSummary).map((p) => [`${p.ecosystem}:${p.name}`, p.summary ?? '']));
}
