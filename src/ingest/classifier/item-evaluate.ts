// Figures for the text items (npm run eval). First the frozen test split (item-split.ts): whole
// publishers, a whole year and a whole arXiv listing, scored by a model and stacker trained on
// the rest. Then the development folds over the rest only, grouped by source (no feed on both
// sides), which is where any tuning is measured. Per kind: recall over the in-scope items of that
// kind, precision over the served items the service typed as that kind, F1, Brier over the items
// of that kind, and issueType accuracy on the served in-scope ones. And a per-field check of the
// service classifier on the labelled in-scope items.
import { defaultCatalogue } from './catalogue.js';
import { describeEvidence, metrics, type Metrics } from './evaluate.js';
import { extractFacts } from './index.js';
import { inTestSplit, isPress, publisherOf } from './item-split.js';
import {
  crossValidatedItems,
  foldCount,
  frozenSplitItems,
  isTextItem,
  itemExamples,
  textItemType,
  thresholdOf,
  trainItemTyper,
  type ItemExample,
  type ItemScore,
} from './items.js';
import type { ItemTyper } from './item-typer.js';
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

/** One kind's figures (see the file comment for what each counts). */
export interface KindRow {
  kind: string;
  /** Items labelled this kind, in scope of them, served of those. */
  items: number;
  inScope: number;
  found: number;
  /** Served items the service typed as this kind, and how many of them are in scope. */
  typed: number;
  typedInScope: number;
  recall: number;
  precision: number;
  f1: number;
  brier: number;
  /** Served in-scope items of this kind whose issueType is this kind. */
  typeRight: number;
}

export interface ItemSection {
  name: string;
  overall: Metrics;
  /** The press items alone (news, incidents, regulation from publishers, not arXiv). */
  press: Metrics;
  /** Served in-scope items whose issueType is the labelled kind's. */
  typed: { right: number; of: number };
  byKind: KindRow[];
  bySource: { name: string; metrics: Metrics }[];
  /** Out-of-scope groups: how many of each were served. */
  groups: { group: string; n: number; served: number }[];
  misses: ItemMiss[];
  publishers: number;
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
  frozen: ItemSection;
  folds: ItemSection;
  fields: FieldCheck[];
}

/** The issueType each labelled kind should get (docs/curation.md). */
export const kindType: Record<string, string> = { news: 'news', research: 'research', regulation: 'regulatory', incident: 'incident' };

type Scored = { e: ItemExample; s: ItemScore; p: number };
/** Served as the service serves it: press from pressThreshold, the rest from 0.5 (items.ts). */
const isServed = (r: { s: ItemScore; p: number }) => r.p >= thresholdOf(r.s);
/** A scored item as metrics() counts it: its label, its probability and whether it is served. */
export const outcome = (r: Scored) => ({ relevant: r.e.labelled.relevant, p: r.p, served: isServed(r) });
type Classified = Awaited<ReturnType<RuleClassifier['classify']>>;

const sourceFamily = (s: string) => (s.startsWith('news:') ? 'press link lists (news:)' : s.startsWith('feed:') ? 'feed archive (feed:)' : s);

function section(name: string, rows: Scored[], said: Map<ItemExample, Classified>): ItemSection {
  const served = rows.filter(isServed);
  const typeOf = (r: Scored) => said.get(r.e)?.issueType;
  const accuracy = typeAccuracy(rows, said);
  const byKind = Object.entries(kindType).map(([kind, type]): KindRow => {
    const ofKind = rows.filter((r) => r.e.labelled.kind === kind);
    const inScope = ofKind.filter((r) => r.e.labelled.relevant);
    const found = inScope.filter(isServed);
    const typed = served.filter((r) => typeOf(r) === type);
    const typedInScope = typed.filter((r) => r.e.labelled.relevant).length;
    const recall = found.length / (inScope.length || 1);
    const precision = typedInScope / (typed.length || 1);
    return {
      kind,
      items: ofKind.length,
      inScope: inScope.length,
      found: found.length,
      typed: typed.length,
      typedInScope,
      recall,
      precision,
      f1: (2 * precision * recall) / (precision + recall || 1),
      brier: metrics(ofKind.map(outcome)).brier,
      typeRight: accuracy.byKind.find((k) => k.kind === kind)!.right,
    };
  });
  const families = [...new Set(rows.map((r) => sourceFamily(r.e.labelled.source)))].sort();
  const groups = [...new Set(rows.map((r) => r.e.labelled.group))].sort().map((group) => {
    const inGroup = rows.filter((r) => r.e.labelled.group === group);
    return { group, n: inGroup.length, served: inGroup.filter(isServed).length };
  });
  const misses = rows
    .filter((r) => isServed(r) !== r.e.labelled.relevant)
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
  return {
    name,
    overall: metrics(rows.map(outcome)),
    press: metrics(rows.filter((r) => isPress(r.e.labelled.source)).map(outcome)),
    typed: { right: accuracy.right, of: accuracy.of },
    byKind,
    bySource: families.map((f) => ({
      name: f,
      metrics: metrics(rows.filter((r) => sourceFamily(r.e.labelled.source) === f).map(outcome)),
    })),
    groups,
    misses,
    publishers: new Set(rows.filter((r) => isPress(r.e.labelled.source)).map((r) => publisherOf(r.e.labelled.source))).size,
  };
}

/** A typer per development fold, each trained on the other folds' items. */
export const devFoldTypers = (dev: ItemExample[]) => Array.from({ length: foldCount }, (_, fold) => trainItemTyper(dev.filter((e) => e.fold !== fold)));

/**
 * What the service classifier says of each served or in-scope item. issueType is decided by the
 * hint and the rules, whatever the relevance model. The service's typer learned from every
 * labelled item, the test split too: each press item is typed instead by `typerOf(item)`, a typer
 * that never saw it (the frozen split's trained on the rest, each development fold's on the other folds).
 */
export async function issueTypes(rows: Scored[], typerOf: (e: ItemExample) => ItemTyper): Promise<Map<ItemExample, Classified>> {
  const classifier = new RuleClassifier();
  const said = new Map<ItemExample, Classified>();
  for (const r of rows) {
    const { e } = r;
    if ((isServed(r) || e.labelled.relevant) && !said.has(e)) {
      const c = await classifier.classify(e.item, extractFacts(e.item));
      said.set(e, isTextItem(e.item) && ['news', 'incident', 'regulatory'].includes(c.issueType) ? { ...c, issueType: textItemType(e.item, typerOf(e)) } : c);
    }
  }
  return said;
}

/** issueType accuracy on the served in-scope items, overall and per labelled kind. */
export function typeAccuracy(rows: Scored[], said: Map<ItemExample, Classified>) {
  const servedIn = rows.filter((r) => isServed(r) && r.e.labelled.relevant);
  const tally = (of: Scored[]) => ({ right: of.filter((r) => said.get(r.e)?.issueType === kindType[r.e.labelled.kind]).length, of: of.length });
  return {
    ...tally(servedIn),
    byKind: Object.keys(kindType).map((kind) => ({ kind, ...tally(servedIn.filter((r) => r.e.labelled.kind === kind)) })),
  };
}

export async function evaluateItems(): Promise<ItemEvaluation> {
  const all = itemExamples();
  const catalogue = defaultCatalogue();
  const frozen = frozenSplitItems(catalogue, all);
  const folds = crossValidatedItems(
    catalogue,
    all.filter((e) => !inTestSplit(e.labelled)),
  );
  const dev = all.filter((e) => !inTestSplit(e.labelled));
  const frozenTyper = trainItemTyper(dev);
  const foldTypers = devFoldTypers(dev);
  const said = await issueTypes([...frozen, ...folds], (e) => (inTestSplit(e.labelled) ? frozenTyper : foldTypers[e.fold]!));

  const fields: FieldCheck[] = (['issueType', 'labels', 'attackType', 'exploitMaturity'] as const).map((field) => {
    const check: FieldCheck = { field, right: 0, of: 0, wrong: [] };
    for (const [e, c] of said) {
      const expected = e.labelled.relevant ? e.labelled[field] : undefined;
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
    frozen: section('frozen test split', frozen, said),
    folds: section('development folds (the rest)', folds, said),
    fields,
  };
}
