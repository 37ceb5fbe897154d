// When the feed last received new data, and from which sources: stats and GraphQL show it, the
// digest says it in a line. New data is what a source delivered: a source counts from the last
// sync that created or updated an issue. With no source ever delivering, what is served is what
// was ingested by hand or seeded (the bundled sample), and lastNewDataAt is null: the time the
// sample was loaded (at install) is not news.
import { Prisma } from '../generated/prisma/client.js';

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
  const sources = await read<SourceFreshness>(
    Prisma.sql`SELECT name, "lastNewDataAt" FROM "SourceState" WHERE "lastNewDataAt" IS NOT NULL ORDER BY "lastNewDataAt" DESC, name`,
  );
  const newDataSources = sources.map((s) => ({ name: s.name, lastNewDataAt: new Date(s.lastNewDataAt) }));
  return { lastNewDataAt: newDataSources[0]?.lastNewDataAt ?? null, newDataSources };
}
