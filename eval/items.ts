// The text items' part of npm run eval, as Markdown (src/ingest/classifier/item-evaluate.ts).
import type { ItemEvaluation, ItemSection } from '../src/ingest/classifier/item-evaluate.js';
import { cell, metricRow, metricsHeader, missCount, pct, shownMisses } from './markdown.js';

/** `first`: the first section explains its columns; the second only names them. */
const sectionLines = (title: string, s: ItemSection, first: boolean) => [
  `### ${title}`,
  '',
  `${s.overall.n} items (${s.publishers} press publishers). issueType right on ${s.typed.right} of ${s.typed.of} served in-scope items (${pct(s.typed.right / (s.typed.of || 1))}).`,
  '',
  ...metricsHeader,
  metricRow(s.name, s.overall),
  metricRow('press only', s.press),
  '',
  first
    ? 'By kind: recall over the in-scope items of the kind, precision over the served items the service typed as the kind, Brier over the items of the kind, issueType accuracy on its served in-scope items.'
    : 'By kind:',
  '',
  '| kind | items | in scope | found | typed as it | of them in scope | recall | precision | F1 | Brier | issueType |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...s.byKind.map(
    (k) =>
      `| ${k.kind} | ${k.items} | ${k.inScope} | ${k.found} | ${k.typed} | ${k.typedInScope} | ${pct(k.recall)} | ${pct(k.precision)} | ${pct(k.f1)} | ${pct(k.brier)} | ${k.found ? `${pct(k.typeRight / k.found)} (${k.typeRight}/${k.found})` : '-'} |`,
  ),
  '',
  'By source:',
  '',
  ...metricsHeader,
  ...s.bySource.map((r) => metricRow(cell(r.name), r.metrics)),
  '',
  'By group (docs/curation.md): how many were served.',
  '',
  '| group | items | served |',
  '|---|---|---|',
  ...s.groups.map((g) => `| ${g.group} | ${g.n} | ${g.served} |`),
  '',
  ...(first
    ? [
        `Misclassified (${missCount(s.misses.length)}), with the evidence, strongest first:`,
        '',
        '| source | title | group | label | p(relevant) | evidence |',
        '|---|---|---|---|---|---|',
        ...s.misses
          .slice(0, shownMisses)
          .map(
            (m) =>
              `| ${cell(m.source)} | [${cell(m.title.slice(0, 90))}](${m.link}) | ${m.group} | ${m.expected ? 'in scope' : 'out'} | ${pct(m.probability)} | ${cell(m.evidence)} |`,
          ),
        '',
      ]
    : []),
];

export function itemLines(e: ItemEvaluation): string[] {
  return [
    '## Text items (news, research, regulation, incidents)',
    '',
    `${e.items} labelled items from ${e.sources} sources (data/labelled-items). The frozen test split (src/ingest/classifier/item-split.ts) comes first: nothing was tuned on it. The development folds cover the other items, grouped by source.`,
    '',
    ...sectionLines('Frozen test split', e.frozen, true),
    ...sectionLines('Development folds', e.folds, false),
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
  ];
}
