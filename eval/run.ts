// npm run eval: grouped cross-validation of the relevance decision (advisories by package, text
// items by source), printed as Markdown.
// npm run eval -- --write: also written to eval/README.md (the part between the markers; the
// prose around it is kept), to commit with the classifier change it measures.
// npm run eval -- --osv <dir|zip> [--labels <csv>] [--unserved]: the classifier over other
// advisories instead (eval/corpus.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { evaluate } from '../src/ingest/classifier/evaluate.js';
import { evaluateItems } from '../src/ingest/classifier/item-evaluate.js';
import { defaultJudge } from '../src/ingest/classifier/relevance.js';
import { outOfScopeSample } from '../src/ingest/classifier/training.js';
import { printCorpus } from './corpus.js';
import { itemLines } from './items.js';
import { ruleLines } from './rules.js';
import { thresholdLines } from './threshold.js';
import { devLines } from './dev.js';
import { severityFloor, severityLines } from './severity.js';
import { metricRow, metricsHeader, missCount, missRows, pct, shownMisses } from './markdown.js';

const usage = `usage: npm run eval [-- --write]
       npm run eval -- --rules
       npm run eval -- --threshold
       npm run eval -- --dev-only
       npm run eval -- --osv <dir|zip> [--labels <csv>] [--unserved]

  (no options)  grouped cross-validation of the relevance decision, printed as Markdown
  --write       also write the figures into eval/README.md (between its eval markers)
  --osv         judge the OSV records of a directory or zip instead (eval/corpus.ts)
  --labels      a CSV of id,relevant labels for --osv
  --unserved    with --osv, list the records the classifier would not serve
  --rules       what each family of text-item rules earns on the development folds
  --threshold   press figures on the development folds from each serving threshold
  --dev-only    the development folds' figures alone (all items, press, issueType), the quick measurement`;
const { values: args } = (() => {
  try {
    return parseArgs({
      options: {
        osv: { type: 'string' },
        labels: { type: 'string' },
        unserved: { type: 'boolean', default: false },
        write: { type: 'boolean', default: false },
        rules: { type: 'boolean', default: false },
        threshold: { type: 'boolean', default: false },
        'dev-only': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${usage}`);
    process.exit(1);
  }
})();
if (args.help) {
  console.log(usage);
  process.exit(0);
}
if (args.osv) await printCorpus(args.osv, args.labels, args.unserved);
else if (args.rules) console.log(ruleLines().join('\n'));
else if (args.threshold) console.log(thresholdLines().join('\n'));
else if (args['dev-only']) console.log((await devLines()).join('\n'));
else await writeFolds();

async function writeFolds() {
  const started = performance.now();
  const e = evaluate();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const severity = await severityLines();
  if (severity.agreement < severityFloor) process.exitCode = 1;
  const reliabilityRows = (r: typeof e.reliability) => [
    '| probability | examples | mean predicted | share relevant |',
    '|---|---|---|---|',
    ...r.map((b) => `| ${b.bin} | ${b.n} | ${b.n ? pct(b.predicted) : '-'} | ${b.n ? pct(b.observed) : '-'} |`),
  ];

  const otherView = (title: string, v: typeof e.blind) => [
    `### ${title}`,
    '',
    'Reliability (out-of-fold probabilities):',
    '',
    ...reliabilityRows(v.reliability),
    '',
    `Misclassified (${missCount(v.misses.length)}):`,
    '',
    ...missRows(v.misses.slice(0, shownMisses)),
    '',
    `Near misses (${missCount(v.nearMisses.length)}):`,
    '',
    ...missRows(v.nearMisses.slice(0, shownMisses)),
    '',
  ];

  const lines = [
    `Classifier version \`${defaultJudge().version}\`; ${e.groups} package groups, leave-one-group-out; ${seconds} s on this machine (all three evaluations).`,
    '',
    ...metricsHeader,
    metricRow('grouped (main)', e.metrics),
    metricRow('registry lookup', e.lookup.metrics),
    metricRow('catalogue-blind', e.blind.metrics),
    '',
    '### Grouped (main)',
    '',
    'Reliability (out-of-fold probabilities):',
    '',
    ...reliabilityRows(e.reliability),
    '',
    `Misclassified (${missCount(e.misses.length)}), with the evidence that decided, strongest first:`,
    '',
    ...missRows(e.misses.slice(0, shownMisses)),
    '',
    `Near misses (${missCount(e.nearMisses.length)}): right, but relevant below 0.9 or anything between 0.3 and 0.7:`,
    '',
    ...missRows(e.nearMisses.slice(0, shownMisses)),
    '',
    ...otherView('Registry lookup', e.lookup),
    ...otherView('Catalogue-blind', e.blind),
    '### The bundled sample',
    '',
    'Judged by the service classifier (trained on everything, full catalogue):',
    '',
    '| set | records | served | relevant but not served | served but out of scope |',
    '|---|---|---|---|---|',
    ...e.sample.map((s) => `| ${s.name} | ${s.total} | ${s.served} | ${s.unserved.join(', ') || '-'} | ${s.wronglyServed.join(', ') || '-'} |`),
    '',
    `Out of scope on purpose (stored, never served): ${[...outOfScopeSample].join(', ')}.`,
    '',
    ...severity.lines,
    '',
    ...itemLines(await evaluateItems()),
  ];
  const table = lines.join('\n');
  console.log(table);
  if (!args.write) return;

  const readme = new URL('./README.md', import.meta.url);
  const text = readFileSync(readme, 'utf8');
  const start = '<!-- eval:start -->';
  const end = '<!-- eval:end -->';
  writeFileSync(readme, `${text.slice(0, text.indexOf(start) + start.length)}\n${table}\n${text.slice(text.indexOf(end))}`);
}
