// Loads the bundled sample data (data/advisories, data/items) into an empty database, then writes
// the digests of the sample data's days. Runs at start-up when SEED_SAMPLE_DATA is true, unless a
// new embedded data directory started from the cluster `npm install` seeded the same way
// (scripts/pglite-template.ts, src/db/pglite-template.ts).
import { fileURLToPath } from 'node:url';
import { generateDigestsForAllDays } from '../digest/generate.js';
import type { IngestDeps, IngestOptions, IngestResult } from '../ingest/ingest.js';
import type { SeededTemplate } from '../db/pglite-template.js';
import type { Logger } from '../log.js';

export const sampleDataDir = new URL('../../data/', import.meta.url);

/** Every record of the bundled sample, advisories first. */
export async function readSampleRecords(): Promise<unknown[]> {
  const dirs = ['advisories', 'items'].map((d) => fileURLToPath(new URL(d, sampleDataDir)));
  const { readRecordFiles } = await import('../ingest/files.js');
  const { records, unreadable } = await readRecordFiles(dirs);
  if (unreadable.length) throw new Error(`unreadable sample data: ${unreadable.map((u) => u.file).join(', ')}`);
  return records;
}

/** The date of the newest record in the bundled sample (YYYY-MM-DD): how old the sample's news is. */
export async function sampleDataDate(): Promise<string> {
  const dates = (await readSampleRecords()).map((r) => {
    const record = r as { modified?: unknown; publishedAt?: unknown };
    return String(record.modified ?? record.publishedAt ?? '');
  });
  return (dates.sort().at(-1) ?? '').slice(0, 10);
}

/** Seeds only an empty database; returns what it did, or null when there was data already. */
export async function seedSampleData(deps: IngestDeps, { relay }: Pick<IngestOptions, 'relay'> = {}): Promise<(IngestResult & { digests: number }) | null> {
  if ((await deps.prisma.issue.count()) > 0) return null;
  // Loaded here: a server that does not seed never needs the pipeline.
  const { ingest } = await import('../ingest/ingest.js');
  const result = await ingest(deps, await readSampleRecords(), { relay });
  const digests = await generateDigestsForAllDays(deps.prisma);
  deps.log.info('sample data loaded', { created: result.created, rejected: result.rejected.length, digests });
  return { ...result, digests };
}

/** The same line for a data directory that came seeded: the install-time seed's own figures. */
export function logTemplateSeed({ created, rejected, digests }: SeededTemplate, log: Logger): void {
  log.info('sample data loaded', { created, rejected, digests, from: 'the cluster npm install seeded' });
}
