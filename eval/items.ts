// The text items' part of npm run eval, as Markdown (src/ingest/classifier/item-evaluate.ts).
import type { ItemEvaluation, ItemRow } from '../src/ingest/classifier/item-evaluate.js';
import { cell, pct } from './markdown.js';

const rowLine = (r: ItemRow) =>
  `| ${cell(r.name)} | ${r.metrics.n} | ${r.metrics.tp} | ${r.metrics.fp} | ${r.metrics.fn} | ${r.metrics.tn} | ${pct(r.metrics.recall)} | ${pct(r.metrics.precision)} | ${pct(r.metrics.brier)} | ${r.typed.of ? `${pct(r.typed.right / r.typed.of)} (${r.typed.right}/${r.typed.of})` : '-'} |`;

export function itemLines(e: ItemEvaluation): string[] {
  const header = ['| items | n | TP | FP | FN | TN | recall | precision | Brier | issueType accuracy (served) |', '|---|---|---|---|---|---|---|---|---|---|'];
  return [
    '## Text items (news, research, regulation, incidents)',
    '',
    `${e.items} labelled items from ${e.sources} sources (data/labelled-items); folds grouped by source, so no feed is on both sides of a fold. A fold's model and stacker never saw the held-out sources.`,
    '',
    ...header,
    rowLine(e.overall),
    '',
    'By kind:',
    '',
    ...header,
    ...e.byKind.map(rowLine),
    '',
    'By source:',
    '',
    ...header,
    ...e.bySource.map(rowLine),
    '',
    'By group (docs/curation.md): how many the folds served.',
    '',
    '| group | items | served |',
    '|---|---|---|',
    ...e.groups.map((g) => `| ${g.group} | ${g.n} | ${g.served} |`),
    '',
    'Per-field check of the service classifier on the labelled in-scope items:',
    '',
    '| field | right | of | accuracy | some disagreements (expected -> said) |',
    '|---|---|---|---|---|',
    ...e.fields.map(
      (f) =>
        `| ${f.field} | ${f.right} | ${f.of} | ${f.of ? pct(f.right / f.of) : '-'} | ${cell(
          f.wrong
            .slice(0, 4)
            .map((w) => `${w.link}: ${w.expected} -> ${w.said}`)
            .join('; ') || '-',
        )} |`,
    ),
    '',
    `Misclassified (${e.misses.length}), with the evidence, strongest first:`,
    '',
    '| source | title | group | label | p(relevant) | evidence |',
    '|---|---|---|---|---|---|',
    ...e.misses.map(
      (m) =>
        `| ${cell(m.source)} | [${cell(m.title.slice(0, 90))}](${m.link}) | ${m.group} | ${m.expected ? 'in scope' : 'out'} | ${pct(m.probability)} | ${cell(m.evidence)} |`,
    ),
  ];
}
