// Relevance of text items: news, research, regulation and incidents (native items with no package),
// which have no package, repository or CWE to go on (issue 38). A logistic text
// model over the title's and the summary's words and pairs, title character 4-grams, an AI-system
// gazetteer and a concern lexicon (item-features.ts), trained on data/labelled-items, is stacked
// with four families of hand-written evidence: that the item is about an AI/ML system
// (evidence.ts), that it is about a security, privacy or safety concern (concernTerms), that AI is
// only the defender's tool, a lure's bait or business news (toolOrBait), and both sides at once.
// Press items get slopes of their own for the text model and both sides. The stacker
// (item-stacker.ts) is fitted on out-of-fold scores, folds grouped by source, so its probability is
// calibrated; each family stays only while it earns its place on the development folds (npm run
// eval -- --rules, eval/README.md). The concern must be about the AI system, so words with a second
// sense in abstracts ("exploit", "safety", a bare "attack") count only in the title or beside a
// specific one, and AI named only in the body weighs half. A press item is served from a lower
// probability than the rest (pressThreshold). A press item's issueType is learned (item-typer.ts).
// docs/curation.md is the policy; eval/README.md has the figures.
import { readFileSync } from 'node:fs';
import type { Item, SourceHints } from '../item.js';
import { parseEntry } from '../parse.js';
import type { Catalogue } from './catalogue.js';
import { collectEvidence, type Evidence } from './evidence.js';
import { itemFeatures } from './item-features.js';
import { typeLexiconFeatures } from './item-type-lexicon.js';
import { fitItemStacker, type ItemStacker, stackedItemLogit } from './item-stacker.js';
import { type ItemTyper, type PressType, trainTyper, typeOf } from './item-typer.js';
import { scoreModel, trainLogistic, type TextModel, type TextScore } from './model.js';
import { aiTerms, concernTerms, evidenceWeights, itemAiTerms, toolOrBait } from './tables.js';
import { plainText } from './text.js';
import { inTestSplit } from './item-split.js';
import { sigmoid } from './training.js';

/**
 * The items this judge decides: native items that name no package and are not declared
 * vulnerabilities. Advisories, and vulnerability records without packages (a KEV entry), go to
 * the vendor and package evidence: their text always speaks of an attack, so the text model would
 * serve any product whose name holds an AI-sounding word ("Mail Transfer Agent").
 */
export const isTextItem = (item: Item) => item.format === 'native' && item.affected.length === 0 && item.typeHint !== 'vulnerability';

export const labelledItemsUrl = new URL('../../../data/labelled-items/items.json', import.meta.url);

/** One labelled item as data/labelled-items/items.json holds it (see its README). */
export interface LabelledItem {
  source: string;
  /** The repository file it was read from, and the licence of the text kept. */
  origin: string;
  licence: string;
  link: string;
  title: string;
  summary: string;
  publishedAt: string;
  kind: 'news' | 'research' | 'regulation' | 'incident';
  relevant: boolean;
  /** Why: in-scope, or the out-of-scope group (docs/curation.md). */
  group: string;
  issueType?: string;
  labels?: string[];
  attackType?: string[];
  exploitMaturity?: string;
}

export interface ItemExample {
  labelled: LabelledItem;
  item: Item;
  features: string[];
  /** Held out together: every item of one source is in the same fold. */
  fold: number;
}

/**
 * What each labelled source's definition would say of its entries: an arXiv listing is research.
 * The labelled set keeps the hint apart from the item, as a feed source does (sourceHints).
 */
export function hintsOf(source: string): SourceHints | undefined {
  return source.startsWith('arxiv-') ? { issueType: 'research' } : undefined;
}

export const foldCount = 10;

/**
 * Folds by source: each arXiv listing is a fold of its own, and the press sources share the other
 * folds by a hash of their name, so no feed is on both sides of a fold.
 */
export function foldOf(source: string, arxivSources: string[]): number {
  const arxiv = arxivSources.indexOf(source);
  if (arxiv >= 0) return arxiv;
  let h = 0;
  for (const c of source) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return arxivSources.length + (h % (foldCount - arxivSources.length));
}

/**
 * The labelled items, read and parsed anew: a server that trains the model (none kept for its
 * inputs) lets go of them once trained; kept, they were the largest thing in a synced server's
 * heap, for the process's life. itemExamples() keeps them, for evaluation's many passes.
 */
export function readItemExamples(): ItemExample[] {
  const labelled = JSON.parse(readFileSync(labelledItemsUrl, 'utf8')) as LabelledItem[];
  const arxivSources = [...new Set(labelled.map((l) => l.source).filter((s) => s.startsWith('arxiv-')))].sort();
  return labelled.map((l) => {
    const hints = hintsOf(l.source);
    const record = {
      title: l.title,
      url: l.link,
      publishedAt: l.publishedAt,
      ...(l.summary ? { summary: l.summary } : {}),
      ...(hints ? { sourceHints: hints } : {}),
    };
    const parsed = parseEntry(record);
    if (!('item' in parsed)) throw new Error(`labelled item ${l.link} does not parse: ${parsed.message}`);
    return { labelled: l, item: parsed.item, features: itemFeatures(parsed.item), fold: foldOf(l.source, arxivSources) };
  });
}

let examples: ItemExample[] | undefined;
export function itemExamples(): ItemExample[] {
  examples ??= readItemExamples();
  return examples;
}

/** The two kinds of evidence the decision needs, each summed in log-odds. */
interface TwoSided {
  ai: Evidence[];
  concern: Evidence[];
}

const aiKinds = new Set<Evidence['kind']>([
  'term',
  'domain-term',
  'ai-vendor',
  'atlas',
  'catalogue-repository',
  'catalogue-organisation',
  'reference-host',
  'listed-repository',
]);

/**
 * "Adversarial attacks" say little of AI in a text item: game theory, control, cryptography and
 * power grids have adversaries too. Not a strong AI term here, only one of the papers' words
 * (itemAiTerms) when nothing else speaks; it stays evidence of concern.
 */
const notAiEvidence = /\badversar(y|ial|ies)\s+attacks?\b/gi;

function twoSided(item: Item, catalogue: Catalogue, vendors: string[]): TwoSided {
  const probe = { ...item, title: item.title.replace(notAiEvidence, 'attacks'), details: item.details.replace(notAiEvidence, 'attacks') };
  const ai = collectEvidence(probe, catalogue, vendors).evidence.filter((e) => aiKinds.has(e.kind));
  const text = `${item.title}\n${plainText(item.details)}`;
  const w = evidenceWeights;
  if (ai.length === 0) {
    // Where the advisories' vocabulary is silent, the words papers and the press use for AI systems.
    const words = [...new Set((text.match(new RegExp(itemAiTerms.source, 'gi')) ?? []).map((t) => t.toLowerCase()))];
    // "Adversarial attacks" alone is the weakest of them (see notAiEvidence).
    const onlyAdversary = words.every((t) => /^adversar(y|ial|ies)\s+attacks?$/.test(t));
    if (words.length > 0)
      ai.push({
        kind: 'domain-term',
        detail: words.slice(0, 5).join(', '),
        weight: onlyAdversary ? w.domainFirst / 2 : Math.min(w.domainFirst + w.domainMore * (words.length - 1), w.domainMax),
      });
  }
  const found = (pattern: RegExp, where = text) => [
    ...new Set((where.match(new RegExp(pattern.source, 'gi')) ?? []).map((t) => t.toLowerCase().replace(/\s+/g, ' '))),
  ];
  // A bare "attack" in an abstract is as often an argument's, a game's or a war's as a system's.
  const anyStrong = found(concernTerms.strong);
  const specific = anyStrong.every((t) => /^attacks?$/.test(t)) && !concernTerms.strong.test(item.title) ? [] : anyStrong;
  // "Exploit", "safety" or "privacy" in an abstract is often another sense: the title's, or beside a strong word.
  const strong = [...specific, ...found(concernTerms.titled, specific.length > 0 ? text : item.title)];
  const concern: Evidence[] = [];
  if (strong.length > 0)
    concern.push({ kind: 'concern-term', detail: strong.slice(0, 5).join(', '), weight: Math.min(w.termFirst + w.termMore * (strong.length - 1), w.termMax) });
  else {
    const weak = found(concernTerms.weak);
    if (weak.length > 0) concern.push({ kind: 'concern-term', detail: weak.slice(0, 5).join(', '), weight: w.concernWeak });
  }
  // An ATLAS technique is an attack on an AI system: evidence of both.
  if (item.atlasHints.length > 0) concern.push({ kind: 'atlas', detail: item.atlasHints.join(', '), weight: w.atlas });
  // AI as the defender's tool or a lure's bait, business news and commentary are the wrong kind of item.
  // Read in the title: an attack paper's abstract speaks of detection too.
  if (
    item.atlasHints.length === 0 &&
    !toolOrBait.againstTheModel.test(item.title) &&
    !/\b(deepfakes?|(ai|llm|machine)[- ]generated|jailbreak\w*|prompt[- ]injection)\b/i.test(item.title)
  ) {
    const tool =
      toolOrBait.defence.exec(item.title) ??
      toolOrBait.lure.exec(item.title) ??
      (concernTerms.strong.test(item.title) || concernTerms.titled.test(item.title) ? null : toolOrBait.business.exec(item.title)) ??
      (toolOrBait.event.test(item.title) || isResearch(item) ? null : toolOrBait.commentary.exec(item.title));
    if (tool) concern.push({ kind: 'tool-or-bait', detail: tool[0].slice(0, 120), weight: toolOrBait.weight });
  }
  // A paper or article about an AI system names one in its title; AI only in the body is often a
  // method or an aside (an optimisation "for agents", a survey's list), so it weighs half.
  const titled = new RegExp(`${aiTerms.strong.source}|${aiTerms.domain.source}|${itemAiTerms.source}`, 'i').test(item.title);
  return { ai: titled ? ai : ai.map((e) => ({ ...e, weight: e.weight / 2 })), concern };
}

const sum = (es: Evidence[]) => es.reduce((s, e) => s + e.weight, 0);

/**
 * The rules' evidence the stacker weighs beside the text model, each its own input (item-stacker.ts):
 * that the item is about an AI system, that it is about a security, privacy or safety concern,
 * and that AI is only the defender's tool, a lure's bait or business news. `rules` leaves families
 * out, for the measurement of what each earns on held-out sources (eval/README.md).
 */
export type RuleFamily = 'ai' | 'concern' | 'toolOrBait' | 'both';
export const ruleFamilies: readonly RuleFamily[] = ['ai', 'concern', 'toolOrBait', 'both'];

export interface ItemScore {
  modelLogit: number;
  modelTop: string[];
  ai: Evidence[];
  concern: Evidence[];
  /** 1 for a press item (pressOf), else 0. */
  press: number;
  /** The stacker's inputs: the model's log-odds, then each rule family's evidence in log-odds, then the press slopes. */
  x: number[];
}

/** `press`: 1 for a press item, else 0 (pressOf). */
function scored(text: TextScore, sides: TwoSided, rules: readonly RuleFamily[] = ruleFamilies, press = 0): ItemScore {
  const bait = sides.concern.filter((e) => e.kind === 'tool-or-bait');
  const concern = sides.concern.filter((e) => e.kind !== 'tool-or-bait');
  // Both sides at once: the weaker side's evidence, an AND the sums alone cannot express, and
  // whether both are there at all (with no bait), which changes how far the text model is trusted.
  // A family left out (the rules measurement) is gone from the joint input too.
  const aiSum = rules.includes('ai') ? sum(sides.ai) : Number.POSITIVE_INFINITY;
  const concernSum = rules.includes('concern') ? sum(concern) : Number.POSITIVE_INFINITY;
  const baited = rules.includes('toolOrBait') && bait.length > 0;
  const joint = Math.min(aiSum, concernSum);
  const both = !baited && aiSum > evidenceWeights.domainFirst / 2 && Number.isFinite(joint) ? Math.max(0, joint) : 0;
  const gate = rules.includes('both') ? (both > 0 ? 1 : 0) : 1;
  return {
    modelLogit: text.logit,
    modelTop: text.top,
    ...sides,
    press,
    x: [
      text.logit * gate,
      text.logit * (1 - gate),
      rules.includes('ai') ? aiSum : 0,
      rules.includes('concern') ? concernSum : 0,
      rules.includes('toolOrBait') ? sum(bait) : 0,
      rules.includes('both') ? both : 0,
      rules.includes('both') ? gate : 0,
      // Press on its own slopes (text model, both sides): the same evidence means something else in
      // a headline than in an abstract, and the arXiv items would otherwise set one slope for both.
      press * text.logit,
      press * (rules.includes('both') ? both : 0),
    ],
  };
}

export interface TrainedItems {
  model: TextModel;
  stacker: ItemStacker;
  /** The press items' issueType (item-typer.ts). */
  typer: ItemTyper;
}

/** The typer's features: the text model's, and its own lexicon of acts and events (item-type-lexicon.ts). */
const typerFeatures = (item: Item, features = itemFeatures(item)) => [...features, ...typeLexiconFeatures(item)];

/** The typer learns from the in-scope press items' read kinds (research is decided before it). */
export function trainItemTyper(all: ItemExample[]): ItemTyper {
  return trainTyper(
    all
      .filter((e) => e.labelled.relevant && e.labelled.kind !== 'research')
      .map((e) => ({ features: typerFeatures(e.item, e.features), type: e.labelled.kind === 'regulation' ? 'regulatory' : (e.labelled.kind as PressType) })),
  );
}

const scoreOf = (model: TextModel, e: ItemExample, catalogue: Catalogue, rules?: readonly RuleFamily[]) =>
  scored(scoreModel(model, e.features), twoSided(e.item, catalogue, []), rules, pressOf(e.item));

/** What the text model learns from an item: research and press balance their classes apart (trainLogistic). */
const textExample = (e: ItemExample) => ({ features: e.features, relevant: e.labelled.relevant, domain: pressOf(e.item) });

/**
 * Every labelled item scored by a model that never saw its source. `folds` below foldCount merges
 * source folds (fold % folds): the service calibrates on fewer, at a fraction of the evaluation's cost.
 */
export function outOfFoldItems(
  all: ItemExample[] = itemExamples(),
  catalogue: Catalogue,
  folds = foldCount,
  rules?: readonly RuleFamily[],
): { e: ItemExample; s: ItemScore }[] {
  const out: { e: ItemExample; s: ItemScore }[] = [];
  for (let fold = 0; fold < folds; fold++) {
    const held = all.filter((e) => e.fold % folds === fold);
    if (held.length === 0) continue;
    const model = trainLogistic(all.filter((e) => e.fold % folds !== fold).map(textExample));
    for (const e of held) out.push({ e, s: scoreOf(model, e, catalogue, rules) });
  }
  return out;
}

/** Folds the service's stacker is calibrated on (the evaluation uses all foldCount). */
const serviceFolds = 2;

const stackerOf = (points: { s: ItemScore; relevant: boolean }[]) => fitItemStacker(points.map((p) => ({ x: p.s.x, relevant: p.relevant })));

export function trainItems(catalogue: Catalogue, all: ItemExample[] = itemExamples(), folds = serviceFolds, rules?: readonly RuleFamily[]): TrainedItems {
  const oof = outOfFoldItems(all, catalogue, folds, rules).map(({ e, s }) => ({ s, relevant: e.labelled.relevant }));
  return {
    model: trainLogistic(all.map(textExample)),
    stacker: stackerOf(oof),
    typer: trainItemTyper(all),
  };
}

/** Each fold's probabilities from a stacker fitted on the other folds' out-of-fold scores only. */
export function crossValidatedItems(
  catalogue: Catalogue,
  all: ItemExample[] = itemExamples(),
  rules?: readonly RuleFamily[],
): { e: ItemExample; s: ItemScore; p: number }[] {
  const oof = outOfFoldItems(all, catalogue, foldCount, rules);
  const results: { e: ItemExample; s: ItemScore; p: number }[] = [];
  for (let fold = 0; fold < foldCount; fold++) {
    const stacker = stackerOf(oof.filter((o) => o.e.fold !== fold).map((o) => ({ s: o.s, relevant: o.e.labelled.relevant })));
    for (const o of oof.filter((x) => x.e.fold === fold)) results.push({ ...o, p: probabilityOf({ stacker }, o.s) });
  }
  return results;
}

/**
 * The frozen test split (item-split.ts) scored as the service would score items it never saw:
 * model and stacker trained on the other items only, the stacker on their out-of-fold scores.
 */
export function frozenSplitItems(
  catalogue: Catalogue,
  all: ItemExample[] = itemExamples(),
  rules?: readonly RuleFamily[],
): { e: ItemExample; s: ItemScore; p: number }[] {
  const train = all.filter((e) => !inTestSplit(e.labelled));
  const trained = trainItems(catalogue, train, foldCount, rules);
  return all
    .filter((e) => inTestSplit(e.labelled))
    .map((e) => {
      const s = scoreOf(trained.model, e, catalogue, rules);
      return { e, s, p: probabilityOf(trained, s) };
    });
}

/**
 * The probability from which a press item is served. The stacker's probability stays calibrated;
 * only the bar moves: press is about a tenth of what the press sources publish, so 0.5 served only
 * the sure half of it. Chosen on the development folds' out-of-fold probabilities, never the
 * frozen split (npm run eval -- --threshold prints the sweep): the top end of the range within
 * 0.01 of the highest press F1, where fewer items with no AI evidence at all are served. Research
 * and ATLAS case studies (pressOf 0) keep 0.5: lowered for them too, arXiv's near misses cost
 * research precision that press recall does not pay back.
 */
export const pressThreshold = 0.34;
/** Every other decision's threshold: advisories, research, ATLAS case studies. */
export const defaultThreshold = 0.5;

/** The threshold a text item's score is served at (pressThreshold for press, else defaultThreshold). */
export const thresholdOf = (s: Pick<ItemScore, 'press'>) => (s.press ? pressThreshold : defaultThreshold);

function probabilityOf(t: Pick<TrainedItems, 'stacker'>, s: ItemScore): number {
  return sigmoid(stackedItemLogit(t.stacker, s.x));
}

export interface ItemDecision {
  probability: number;
  /** Served at or above this probability (thresholdOf). */
  threshold: number;
  modelScore: number;
  reasons: Evidence[];
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The reasons as provenance shows them, strongest first, each in the stacker's log-odds; a missing side says so. */
export function itemReasons(t: Pick<TrainedItems, 'stacker'>, s: ItemScore): Evidence[] {
  // The two sides' joint input (x[5]) has no evidence of its own: it weighs the concern evidence.
  const [, modelBoth = 0, modelOne = 0, ai = 0, concern = 0, bait = 0, both = 0, , pressModel = 0, pressBoth = 0] = t.stacker.weights;
  const model = (s.x[1] === 0 ? modelBoth : modelOne) + s.press * pressModel;
  const reasons: Evidence[] = [
    ...s.ai.map((e) => ({ ...e, weight: round(e.weight * ai) })),
    ...s.concern.map((e) => ({ ...e, weight: round(e.weight * (e.kind === 'tool-or-bait' ? bait : concern + (s.x[5] ? both + s.press * pressBoth : 0))) })),
    { kind: 'model' as const, detail: s.modelTop.join(' '), weight: round(model * s.modelLogit) },
  ];
  if (sum(s.ai) <= evidenceWeights.domainFirst / 2) reasons.push({ kind: 'missing', detail: 'nothing says the item is about an AI/ML system', weight: 0 });
  if (!s.concern.some((e) => e.kind !== 'tool-or-bait'))
    reasons.push({ kind: 'missing', detail: 'nothing says the item is about security, privacy or safety', weight: 0 });
  return reasons.sort((a, b) => Math.abs(b.weight) - Math.abs(a.weight));
}

export function decideItem(t: TrainedItems, item: Item, catalogue: Catalogue, vendors: string[]): ItemDecision {
  const s = scored(scoreModel(t.model, itemFeatures(item)), twoSided(item, catalogue, vendors), ruleFamilies, pressOf(item));
  const [b0 = 0, modelBoth = 0, modelOne = 0, , , , , gate = 0, pressModel = 0] = t.stacker.weights;
  return {
    probability: probabilityOf(t, s),
    threshold: thresholdOf(s),
    modelScore: sigmoid(b0 + (s.x[6] ? gate + modelBoth * s.modelLogit : modelOne * s.modelLogit) + s.press * pressModel * s.modelLogit),
    reasons: itemReasons(t, s),
  };
}

/** Research in an abstract's own voice, or on a preprint or proceedings host. */
const researchVoice =
  /\b(we (propose|present|introduce|show|study|demonstrate|evaluate|investigate|find|develop|design)|this (paper|work|study)|in this (paper|work)|our (method|approach|framework|results|experiments))\b/i;
const researchHosts = /(^|\.)(arxiv\.org|openreview\.net|aclanthology\.org|proceedings\.\w+|usenix\.org|dl\.acm\.org|ieeexplore\.ieee\.org)$/i;

/**
 * A press item: neither research (a paper's hint, voice or host) nor a curated case study that
 * names MITRE ATLAS techniques, which is a long report the press items' slopes were not fitted on.
 */
const pressOf = (item: Item) => (isResearch(item) || item.atlasHints.length > 0 ? 0 : 1);

function isResearch(item: Item): boolean {
  if (item.sourceHints?.issueType === 'research') return true;
  let host = '';
  try {
    host = new URL(item.url).hostname;
  } catch {
    /* no host to go on */
  }
  return researchHosts.test(host) || researchVoice.test(plainText(item.details));
}

/**
 * The issue type of a text item: research in an abstract's voice or on a paper's host, else the
 * learned typer's regulatory, incident or news. The source's hint (an arXiv listing is research)
 * is taken before this (rules.ts).
 */
export function textItemType(item: Item, typer: ItemTyper): 'research' | PressType {
  if (isResearch(item)) return 'research';
  return typeOf(typer, typerFeatures(item)).type;
}
