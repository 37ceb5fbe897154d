// npm run eval -- --threshold: how the press threshold (pressThreshold, items.ts) was chosen. The
// development folds' out-of-fold probabilities (never the frozen split) served from each threshold
// in turn; the press items' figures, and the threshold of highest press F1.
import { defaultCatalogue } from '../src/ingest/classifier/catalogue.js';
import { metrics } from '../src/ingest/classifier/evaluate.js';
import { inTestSplit, isPress } from '../src/ingest/classifier/item-split.js';
import { crossValidatedItems, defaultThreshold, itemExamples, pressThreshold } from '../src/ingest/classifier/items.js';
import { metricRow, metricsHeader } from './markdown.js';

export function thresholdLines(): string[] {
  const dev = itemExamples().filter((e) => !inTestSplit(e.labelled));
  const press = crossValidatedItems(defaultCatalogue(), dev).filter((r) => isPress(r.e.labelled.source));
  // Press items the service scores as research or case studies keep defaultThreshold, as it serves them.
  const at = (t: number) => metrics(press.map((r) => ({ relevant: r.e.labelled.relevant, p: r.p, served: r.p >= (r.s.press ? t : defaultThreshold) })));
  const grid = Array.from({ length: 41 }, (_, i) => Math.round((0.5 - i * 0.01) * 100) / 100);
  const best = grid.reduce((b, t) => (at(t).f1 > at(b).f1 ? t : b));
  return [
    `Development folds, press items, served from each threshold (highest press F1 at ${best}; the service's pressThreshold is ${pressThreshold}):`,
    '',
    ...metricsHeader,
    ...grid.filter((t) => Math.round(t * 100) % 5 === 0 || t === best).map((t) => metricRow(`from ${t.toFixed(2)}`, at(t))),
  ];
}
