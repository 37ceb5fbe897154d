// Loads the bundled sample data (data/advisories, data/items) into an empty database, then writes
// the digests of the sample data's days. Runs at start-up when SEED_SAMPLE_DATA is true.
import { readdir, readFile } from 'node:fs/promises';
import { generateDigestsForAllDays } from '../digest/generate.js';
import { ingest, type IngestDeps, type IngestResult } from '../ingest/ingest.js';

export const sampleDataDir = new URL('../../data/', import.meta.url);

/** Every record in the JSON files under the given directories (a file holds one record or an array). */
export async function readSampleRecords(): Promise<unknown[]> {
  const records: unknown[] = [];
  for (const sub of ['advisories/', 'items/']) {
    const dir = new URL(sub, sampleDataDir);
    for (const name of (await readdir(dir)).filter((f) => f.endsWith('.json')).sort()) {
      const value = JSON.parse(await readFile(new URL(name, dir), 'utf8')) as unknown;
      records.push(...(Array.isArray(value) ? value : [value]));
    }
  }
  return records;
}

/** Seeds only an empty database; returns what it did, or null when there was data already. */
export async function seedSampleData(deps: IngestDeps): Promise<(IngestResult & { digests: number }) | null> {
  if ((await deps.prisma.issue.count()) > 0) return null;
  const result = await ingest(deps, await readSampleRecords());
  const digests = await generateDigestsForAllDays(deps.prisma);
  deps.log.info('sample data loaded', { created: result.created, rejected: result.rejected.length, digests });
  return { ...result, digests };
}
