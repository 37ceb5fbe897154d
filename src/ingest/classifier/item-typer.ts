// The press items' issueType (issue 38), learned from the read kinds instead of written as
// patterns: a regulator's, government's or court's act is `regulatory`, a concrete event is
// `incident`, anything else from the press (research reported, a flaw disclosed) is `news`
// (docs/curation.md). A softmax regression over the text items' features (item-features.ts),
// and the typer's own lexicon of acts and events (item-type-lexicon.ts), trained on the in-scope
// press items only; full-batch gradient descent from zero weights in a fixed order, so the same
// items always give the same typer. Research is decided before this,
// by the source's hint or a paper's voice or host (items.ts).
import { isLexiconFeature } from './item-type-lexicon.js';
import { sparseRows } from './model.js';
import { sigmoid } from './training.js';

export const pressTypes = ['news', 'incident', 'regulatory'] as const;
export type PressType = (typeof pressTypes)[number];

export interface ItemTyper {
  /** Per type: intercept, and a weight per feature. */
  bias: number[];
  weights: Map<string, number[]>;
}

/**
 * `lexiconValue`: a present lexicon feature's value (item-type-lexicon.ts), others' is 1. A handful
 * of families among thousands of words and pieces took no more weight than a word under the same
 * L2 penalty; the kept weight is the product, so typing stays a sum of weights.
 */
export const typerSettings = { l2: 3e-3, epochs: 150, rate: 0.5, minDocs: 2, lexiconValue: 3 };

export function trainTyper(examples: { features: string[]; type: PressType }[], { l2, epochs, rate, minDocs, lexiconValue } = typerSettings): ItemTyper {
  const k = pressTypes.length;
  const { vocabulary, rows } = sparseRows(examples, minDocs, (ex) => pressTypes.indexOf(ex.type));
  // Each type counts as much as the others: incidents and acts are rarer than news.
  const counts = pressTypes.map((_, c) => rows.filter((r) => r.y === c).length);
  const classWeight = counts.map((n) => rows.length / (k * Math.max(n, 1)));
  const value = vocabulary.map((f) => (isLexiconFeature(f) ? lexiconValue : 1));
  const w = new Float64Array(vocabulary.length * k);
  const bias = new Float64Array(k);
  const grad = new Float64Array(w.length);
  const gBias = new Float64Array(k);
  const z = new Float64Array(k);
  for (let epoch = 0; epoch < epochs; epoch++) {
    grad.fill(0);
    gBias.fill(0);
    for (const row of rows) {
      for (let c = 0; c < k; c++) {
        z[c] = bias[c]!;
        for (const i of row.x) z[c]! += w[i * k + c]! * value[i]!;
      }
      const max = Math.max(...z);
      let total = 0;
      for (let c = 0; c < k; c++) total += Math.exp(z[c]! - max);
      for (let c = 0; c < k; c++) {
        const r = (Math.exp(z[c]! - max) / total - (row.y === c ? 1 : 0)) * classWeight[row.y]!;
        gBias[c]! += r;
        for (const i of row.x) grad[i * k + c]! += r * value[i]!;
      }
    }
    for (let c = 0; c < k; c++) bias[c]! -= (rate * gBias[c]!) / rows.length;
    for (let j = 0; j < w.length; j++) w[j]! -= rate * (grad[j]! / rows.length + l2 * w[j]!);
  }
  const weights = new Map<string, number[]>();
  vocabulary.forEach((f, i) =>
    weights.set(
      f,
      Array.from(w.subarray(i * k, i * k + k), (x) => x * value[i]!),
    ),
  );
  return { bias: Array.from(bias), weights };
}

/** The press type a typer gives an item's features, and how sure it is. */
export function typeOf(typer: ItemTyper, features: string[]): { type: PressType; confidence: number } {
  const z = [...typer.bias];
  for (const f of features) {
    const w = typer.weights.get(f);
    if (w) for (let c = 0; c < z.length; c++) z[c]! += w[c]!;
  }
  let best = 0;
  for (let c = 1; c < z.length; c++) if (z[c]! > z[best]!) best = c;
  const second = Math.max(...z.filter((_, c) => c !== best));
  return { type: pressTypes[best]!, confidence: sigmoid(z[best]! - second) };
}
