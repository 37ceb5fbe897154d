// Synthetic advisories for the benchmarks: a real record cloned under fresh GHSA and CVE ids, so
// each clone is a new issue.
import { randomBytes } from 'node:crypto';

export function cloneAdvisory(base: Record<string, unknown>, i: number): Record<string, unknown> {
  const record = structuredClone(base);
  const suffix = randomBytes(6).toString('hex');
  record.id = `GHSA-${suffix.slice(0, 4)}-${suffix.slice(4, 8)}-${suffix.slice(8, 12)}`;
  record.aliases = [`CVE-2099-${String(100000 + i)}`];
  // References name PYSEC ids, which would merge the clones back into one issue.
  record.references = [];
  return record;
}
