// npm run eval -- --dev-only: the development folds alone (never the frozen split), overall and
// press, without the frozen split's training, the advisories or the per-field check: the quick
// measurement of a feature or training change. Press also gets its average precision, a figure
// of the ranking that no threshold moves, and issueType accuracy on the served in-scope items,
// each fold typed by a typer trained on the other folds, as the full evaluation counts it.
import { defaultCatalogue } from '../src/ingest/classifier/catalogue.js';
import { metrics } from '../src/ingest/classifier/evaluate.js';
import { devFoldTypers, issueTypes, outcome, typeAccuracy } from '../src/ingest/classifier/item-evaluate.js';
import { inTestSplit, isPress } from '../src/ingest/classifier/item-split.js';
import { crossValidatedItems, itemExamples } from '../src/ingest/classifier/items.js';
import { metricRow, metricsHeader, pct } from './markdown.js';

/** Average precision: the mean of the precision at each relevant item, items ranked by probability. */
export function averagePrecision(rows: { relevant: boolean; p: number }[]): number {
  const ranked = [...rows].sort((a, b) => b.p - a.p);
  let found = 0;
  let sum = 0;
  ranked.forEach((r, i) => {
    if (!r.relevant) return;
    found++;
    sum += found / (i + 1);
  });
  return sum / (found || 1);
}

export async function devLines(): Promise<string[]> {
  const started = performance.now();
  const dev = itemExamples().filter((e) => !inTestSplit(e.labelled));
  const cv = crossValidatedItems(defaultCatalogue(), dev);
  const press = cv.filter((r) => isPress(r.e.labelled.source));
  const typers = devFoldTypers(dev);
  const typed = typeAccuracy(cv, await issueTypes(cv, (e) => typers[e.fold]!));
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const share = (t: { right: number; of: number }) => `${pct(t.right / (t.of || 1))} (${t.right}/${t.of})`;
  return [
    `Development folds only (${dev.length} items; ${seconds} s):`,
    '',
    ...metricsHeader,
    metricRow('all items', metrics(cv.map(outcome))),
    metricRow('press only', metrics(press.map(outcome))),
    '',
    `Press average precision (ranking): ${pct(averagePrecision(press.map((r) => ({ relevant: r.e.labelled.relevant, p: r.p }))))}`,
    '',
    `issueType on served in-scope items: ${share(typed)}; ${typed.byKind.map((k) => `${k.kind} ${share(k)}`).join(', ')}`,
  ];
}
