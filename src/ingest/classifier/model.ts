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

export function features(item: Item): string[] {
  const out = new Set<string>();
  const text = `${item.title}\n${plainText(item.details)}`.toLowerCase();
  const words = text.match(/[a-z][a-z0-9+]{1,29}/g) ?? [];
  for (const word of words) if (!stopwords.has(word)) out.add(`w:${word}`);
  // Adjacent word pairs say what single words cannot: "untrusted data" is not "data", "model
  // server" is not "server". Pairs with a stopword are left out, as the words are.
  for (let i = 1; i < words.length; i++) if (!stopwords.has(words[i - 1]!) && !stopwords.has(words[i]!)) out.add(`b:${words[i - 1]} ${words[i]}`);
  for (const a of item.affected) {
    out.add(`e:${a.package.ecosystem.toLowerCase()}`);
    for (const token of nameTokens(a.package.name)) if (token.length > 1 && !/^\d+$/.test(token)) out.add(`p:${token}`);
  }
  for (const host of referenceHosts(item)) out.add(`h:${host}`);
  for (const repo of githubRepos(item)) out.add(`o:${repo.split('/')[0]}`);
  for (const cwe of item.cweIds) out.add(`c:${cwe.toLowerCase()}`);
  return [...out];
}

export interface TextModel {
  /** log P(feature | relevant) - log P(feature | not relevant), for features seen in training. */
  weights: Map<string, number>;
}

/**
 * Regularisation for a small training set: a feature must occur in `minDocs` training advisories to
 * get a weight at all, and `smoothing` pseudo-counts pull rare features towards zero, so one
 * advisory's boilerplate ("email us", "they") cannot swing an unseen package's score.
 * `distantShare` is how much of each class's evidence comes from the distantly labelled
 * advisories (data/distant), the rest from the project's own examples.
 */
export const modelSettings = { smoothing: 3, minDocs: 3, distantShare: 0.5 };

export interface TrainingText {
  features: string[];
  relevant: boolean;
  /** `project`, or the distantly labelled data set the example comes from (training.ts). */
  source: string;
}

type Cell = { docs: number; counts: Map<string, number> };

export function trainModel(examples: TrainingText[], { smoothing, minDocs, distantShare } = modelSettings): TextModel {
  // One pair of cells (relevant, not) per source. The sources differ in form (GitHub's reviewed
  // advisories carry CWE ids and boilerplate, PyPA's and Go's carry NVD-like prose), so each class
  // takes the same share from each source: a feature of one source's form weighs the same in both
  // classes, and only what differs between the classes within a source moves the model.
  const cells = new Map<string, { true: Cell; false: Cell }>();
  for (const ex of examples) {
    if (!cells.has(ex.source)) cells.set(ex.source, { true: { docs: 0, counts: new Map() }, false: { docs: 0, counts: new Map() } });
    const c = cells.get(ex.source)![String(ex.relevant) as 'true' | 'false'];
    c.docs += 1;
    for (const f of ex.features) c.counts.set(f, (c.counts.get(f) ?? 0) + 1);
  }
  // A distant source speaks only if it has both classes; its share follows its relevant examples
  // (the scarce side), and all distant sources together take `distantShare`.
  const distant = [...cells].filter(([source, c]) => source !== 'project' && c.true.docs > 0 && c.false.docs > 0);
  const distantRelevant = distant.reduce((n, [, c]) => n + c.true.docs, 0);
  const shares: [{ true: Cell; false: Cell }, number][] = distant.map(([, c]) => [c, (distantShare * c.true.docs) / distantRelevant]);
  const project = cells.get('project');
  if (project) shares.push([project, distant.length ? 1 - distantShare : 1]);
  const used = shares.map(([c]) => c);
  const docsOf = (cs: { true: Cell; false: Cell }[]) => cs.reduce((n, c) => n + c.true.docs + c.false.docs, 0);
  // Only features an item has speak (absent ones would add a term per vocabulary word); the
  // stacking step in training.ts scales the sum. Frequencies become counts as if both classes had
  // the project's number of examples, then are smoothed: a word seen in one or two examples says little.
  const mean = docsOf(project ? [project] : used) / 2;
  // One pass per cell adds its share of each feature's frequency (the service trains a model per
  // fold at first start, so this loop is most of that cost): [relevant, not, examples seen in].
  const sums = new Map<string, [number, number, number]>();
  for (const [c, share] of shares) {
    for (const [key, cell] of [[0, c.true] as const, [1, c.false] as const]) {
      const unit = share / Math.max(cell.docs, 1);
      for (const [f, n] of cell.counts) {
        let sum = sums.get(f);
        if (!sum) sums.set(f, (sum = [0, 0, 0]));
        sum[key] += unit * n;
        sum[2] += n;
      }
    }
  }
  const weights = new Map<string, number>();
  for (const [f, [relevant, other, seen]] of sums) {
    if (seen < minDocs) continue;
    weights.set(f, Math.log((relevant * mean + smoothing) / (other * mean + smoothing)));
  }
  return { weights };
}

/** The model's log-odds for an item, and the features that moved it most (for provenance). */
export function scoreModel(model: TextModel, itemFeatures: string[]): { logit: number; top: string[] } {
  let logit = 0;
  const moved: [string, number][] = [];
  for (const f of itemFeatures) {
    const w = model.weights.get(f);
    if (w === undefined) continue;
    logit += w;
    moved.push([f, w]);
  }
  moved.sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]) || a[0].localeCompare(b[0]));
  return { logit, top: moved.slice(0, 5).map(([f, w]) => `${f}${w >= 0 ? '+' : ''}${w.toFixed(1)}`) };
}

