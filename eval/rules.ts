// npm run eval -- --rules: what each family of hand-written rules earns on held-out sources. The
// development folds (never the frozen split) are scored with every family, without each one in
// turn, and with none: the text model and its stacker alone.
import { defaultCatalogue } from '../src/ingest/classifier/catalogue.js';
import { metrics } from '../src/ingest/classifier/evaluate.js';
import { inTestSplit, isPress } from '../src/ingest/classifier/item-split.js';
import { outcome } from '../src/ingest/classifier/item-evaluate.js';
import { crossValidatedItems, itemExamples, type RuleFamily, ruleFamilies } from '../src/ingest/classifier/items.js';
import { metricRow, metricsHeader } from './markdown.js';

export function ruleLines(): string[] {
  const catalogue = defaultCatalogue();
  const dev = itemExamples().filter((e) => !inTestSplit(e.labelled));
  const variants: [string, RuleFamily[]][] = [
    ['every rule family', [...ruleFamilies]],
    ...ruleFamilies.map((f): [string, RuleFamily[]] => [`without ${f}`, ruleFamilies.filter((g) => g !== f)]),
    ['no rules (text model alone)', []],
  ];
  const all: string[] = [];
  const press: string[] = [];
  for (const [name, rules] of variants) {
    const cv = crossValidatedItems(catalogue, dev, rules);
    all.push(metricRow(name, metrics(cv.map(outcome))));
    press.push(metricRow(name, metrics(cv.filter((r) => isPress(r.e.labelled.source)).map(outcome))));
  }
  return ['Development folds, all items:', '', ...metricsHeader, ...all, '', 'Development folds, press items:', '', ...metricsHeader, ...press];
}
