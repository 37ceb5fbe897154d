// Figures for the text items (npm run eval): the relevance decision cross-validated with folds
// grouped by source (no feed on both sides), per kind and per source; issueType accuracy on the
// served items; and a per-field check of the service classifier on the labelled in-scope items.
import { defaultCatalogue } from './catalogue.js';
import { describeEvidence, metrics, type Metrics } from './evaluate.js';
import { extractFacts } from './index.js';
import { crossValidatedItems, itemExamples, type ItemExample } from './items.js';
import { RuleClassifier } from './rules.js';

export interface ItemMiss {
  source: string;
  link: string;
  title: string;
  group: string;
  expected: boolean;
  probability: number;
  evidence: string;
}

export interface ItemRow {
  name: string;
  metrics: Metrics;
  /** Served in-scope items whose issueType is the item's kind, of all served in-scope items. */
  typed: { right: number; of: number };
}

export interface FieldCheck {
  field: 'issueType' | 'labels' | 'attackType' | 'exploitMaturity';
  right: number;
  of: number;
  /** A few of the disagreements: link, expected, said. */
  wrong: { link: string; expected: string; said: string }[];
}

export interface ItemEvaluation {
  items: number;
  sources: number;
  overall: ItemRow;
  byKind: ItemRow[];
  bySource: ItemRow[];
  /** Out-of-scope groups: how many of each the folds served. */
  groups: { group: string; n: number; served: number }[];
  misses: ItemMiss[];
  fields: FieldCheck[];
}

const kindType: Record<string, string> = { news: 'news', research: 'research', regulation: 'regulatory', incident: 'incident' };

export async function evaluateItems(): Promise<ItemEvaluation> {
  const all = itemExamples();
  const cv = crossValidatedItems(defaultCatalogue(), all);
  // issueType is decided by the hint and the rules, whatever the relevance model: the service
  // classifier gives it, and the per-field check below compares the rest of its fields.
  const classifier = new RuleClassifier();
  const said = new Map<ItemExample, Awaited<ReturnType<RuleClassifier['classify']>>>();
  for (const { e } of cv) if (e.labelled.relevant) said.set(e, await classifier.classify(e.item, extractFacts(e.item)));

  const row = (name: string, rows: typeof cv): ItemRow => {
    const served = rows.filter((r) => r.p >= 0.5 && r.e.labelled.relevant);
    return {
      name,
      metrics: metrics(rows.map((r) => ({ relevant: r.e.labelled.relevant, p: r.p }))),
      typed: { right: served.filter((r) => said.get(r.e)?.issueType === kindType[r.e.labelled.kind]).length, of: served.length },
    };
  };
  const sourceFamily = (s: string) => (s.startsWith('news:') ? 'press (all publishers)' : s);
  const byName = <K extends string>(key: (r: (typeof cv)[number]) => K) =>
    [...new Set(cv.map(key))].sort().map((k) =>
      row(
        k,
        cv.filter((r) => key(r) === k),
      ),
    );
  const groups = [...new Set(cv.map((r) => r.e.labelled.group))].sort().map((group) => {
    const inGroup = cv.filter((r) => r.e.labelled.group === group);
    return { group, n: inGroup.length, served: inGroup.filter((r) => r.p >= 0.5).length };
  });
  const misses = cv
    .filter((r) => r.p >= 0.5 !== r.e.labelled.relevant)
    .map((r) => ({
      source: r.e.labelled.source,
      link: r.e.labelled.link,
      title: r.e.labelled.title,
      group: r.e.labelled.group,
      expected: r.e.labelled.relevant,
      probability: r.p,
      evidence: describeEvidence([...r.s.ai, ...r.s.concern, { kind: 'model', detail: r.s.modelTop.join(' '), weight: r.s.modelLogit }]) || 'no evidence',
    }))
    .sort((a, b) => a.probability - b.probability || a.link.localeCompare(b.link));

  const fields: FieldCheck[] = (['issueType', 'labels', 'attackType', 'exploitMaturity'] as const).map((field) => {
    const check: FieldCheck = { field, right: 0, of: 0, wrong: [] };
    for (const [e, c] of said) {
      const expected = e.labelled[field];
      if (expected === undefined) continue;
      const want = Array.isArray(expected) ? [...expected].sort().join(',') : expected;
      const got = Array.isArray(c[field]) ? [...(c[field] as string[])].sort().join(',') : String(c[field]);
      check.of++;
      if (want === got) check.right++;
      else if (check.wrong.length < 8) check.wrong.push({ link: e.labelled.link, expected: want || '-', said: got || '-' });
    }
    return check;
  });

  return {
    items: all.length,
    sources: new Set(all.map((e) => e.labelled.source)).size,
    overall: row('all items', cv),
    byKind: byName((r) => r.e.labelled.kind),
    bySource: byName((r) => sourceFamily(r.e.labelled.source)),
    groups,
    misses,
    fields,
  };
}
