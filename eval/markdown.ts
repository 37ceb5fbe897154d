// The Markdown both evaluations print: figures to three places, the metrics table, the misses table.
import type { Metrics, Miss } from '../src/ingest/classifier/evaluate.js';

export const pct = (x: number) => x.toFixed(3);

export const cell = (s: string) => s.replace(/\|/g, '\\|');

export const metricsHeader = ['| evaluation | examples | TP | FP | FN | TN | recall | precision | F1 | Brier |', '|---|---|---|---|---|---|---|---|---|---|'];

export const metricRow = (name: string, m: Metrics) =>
  `| ${name} | ${m.n} | ${m.tp} | ${m.fp} | ${m.fn} | ${m.tn} | ${pct(m.recall)} | ${pct(m.precision)} | ${pct(m.f1)} | ${pct(m.brier)} |`;

/** How many misses a table shows: the strongest; the counts above it cover them all. */
export const shownMisses = 5;

/** `Misclassified (73; 10 shown)`: a table's count of misses and how many of them it lists. */
export const missCount = (n: number) => `${n}; ${Math.min(n, shownMisses)} shown`;

export const missRows = (misses: Miss[]) => [
  '| id | package | label | p(relevant) | evidence |',
  '|---|---|---|---|---|',
  ...misses.map((x) => `| ${x.id} | ${cell(x.package)} | ${x.expected ? 'relevant' : 'not relevant'} | ${pct(x.probability)} | ${cell(x.evidence)} |`),
];
