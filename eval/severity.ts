// The advisory severity check of `npm run eval`: the service classifier's severity against
// GitHub's reviewed severity (database_specific.severity) on every labelled and sample advisory
// that carries one (data/relevance, data/advisories: GitHub Advisory Database, CC-BY-4.0).
// Relevance does not matter here: severity is decided the same way for served and unserved issues.
import { RuleClassifier } from '../src/ingest/classifier/rules.js';
import { extractFacts } from '../src/ingest/classifier/index.js';
import { trainingExamples } from '../src/ingest/classifier/training.js';
import { pct } from './markdown.js';

const github: Record<string, string> = { CRITICAL: 'critical', HIGH: 'high', MODERATE: 'medium', MEDIUM: 'medium', LOW: 'low' };
/** The acceptance floor (issue 28). */
export const severityFloor = 0.98;

export async function severityLines(): Promise<{ lines: string[]; agreement: number }> {
  const classifier = new RuleClassifier();
  const rows: { id: string; want: string; got: string }[] = [];
  for (const e of trainingExamples().filter((x) => x.item.format === 'osv')) {
    const reviewed = (e.item.source.record as { database_specific?: { severity?: string } }).database_specific?.severity;
    const want = reviewed ? github[reviewed.toUpperCase()] : undefined;
    if (!want) continue;
    const c = await classifier.classify(e.item, extractFacts(e.item));
    rows.push({ id: e.id, want, got: c.severity });
  }
  const misses = rows.filter((r) => r.want !== r.got);
  const agreement = rows.length ? (rows.length - misses.length) / rows.length : 1;
  const lines = [
    '### Advisory severity',
    '',
    `Severity equals GitHub's reviewed severity on ${rows.length - misses.length} of ${rows.length} labelled and sample advisories (${pct(agreement)}; floor ${pct(severityFloor)}: ${agreement >= severityFloor ? 'met' : 'NOT MET'}).`,
    '',
    ...(misses.length ? ['| advisory | GitHub | secwire |', '|---|---|---|', ...misses.map((m) => `| ${m.id} | ${m.want} | ${m.got} |`)] : []),
  ];
  return { lines, agreement };
}
