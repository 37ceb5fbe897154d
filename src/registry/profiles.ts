// The stored registry summaries (PackageProfile): what the classifier reads at every ingest, so
// each instance and each re-ingest decides with what any instance looked up. Every statement on
// PackageProfile is here.
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

/** Profiles checked at or before `checkedBefore`: their packages are asked again. */
export function staleProfiles(prisma: PrismaClient, checkedBefore: Date): Promise<ProfileKey[]> {
  return prisma.packageProfile.findMany({ where: { checkedAt: { lte: checkedBefore } }, select: { ecosystem: true, name: true } });
}

/** A registry's answer as stored. */
export interface ProfileAnswer extends ProfileKey {
  status: string;
  summary: string | null;
  aiSummary: boolean;
}

/** Stores these answers, checked at `now`, in one statement (insert or replace by package). */
export async function storeProfiles(prisma: PrismaClient, answers: ProfileAnswer[], now: Date): Promise<void> {
  await prisma.$executeRaw`
    INSERT INTO "PackageProfile" AS p ("ecosystem", "name", "status", "summary", "aiSummary", "checkedAt")
    SELECT x."ecosystem", x."name", x."status", x."summary", x."aiSummary", ${now}
      FROM jsonb_to_recordset(${JSON.stringify(answers)}::jsonb) AS x("ecosystem" text, "name" text, "status" text, "summary" text, "aiSummary" boolean)
    ON CONFLICT ("ecosystem", "name") DO UPDATE SET
      "status" = excluded."status", "summary" = excluded."summary", "aiSummary" = excluded."aiSummary", "checkedAt" = excluded."checkedAt"`;
}
