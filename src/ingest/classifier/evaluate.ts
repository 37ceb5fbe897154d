// Figures for eval/README.md and the floors test: grouped cross-validation of the relevance
// decision on the labelled examples, and how the service's classifier judges the bundled sample.
import type { Evidence } from './evidence.js';
import { defaultThreshold } from './items.js';
import { defaultJudge } from './relevance.js';
import { vendorFacts } from './vendors.js';
import { crossValidatedProbabilities, outOfFold, packageGroups, stackerPoints, trainingExamples, type FoldMode, type OutOfFold } from './training.js';

export interface Metrics {
  n: number;
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  recall: number;
  precision: number;
  f1: number;
  brier: number;
}

export interface Miss {
  id: string;
  package: string;
  expected: boolean;
  probability: number;
  evidence: string;
}

export interface CrossValidation {
  metrics: Metrics;
  /** [lower, upper) probability bins: how many examples, mean predicted, share actually relevant. */
  reliability: { bin: string; n: number; predicted: number; observed: number }[];
  misses: Miss[];
  /** Relevant examples below 0.9 and anything between 0.3 and 0.7: where the margin is thin. */
  nearMisses: Miss[];
}

export interface Evaluation extends CrossValidation {
  groups: number;
  /**
   * The same folds with the held-out packages gone from the curated lists as well, but not from
   * the registry summaries: software no list knows, once the service has looked up its summary.
   */
  lookup: CrossValidation;
  /** The same folds with the held-out packages gone from the registry and curated lists as well. */
  blind: CrossValidation;
  sample: { name: string; total: number; served: number; unserved: string[]; wronglyServed: string[] }[];
}

/** `served`: whether the service serves it (a press item's threshold is lower, items.ts); else p >= defaultThreshold. */
export function metrics(results: { relevant: boolean; p: number; served?: boolean }[]): Metrics {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  let brier = 0;
  for (const { relevant, p, served } of results) {
    const said = served ?? p >= defaultThreshold;
    if (said && relevant) tp++;
    else if (said) fp++;
    else if (relevant) fn++;
    else tn++;
    brier += (p - (relevant ? 1 : 0)) ** 2;
  }
  const recall = tp / (tp + fn || 1);
  const precision = tp / (tp + fp || 1);
  return {
    n: results.length,
    tp,
    fp,
    fn,
    tn,
    recall,
    precision,
    f1: (2 * precision * recall) / (precision + recall || 1),
    brier: brier / (results.length || 1),
  };
}

/** The four strongest pieces of evidence, as the misses tables show them. */
export const describeEvidence = (evidence: Evidence[]) =>
  [...evidence]
    .sort((a, b) => Math.abs(b.weight) - Math.abs(a.weight))
    .slice(0, 4)
    .map((e) => `${e.kind} ${e.detail} (${e.weight >= 0 ? '+' : ''}${e.weight.toFixed(1)})`)
    .join('; ');

function crossValidate(predictions: { o: OutOfFold; p: number }[]): CrossValidation {
  const results = predictions.map(({ o, p }) => ({ relevant: o.example.relevant, p }));
  const reliability = [0, 0.1, 0.3, 0.5, 0.7, 0.9].map((lower, i, edges) => {
    const upper = edges[i + 1] ?? 1.0000001;
    const inBin = results.filter((r) => r.p >= lower && r.p < upper);
    const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);
    return {
      bin: `${lower.toFixed(1)}-${Math.min(upper, 1).toFixed(1)}`,
      n: inBin.length,
      predicted: mean(inBin.map((r) => r.p)),
      observed: mean(inBin.map((r) => (r.relevant ? 1 : 0))),
    };
  });
  const asMiss = ({ o, p }: (typeof predictions)[number]): Miss => ({
    id: o.example.id,
    package: [...new Set(o.example.item.affected.map((a) => a.package.name))].join(', '),
    expected: o.example.relevant,
    probability: p,
    evidence: describeEvidence([...o.evidence, { kind: 'model', detail: o.modelTop.join(' '), weight: o.modelLogit }]),
  });
  const wrong = (x: (typeof predictions)[number]) => x.p >= defaultThreshold !== x.o.example.relevant;
  const thin = (x: (typeof predictions)[number]) => !wrong(x) && ((x.o.example.relevant && x.p < 0.9) || (x.p > 0.3 && x.p < 0.7));
  const byProbability = (a: Miss, b: Miss) => a.probability - b.probability || a.id.localeCompare(b.id);
  return {
    metrics: metrics(results),
    reliability,
    misses: predictions.filter(wrong).map(asMiss).sort(byProbability),
    nearMisses: predictions.filter(thin).map(asMiss).sort(byProbability),
  };
}

export function evaluate(): Evaluation {
  const all = trainingExamples();
  // One stacker per fold serves every view, as the service's one stacker does. It is fitted on the
  // grouped and blind views, as the service's is; the lookup view is only scored with it.
  const predictions = crossValidatedProbabilities(stackerPoints(all), outOfFold(all, 'registry-lookup'));
  const view = (mode: FoldMode) => crossValidate(predictions.filter(({ o }) => o.mode === mode));
  const grouped = view('grouped');
  const blind = view('catalogue-blind');
  const lookup = view('registry-lookup');

  // The sample is judged by the service's own classifier, trained on everything: it shows the
  // sample stays served, not how the classifier generalises (the folds above do that).
  const judge = defaultJudge();
  const sampleSets = [
    { name: 'data/advisories (OSV)', format: 'osv' },
    { name: 'data/items (ATLAS case studies, news, regulation)', format: 'native' },
  ];
  const sampleExamples = all.filter((e) => !e.labelled);
  const sample = sampleSets.map(({ name, format }) => {
    const set = sampleExamples.filter((e) => e.item.format === format);
    const said = set.map((e) => ({ e, relevant: judge.decide(e.item, vendorFacts(e.item).normalised).relevant }));
    return {
      name,
      total: set.length,
      served: said.filter((s) => s.relevant).length,
      unserved: said.filter((s) => !s.relevant && s.e.relevant).map((s) => s.e.id),
      wronglyServed: said.filter((s) => s.relevant && !s.e.relevant).map((s) => s.e.id),
    };
  });
  return { groups: packageGroups(all).length, ...grouped, lookup, blind, sample };
}
