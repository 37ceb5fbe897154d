// Relevance of text items: news, research, regulation and incidents (native items with no package),
// which have no package, repository or CWE to go on. Two kinds of evidence must both be present,
// that the item is about AI/ML systems (evidence.ts) and that it is about their security, privacy
// or safety (concernTerms): neither alone serves an item. Among items with both, a text model
// trained on data/labelled-items (words and word pairs, model.ts) tells an attack on an AI system
// from AI used as a defence, an AI brand used as a lure or an LLM paper on caching; a stacker
// fitted on out-of-fold scores, folds grouped by source, calibrates the probability.
// The concern must be about the AI system, so words with a second sense in abstracts ("exploit",
// "safety", a bare "attack") count only in the title or beside a specific one, AI named only in the
// body weighs half, and AI as the defender's tool or a lure's bait counts against.
// docs/curation.md is the policy; eval/README.md has the figures.
import { readFileSync } from 'node:fs';
import type { Item, SourceHints } from '../item.js';
import { parseEntry } from '../parse.js';
import type { Catalogue } from './catalogue.js';
import { collectEvidence, type Evidence } from './evidence.js';
import { features, scoreModel, scoreText, trainLogistic, type TextModel, type TextScore } from './model.js';
import { aiTerms, concernTerms, evidenceWeights, itemAiTerms, toolOrBait } from './tables.js';
import { plainText } from './text.js';
import { inTestSplit } from './item-split.js';
import { fitStacker, sigmoid, stackedLogit, type Stacker } from './training.js';

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

/** Function words carry the length and register of a text (an abstract, a headline), not its subject. */
const functionWords = new Set('to of in on an at by as or is it be we our us if so no do up its than then into over under about between through'.split(' '));
const itemFeatures = (item: Item) =>
  features(item).filter(
    (f) =>
      !(f.startsWith('w:') && (f.length <= 4 || functionWords.has(f.slice(2)))) &&
      !(
        f.startsWith('b:') &&
        f
          .slice(2)
          .split(' ')
          .some((w) => functionWords.has(w))
      ),
  );

let examples: ItemExample[] | undefined;
export function itemExamples(): ItemExample[] {
  if (examples) return examples;
  const labelled = JSON.parse(readFileSync(labelledItemsUrl, 'utf8')) as LabelledItem[];
  const arxivSources = [...new Set(labelled.map((l) => l.source).filter((s) => s.startsWith('arxiv-')))].sort();
  examples = labelled.map((l) => {
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

export interface ItemScore {
  modelLogit: number;
  modelTop: string[];
  ai: Evidence[];
  concern: Evidence[];
  /** The weaker side's evidence: what the stacker weighs, zero when either side is missing. */
  both: number;
}

function scored(text: TextScore, sides: TwoSided): ItemScore {
  // AI as the defender's tool or the lure's bait is out of scope whatever else the item says.
  const toolOrBait = sides.concern.some((e) => e.kind === 'tool-or-bait');
  // One weak word at half weight (a domain word only in the body, or "adversarial attacks" alone) is no evidence of AI.
  const ai = sum(sides.ai);
  return {
    modelLogit: text.logit,
    modelTop: text.top,
    ...sides,
    both: toolOrBait || ai <= evidenceWeights.domainFirst / 2 ? 0 : Math.max(0, Math.min(ai, sum(sides.concern))),
  };
}

export interface TrainedItems {
  model: TextModel;
  stacker: Stacker;
  /** The share of relevant items among labelled items that lack one side: their calibrated probability. */
  oneSided: number;
}

const asPoint = (s: ItemScore, relevant: boolean) => ({ modelLogit: s.modelLogit, evidenceSum: s.both, relevant });

/**
 * Every labelled item scored by a model that never saw its source. `folds` below foldCount merges
 * source folds (fold % folds): the service calibrates on three, at a third of the evaluation's cost.
 */
export function outOfFoldItems(all: ItemExample[] = itemExamples(), catalogue: Catalogue, folds = foldCount): { e: ItemExample; s: ItemScore }[] {
  const out: { e: ItemExample; s: ItemScore }[] = [];
  for (let fold = 0; fold < folds; fold++) {
    const held = all.filter((e) => e.fold % folds === fold);
    if (held.length === 0) continue;
    const model = trainLogistic(all.filter((e) => e.fold % folds !== fold).map((e) => ({ features: e.features, relevant: e.labelled.relevant })));
    for (const e of held) out.push({ e, s: scored(scoreModel(model, e.features), twoSided(e.item, catalogue, [])) });
  }
  return out;
}

const oneSidedRate = (points: { s: ItemScore; relevant: boolean }[]) => {
  const out = points.filter((p) => p.s.both <= 0);
  return (out.filter((p) => p.relevant).length + 1) / (out.length + 2);
};

/** Folds the service's stacker is calibrated on (the evaluation uses all foldCount). */
const serviceFolds = 2;

export function trainItems(catalogue: Catalogue, all: ItemExample[] = itemExamples(), folds = serviceFolds): TrainedItems {
  const oof = outOfFoldItems(all, catalogue, folds).map(({ e, s }) => ({ s, relevant: e.labelled.relevant }));
  return {
    model: trainLogistic(all.map((e) => ({ features: e.features, relevant: e.labelled.relevant }))),
    stacker: fitStacker(oof.filter((p) => p.s.both > 0).map((p) => asPoint(p.s, p.relevant))),
    oneSided: oneSidedRate(oof),
  };
}

/** Each fold's probabilities from a stacker fitted on the other folds' out-of-fold scores only. */
export function crossValidatedItems(catalogue: Catalogue, all: ItemExample[] = itemExamples()): { e: ItemExample; s: ItemScore; p: number }[] {
  const oof = outOfFoldItems(all, catalogue);
  const results: { e: ItemExample; s: ItemScore; p: number }[] = [];
  for (let fold = 0; fold < foldCount; fold++) {
    const rest = oof.filter((o) => o.e.fold !== fold).map((o) => ({ s: o.s, relevant: o.e.labelled.relevant }));
    const stacker = fitStacker(rest.filter((p) => p.s.both > 0).map((p) => asPoint(p.s, p.relevant)));
    const oneSided = oneSidedRate(rest);
    for (const o of oof.filter((x) => x.e.fold === fold)) results.push({ ...o, p: probabilityOf({ stacker, oneSided }, o.s) });
  }
  return results;
}

/**
 * The frozen test split (item-split.ts) scored as the service would score items it never saw:
 * model and stacker trained on the other items only, the stacker on their out-of-fold scores.
 */
export function frozenSplitItems(catalogue: Catalogue, all: ItemExample[] = itemExamples()): { e: ItemExample; s: ItemScore; p: number }[] {
  const train = all.filter((e) => !inTestSplit(e.labelled));
  const trained = trainItems(catalogue, train, foldCount);
  return all
    .filter((e) => inTestSplit(e.labelled))
    .map((e) => {
      const s = scored(scoreModel(trained.model, e.features), twoSided(e.item, catalogue, []));
      return { e, s, p: probabilityOf(trained, s) };
    });
}

function probabilityOf(t: Pick<TrainedItems, 'stacker' | 'oneSided'>, s: ItemScore): number {
  return s.both > 0 ? sigmoid(stackedLogit(t.stacker, { modelLogit: s.modelLogit, evidenceSum: s.both })) : t.oneSided;
}

export interface ItemDecision {
  probability: number;
  modelScore: number;
  reasons: Evidence[];
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The reasons as provenance shows them, strongest first; a missing side says so. */
export function itemReasons(t: Pick<TrainedItems, 'stacker'>, s: ItemScore): Evidence[] {
  const { stacker } = t;
  const reasons: Evidence[] = [
    ...s.ai.map((e) => ({ ...e, weight: round(e.weight * stacker.b2) })),
    ...s.concern.map((e) => ({ ...e, weight: round(e.weight * stacker.b2) })),
    { kind: 'model' as const, detail: s.modelTop.join(' '), weight: round(stacker.b1 * s.modelLogit) },
  ];
  if (sum(s.ai) <= evidenceWeights.domainFirst / 2) reasons.push({ kind: 'missing', detail: 'nothing says the item is about an AI/ML system', weight: 0 });
  if (!s.concern.some((e) => e.kind !== 'tool-or-bait'))
    reasons.push({ kind: 'missing', detail: 'nothing says the item is about security, privacy or safety', weight: 0 });
  return reasons.sort((a, b) => Math.abs(b.weight) - Math.abs(a.weight));
}

export function decideItem(t: TrainedItems, item: Item, catalogue: Catalogue, vendors: string[]): ItemDecision {
  const s = scored(scoreText(t.model, item), twoSided(item, catalogue, vendors));
  return {
    probability: probabilityOf(t, s),
    modelScore: sigmoid(t.stacker.b0 + t.stacker.b1 * s.modelLogit),
    reasons: itemReasons(t, s),
  };
}

/** Research in an abstract's own voice, or on a preprint or proceedings host. */
const researchVoice =
  /\b(we (propose|present|introduce|show|study|demonstrate|evaluate|investigate|find|develop|design)|this (paper|work|study)|in this (paper|work)|our (method|approach|framework|results|experiments))\b/i;
const researchHosts = /(^|\.)(arxiv\.org|openreview\.net|aclanthology\.org|proceedings\.\w+|usenix\.org|dl\.acm\.org|ieeexplore\.ieee\.org)$/i;
/** A law, a regulator's act, or guidance from a government or standards body. */
const regulationWords =
  /\b(ai act|act on|(ai |the )?(law|laws|bill|bills|legislation|regulations?|rules?|directive|executive order|code of practice)\b|regulators?|regulatory|watchdog|attorneys? general|ftc|fcc|nist|ncsc|enisa|cnil|ico\b|data protection (authority|board)|(issues?|publishes?|released?|releases) (joint )?(guidance|guidelines|framework|standard)|guidance|guidelines|fined?|fines|vetoe?s|sign(s|ed)? into law|ban(s|ned)? (on )?|probe|investigat\w*|complaint|violat\w*|compliance)/i;
/** A concrete event: something was exploited, leaked, stolen or harmed someone. */
const incidentWords =
  /\b(breach(es|ed)?|leak(s|ed)?|exposed|exposes|exploited|hacked|compromised|stole|stolen|wiped|deleted|scam(s|med)?|swindl\w*|tricked|fooled|victims?|went rogue|goes rogue|actively exploited|exploited in the wild|in the wild|abused|misused|weaponi[sz]ed|banned .{0,30}accounts|bans .{0,30}accounts|disrupt\w* .{0,40}(operations|campaigns|accounts)|pays? out|lost|died|suicide)\b/i;
const accountBans = /\b(bans?|banned|disrupts?|disrupted|removes?|removed|blocks?|blocked) .{0,40}\baccounts\b/i;
const researchNews = /\b(researchers?|study|studies|paper|academics|report finds|proof[- ]of[- ]concept|demonstrat\w*)\b/i;

/**
 * The issue type of a text item from its own words: research in an abstract's voice or on a
 * paper's host, regulation, an incident, or news. The source's hint (an arXiv listing is
 * research) is taken before this (rules.ts).
 */
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

export function textItemType(item: Item): 'research' | 'regulatory' | 'incident' | 'news' {
  if (isResearch(item)) return 'research';
  // A vendor banning abusers' accounts is an event, not a regulator's ban.
  if (accountBans.test(item.title)) return 'incident';
  if (regulationWords.test(item.title)) return 'regulatory';
  if (incidentWords.test(item.title) && !researchNews.test(item.title)) return 'incident';
  return 'news';
}
