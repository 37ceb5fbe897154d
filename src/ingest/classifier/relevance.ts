// Is the item about AI/ML/LLM software? The catalogue and the rules (evidence.ts) and the learned
// text model (model.ts) each give log-odds; a stacker fitted on out-of-fold scores (training.ts)
// turns them into a calibrated probability. The evidence that decided is kept with the issue.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Item } from '../item.js';
import { catalogueFiles, defaultCatalogue, type Catalogue, type CatalogueEntry } from './catalogue.js';
import { crosswalkUrl } from './crosswalk.js';
import type { Evidence } from './evidence.js';
import { decideItem, defaultThreshold, isTextItem, labelledItemsUrl, readItemExamples, trainItems, type TrainedItems } from './items.js';
import { cachedItems } from './item-cache.js';
import { gazetteerUrl } from './item-features.js';
import { scoreText } from './model.js';
import { readTrainingExamples, scoreItem, sigmoid, stackedLogit, trainRelevance, type Example, type TrainedRelevance } from './training.js';

/** Bump when the rules' code changes; data changes (catalogue, cross-walk, examples) change the hash by themselves. */
const rulesVersion = '3.5.0';

export interface Provenance {
  /** classifierPromptVersion of the classifier that decided. */
  version: string;
  relevant: boolean;
  /** Calibrated probability that the item is about AI/ML software. */
  probability: number;
  /** The text model's own calibrated probability, before the rules. */
  modelScore: number;
  /** The evidence, strongest first; `model` carries the words that moved the model most. */
  reasons: Evidence[];
}

export interface RelevanceDecision extends Provenance {
  /** Catalogue entries the item's packages and repositories matched (component, LLM category). */
  entries: CatalogueEntry[];
}

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

export class RelevanceJudge {
  constructor(
    readonly trained: TrainedRelevance,
    readonly catalogue: Catalogue,
    readonly version: string,
    /** The text items' model (items.ts); without it, text items are judged as advisories are. */
    readonly items?: TrainedItems,
  ) {}

  /** `lookedUp`: registry summaries found for the item's packages (Catalogue.lookedUp). */
  decide(item: Item, vendors: string[], lookedUp?: ReadonlyMap<string, string>): RelevanceDecision {
    if (this.items && isTextItem(item)) {
      const decided = decideItem(this.items, item, this.catalogue, vendors);
      const probability = round(decided.probability);
      return {
        version: this.version,
        relevant: probability >= decided.threshold,
        probability,
        modelScore: round(decided.modelScore),
        reasons: decided.reasons,
        entries: [],
      };
    }
    const { stacker, model } = this.trained;
    const catalogue = lookedUp?.size ? { ...this.catalogue, lookedUp } : this.catalogue;
    const scored = scoreItem(item, scoreText(model, item), catalogue, vendors);
    const probability = sigmoid(stackedLogit(stacker, scored));
    const modelScore = sigmoid(stacker.b0 + stacker.b1 * scored.modelLogit);
    const reasons: Evidence[] = [
      ...scored.evidence.map((e) => ({ ...e, weight: round(e.weight * stacker.b2, 2) })),
      { kind: 'model' as const, detail: scored.modelTop.join(' '), weight: round(stacker.b1 * scored.modelLogit, 2) },
    ].sort((a, b) => Math.abs(b.weight) - Math.abs(a.weight));
    return {
      version: this.version,
      relevant: probability >= defaultThreshold,
      probability: round(probability),
      modelScore: round(modelScore),
      reasons,
      entries: scored.entries,
    };
  }
}

/** A short hash of everything the decision is made from, so any change is a new version. */
function dataHash(examples: Example[]): string {
  const hash = createHash('sha256').update(rulesVersion);
  for (const file of catalogueFiles) hash.update(readFileSync(file));
  hash.update(readFileSync(crosswalkUrl));
  for (const e of examples) hash.update(`${e.id}:${e.relevant}\n`);
  hash.update(readFileSync(labelledItemsUrl));
  hash.update(readFileSync(gazetteerUrl));
  return hash.digest('hex').slice(0, 8);
}

let judge: RelevanceJudge | undefined;
/** Trained on first use, deterministically, from the project's own data; the text items' model is kept between processes (item-cache.ts). */
export function defaultJudge(): RelevanceJudge {
  if (!judge) {
    const examples = readTrainingExamples();
    const version = `rules-${rulesVersion}+${dataHash(examples)}`;
    judge = new RelevanceJudge(
      trainRelevance(examples),
      defaultCatalogue(),
      version,
      cachedItems(version, () => trainItems(defaultCatalogue(), readItemExamples())),
    );
  }
  return judge;
}
