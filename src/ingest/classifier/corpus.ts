// `npm run eval -- --osv <dir|zip>`: the service's own classifier (full catalogue, as it decides
// at ingest) over someone else's advisories, such as a whole advisory database or a labelled set
// of software this project has never seen. The folds in evaluate.ts measure generalisation on the
// project's labelled data; this measures it on anybody's.
import type { ParsedEntry } from '../parse.js';
import { describeEvidence, metrics, type Metrics, type Miss } from './evaluate.js';
import { defaultJudge } from './relevance.js';
import { vendorFacts } from './vendors.js';

/** What a label file says of a record: by its id or an alias, or else by any of its packages. */
export interface Labels {
  by: 'id' | 'package';
  relevant: Map<string, boolean>;
}

export interface PackageTally {
  name: string;
  ecosystem: string;
  served: number;
  records: number;
}

export interface CorpusReport {
  records: number;
  /** Entries that are not OSV records the ingest would take, with the reason. */
  rejected: { key: string; reason: string }[];
  served: number;
  /** One row per package (first affected package of each record), most served first. */
  packages: PackageTally[];
  labelled?: { metrics: Metrics; misses: Miss[]; unlabelled: number };
}

const truthy = new Set(['positive', 'relevant', 'true', 'yes', '1']);
const falsy = new Set(['negative', 'general', 'not relevant', 'false', 'no', '0']);

/** Rows of a CSV with a header that names `label` and `id` or `package` (data/relevance/index.csv is one). */
export function labelsFrom(rows: Record<string, string>[]): Labels {
  const columns = Object.keys(rows[0] ?? {});
  if (!columns.includes('label') || !(columns.includes('id') || columns.includes('package'))) {
    throw new Error('the label file needs a header with a "label" column and an "id" or "package" column');
  }
  const by = columns.includes('id') ? 'id' : 'package';
  const relevant = new Map<string, boolean>();
  rows.forEach((row, i) => {
    const label = (row.label ?? '').trim().toLowerCase();
    if (!truthy.has(label) && !falsy.has(label)) throw new Error(`line ${i + 2}: label "${label}" is neither positive nor negative`);
    relevant.set((row[by] ?? '').trim().toLowerCase(), truthy.has(label));
  });
  return { by, relevant };
}

/** A record as the osv-dir and osv-zip sources list it: read and parsed. */
export interface CorpusEntry {
  key: string;
  read: () => Promise<ParsedEntry>;
}

export async function judgeCorpus(entries: AsyncIterable<CorpusEntry>, labels?: Labels): Promise<CorpusReport> {
  const judge = defaultJudge();
  const rejected: CorpusReport['rejected'] = [];
  const tallies = new Map<string, PackageTally>();
  const results: { relevant: boolean; p: number; served: boolean; miss: () => Miss }[] = [];
  let records = 0;
  let served = 0;
  let unlabelled = 0;
  for await (const entry of entries) {
    let parsed: ParsedEntry;
    try {
      parsed = await entry.read();
    } catch (err) {
      parsed = { message: (err as Error).message };
    }
    if (!('item' in parsed)) {
      rejected.push({ key: entry.key, reason: parsed.message });
      continue;
    }
    const { item } = parsed;
    records++;
    const decision = judge.decide(item, vendorFacts(item).normalised);
    if (decision.relevant) served++;
    const first = item.affected[0]?.package;
    const key = first ? `${first.ecosystem}\u0000${first.name}` : '';
    const tally = tallies.get(key) ?? { name: first?.name ?? '(no package)', ecosystem: first?.ecosystem ?? '-', served: 0, records: 0 };
    tally.records++;
    if (decision.relevant) tally.served++;
    tallies.set(key, tally);
    if (!labels) continue;
    const keys = labels.by === 'id' ? [item.sourceId, ...item.cveIds, ...item.otherIds] : item.affected.map((a) => a.package.name);
    const label = keys.map((k) => labels.relevant.get(k.toLowerCase())).find((l) => l !== undefined);
    if (label === undefined) {
      unlabelled++;
      continue;
    }
    results.push({
      relevant: label,
      p: decision.probability,
      served: decision.relevant,
      miss: () => ({
        id: item.sourceId,
        package: [...new Set(item.affected.map((a) => a.package.name))].join(', '),
        expected: label,
        probability: decision.probability,
        evidence: describeEvidence(decision.reasons),
      }),
    });
  }
  const packages = [...tallies.values()].sort((a, b) => b.served - a.served || b.records - a.records || a.name.localeCompare(b.name));
  const report: CorpusReport = { records, rejected, served, packages };
  if (labels) {
    const misses = results.filter((r) => r.served !== r.relevant).map((r) => r.miss());
    report.labelled = { metrics: metrics(results), misses: misses.sort((a, b) => a.probability - b.probability || a.id.localeCompare(b.id)), unlabelled };
  }
  return report;
}
