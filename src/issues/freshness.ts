// When the feed last received new data, and from which sources: stats and GraphQL show it, the
// digest says it in a line. "New data" is a served issue created, updated or enriched (its
// modifiedAt); a source counts from the last sync that created or updated an issue. With no source
// ever delivering, what is served is what was ingested by hand or seeded (the bundled sample).
import { Prisma } from '../generated/prisma/client.js';
import { servedIssueSql } from './served.js';

export interface SourceFreshness {
  name: string;
  lastNewDataAt: Date;
}

export interface Freshness {
  lastNewDataAt: Date | null;
  /** Sources that have brought new data, the most recent first. */
  newDataSources: SourceFreshness[];
}

type Read = <T>(query: Prisma.Sql) => Promise<T[]>;

export async function readFreshness(read: Read): Promise<Freshness> {
  const [[latest], sources] = await Promise.all([
    read<{ at: Date | null }>(Prisma.sql`SELECT max("modifiedAt") AS at FROM "Issue" WHERE ${servedIssueSql}`),
    read<SourceFreshness>(Prisma.sql`SELECT name, "lastNewDataAt" FROM "SourceState" WHERE "lastNewDataAt" IS NOT NULL ORDER BY "lastNewDataAt" DESC, name`),
  ]);
  return {
    lastNewDataAt: latest?.at ? new Date(latest.at) : null,
    newDataSources: sources.map((s) => ({ name: s.name, lastNewDataAt: new Date(s.lastNewDataAt) })),
  };
}
