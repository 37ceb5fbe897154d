// The learned voice: a naive Bayes text model over an item's words and word pairs, its package names' words, its
// ecosystems, reference hosts, GitHub owners and CWE ids. Each feature counts once per item
// (short advisories repeat words without meaning more). Training sorts its input, so the same
// examples always give the same model; both classes get equal priors, whatever their counts.
// Each feature counts as present or absent (a Bernoulli view) but only present ones add weight.
import type { Item } from '../item.js';
import { githubRepos, nameTokens, referenceHosts } from './evidence.js';
import { plainText } from './text.js';

const stopwords = new Set(
  'the and for with that this from are was were has have had not but its can all any may via into when which who will would than then there their been being such also only other more most some these those use used uses using version versions prior before after fixed fix fixes issue issues vulnerability vulnerable vulnerabilities allows allow allowed attacker attackers user users could should does did our out you your one two new get set'.split(
    ' ',
  ),
);

const wordsOf = (item: Item) => `${item.title}\n${plainText(item.details)}`.toLowerCase().match(/[a-z][a-z0-9+]{1,29}/g) ?? [];

export function features(item: Item): string[] {
  const out = new Set<string>();
  const words = wordsOf(item);
  for (const word of words) if (!stopwords.has(word)) out.add(`w:${word}`);
  // Adjacent word pairs say what single words cannot: "untrusted data" is not "data", "model
  // server" is not "server". Pairs with a stopword are left out, as the words are.
  for (let i = 1; i < words.length; i++) if (!stopwords.has(words[i - 1]!) && !stopwords.has(words[i]!)) out.add(`b:${words[i - 1]} ${words[i]}`);
  for (const feature of otherFeatures(item)) out.add(feature);
  return [...out];
}

/** The features beside the text's words and pairs: a few per item. */
function otherFeatures(item: Item): Set<string> {
  const out = new Set<string>();
  for (const a of item.affected) {
    out.add(`e:${a.package.ecosystem.toLowerCase()}`);
    for (const token of nameTokens(a.package.name)) if (token.length > 1 && !/^\d+$/.test(token)) out.add(`p:${token}`);
  }
  for (const host of referenceHosts(item)) out.add(`h:${host}`);
  for (const repo of githubRepos(item)) out.add(`o:${repo.split('/')[0]}`);
  for (const cwe of item.cweIds) out.add(`c:${cwe.toLowerCase()}`);
  return out;
}

export interface TextModel {
  /** log P(feature | relevant) - log P(feature | not relevant), for features seen in training. */
  weights: Map<string, number>;
}

/**
 * Regularisation for a small training set: a feature must occur in `minDocs` training advisories to
 * get a weight at all, and `smoothing` pseudo-counts pull rare features towards zero, so one
 * advisory's boilerplate ("email us", "they") cannot swing an unseen package's score.
 */
export const modelSettings = { smoothing: 3, minDocs: 3 };

export function trainModel(examples: { features: string[]; relevant: boolean }[], { smoothing, minDocs } = modelSettings): TextModel {
  const counts = { true: new Map<string, number>(), false: new Map<string, number>() };
  const docs = { true: 0, false: 0 };
  for (const ex of examples) {
    const key = String(ex.relevant) as 'true' | 'false';
    docs[key] += 1;
    for (const f of ex.features) counts[key].set(f, (counts[key].get(f) ?? 0) + 1);
  }
  const vocabulary = [...new Set([...counts.true.keys(), ...counts.false.keys()])].sort();
  const weights = new Map<string, number>();
  // Only features an item has speak (absent ones would add a term per vocabulary word); the
  // stacking step in training.ts scales the sum. Counts are rescaled as if both classes had the
  // same number of examples, then smoothed: a word seen in one or two examples says little.
  const mean = (docs.true + docs.false) / 2;
  for (const f of vocabulary) {
    if ((counts.true.get(f) ?? 0) + (counts.false.get(f) ?? 0) < minDocs) continue;
    const pos = ((counts.true.get(f) ?? 0) / Math.max(docs.true, 1)) * mean;
    const neg = ((counts.false.get(f) ?? 0) / Math.max(docs.false, 1)) * mean;
    weights.set(f, Math.log((pos + smoothing) / (neg + smoothing)));
  }
  return { weights };
}

/**
 * The features seen in at least `minDocs` examples, sorted (a fixed order, so a fixed model), and
 * each example as the indices of its features with its class.
 */
export function sparseRows<E extends { features: string[] }>(examples: E[], minDocs: number, classOf: (e: E) => number) {
  const docCount = new Map<string, number>();
  for (const ex of examples) for (const f of ex.features) docCount.set(f, (docCount.get(f) ?? 0) + 1);
  const vocabulary = [...docCount.keys()].filter((f) => docCount.get(f)! >= minDocs).sort();
  const index = new Map(vocabulary.map((f, i) => [f, i]));
  const rows = examples.map((ex) => ({
    x: [...new Set(ex.features)].map((f) => index.get(f)).filter((i): i is number => i !== undefined),
    y: classOf(ex),
  }));
  return { vocabulary, rows };
}

/**
 * A logistic regression over the same features, for text items (items.ts): fitted by full-batch
 * gradient descent (Adam) with an L2 penalty, in a fixed order from zero weights, so the same
 * examples always give the same model. Unlike the naive Bayes weights above, correlated words
 * (an abstract's many ML words) share their weight instead of each adding it, so a long abstract
 * and a one-line title land on one scale. The intercept is left to the stacker. Classes are
 * weighted to count equally, within each `domain` when the examples name one: for text items,
 * research and press, where half the papers and a sixth of the press items are in scope.
 * Balanced over both at once, the in-scope items' weight went mostly to papers, and the model
 * learnt how a paper reads as much as what puts an item in scope; balanced within each, each
 * domain keeps its share of the examples and its in-scope items count as much as the rest.
 *
 * A present feature's value is its rarity, not 1: log(n / documents with it), scaled so that the
 * rarest kept feature is 1. Adam moves every weight at about the same pace whatever its feature's
 * frequency, so in the few epochs it runs the features on a large share of the items (ai, model,
 * security, a common character 4-gram) took weights as large as the telling ones and spoke for
 * every item that has them. The kept weight is the product, so scoring stays a sum of weights.
 */
export function trainLogistic(
  examples: { features: string[]; relevant: boolean; domain?: number }[],
  { l2, epochs, rate, minDocs } = logisticSettings,
): TextModel {
  const { vocabulary, rows } = sparseRows(examples, minDocs, (ex) => (ex.relevant ? 1 : 0));
  const domainOf = (k: number) => examples[k]!.domain ?? 0;
  // counts.get(domain)[class]: a domain of n examples, c of them of the class, gives each n / (2c),
  // times n / rows so that the domains keep their shares.
  const counts = new Map<number, [number, number]>();
  rows.forEach((row, k) => {
    const c = counts.get(domainOf(k)) ?? [0, 0];
    c[row.y]! += 1;
    counts.set(domainOf(k), c);
  });
  const rowWeight = rows.map((row, k) => {
    const c = counts.get(domainOf(k))!;
    return (c[0] + c[1]) ** 2 / (2 * c[row.y]! * rows.length);
  });
  const documents = new Float64Array(vocabulary.length);
  for (const row of rows) for (const i of row.x) documents[i]! += 1;
  const rarest = Math.log(rows.length / minDocs);
  const value = documents.map((d) => (rarest > 0 ? Math.log(rows.length / d) / rarest : 1));
  const w = new Float64Array(vocabulary.length);
  const m = new Float64Array(vocabulary.length);
  const v = new Float64Array(vocabulary.length);
  let bias = 0;
  const grad = new Float64Array(vocabulary.length);
  for (let epoch = 1; epoch <= epochs; epoch++) {
    grad.fill(0);
    let gBias = 0;
    for (let k = 0; k < rows.length; k++) {
      const row = rows[k]!;
      let z = bias;
      for (const i of row.x) z += w[i]! * value[i]!;
      const r = (1 / (1 + Math.exp(-z)) - row.y) * rowWeight[k]!;
      gBias += r;
      for (const i of row.x) grad[i]! += r * value[i]!;
    }
    bias -= (rate * gBias) / rows.length;
    for (let i = 0; i < w.length; i++) {
      const g = grad[i]! / rows.length + l2 * w[i]!;
      m[i] = 0.9 * m[i]! + 0.1 * g;
      v[i] = 0.999 * v[i]! + 0.001 * g * g;
      w[i]! -= (rate * (m[i]! / (1 - 0.9 ** epoch))) / (Math.sqrt(v[i]! / (1 - 0.999 ** epoch)) + 1e-8);
    }
  }
  const weights = new Map<string, number>();
  vocabulary.forEach((f, i) => {
    const weight = w[i]! * value[i]!;
    if (Math.abs(weight) > 1e-4) weights.set(f, weight);
  });
  return { weights };
}

/** l2: with the rarity values above, the penalty that keeps the rare features' weights in check. */
export const logisticSettings = { l2: 3e-3, epochs: 40, rate: 0.1, minDocs: 3 };

export interface TextScore {
  logit: number;
  /** The features that moved it most, strongest first, with their weights. */
  top: string[];
}

/**
 * Sums the weights of an item's features in the order they come (the order fixes the floating-point
 * sum), keeping the five strongest: sorting every matched feature (hundreds for a long advisory,
 * each tie settled by localeCompare) was most of the scoring's time.
 */
class ScoreSum {
  logit = 0;
  private readonly top: [string, number][] = [];

  /** `name` is only called when the feature may be among the strongest. */
  add(w: number, name: () => string): void {
    this.logit += w;
    const top = this.top;
    if (top.length === topFeatures && Math.abs(top[topFeatures - 1]![1]) > Math.abs(w)) return;
    const f = name();
    if (top.length === topFeatures && strongerFirst(top[topFeatures - 1]!, [f, w]) <= 0) return;
    let at = top.length;
    while (at > 0 && strongerFirst(top[at - 1]!, [f, w]) > 0) at--;
    top.splice(at, 0, [f, w]);
    if (top.length > topFeatures) top.pop();
  }

  result(): TextScore {
    return { logit: this.logit, top: this.top.map(([f, w]) => `${f}${w >= 0 ? '+' : ''}${w.toFixed(1)}`) };
  }
}

/** The model's log-odds for an item's features, and the features that moved it most (for provenance). */
export function scoreModel(model: TextModel, itemFeatures: string[]): TextScore {
  const sum = new ScoreSum();
  for (const f of itemFeatures) {
    const w = model.weights.get(f);
    if (w !== undefined) sum.add(w, () => f);
  }
  return sum.result();
}

/** The model's weights of words and of word pairs (first word, then second), found without building feature names. */
interface WordWeights {
  words: Map<string, number>;
  pairs: Map<string, Map<string, number>>;
}
const wordWeights = new WeakMap<TextModel, WordWeights>();

function wordWeightsOf(model: TextModel): WordWeights {
  let found = wordWeights.get(model);
  if (found) return found;
  found = { words: new Map(), pairs: new Map() };
  for (const [f, w] of model.weights) {
    if (f.startsWith('w:')) found.words.set(f.slice(2), w);
    else if (f.startsWith('b:')) {
      const [first, second] = f.slice(2).split(' ') as [string, string];
      const seconds = found.pairs.get(first) ?? new Map<string, number>();
      found.pairs.set(first, seconds);
      seconds.set(second, w);
    }
  }
  wordWeights.set(model, found);
  return found;
}

/**
 * scoreModel(model, features(item)), without building a feature name for every word and pair
 * of the text (a name per word and per pair was most of the classifier's garbage): each word and
 * pair is looked up as it is, and only those the model weighs are remembered so they count once.
 * The same features in the same order, so the same sum (a test compares both).
 */
export function scoreText(model: TextModel, item: Item): TextScore {
  const { words: wordWeight, pairs: pairWeight } = wordWeightsOf(model);
  const sum = new ScoreSum();
  const words = wordsOf(item);
  const seen = new Set<string>();
  for (const word of words) {
    if (stopwords.has(word) || seen.has(word)) continue;
    seen.add(word);
    const w = wordWeight.get(word);
    if (w !== undefined) sum.add(w, () => `w:${word}`);
  }
  const seenPairs = new Set<string>();
  for (let i = 1; i < words.length; i++) {
    const w = pairWeight.get(words[i - 1]!)?.get(words[i]!);
    if (w === undefined || stopwords.has(words[i - 1]!) || stopwords.has(words[i]!)) continue;
    const pair = `${words[i - 1]} ${words[i]}`;
    if (seenPairs.has(pair)) continue;
    seenPairs.add(pair);
    sum.add(w, () => `b:${pair}`);
  }
  for (const f of otherFeatures(item)) {
    const w = model.weights.get(f);
    if (w !== undefined) sum.add(w, () => f);
  }
  return sum.result();
}

const topFeatures = 5;
/** Stronger weight first; equal weights in the features' order. */
const strongerFirst = (a: [string, number], b: [string, number]) => Math.abs(b[1]) - Math.abs(a[1]) || a[0].localeCompare(b[0]);
