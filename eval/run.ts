// npm run eval: grouped cross-validation of the relevance decision, printed and written to
// eval/README.md (the part between the markers; the prose around it is kept).
import { readFileSync, writeFileSync } from 'node:fs';
import { evaluate } from '../src/ingest/classifier/evaluate.js';
import { defaultJudge } from '../src/ingest/classifier/relevance.js';
import { outOfScopeSample } from '../src/ingest/classifier/training.js';

const started = performance.now();
const e = evaluate();
const seconds = ((performance.now() - started) / 1000).toFixed(1);
const m = e.metrics;
const pct = (x: number) => x.toFixed(3);

const lines = [
  `Classifier version \`${defaultJudge().version}\`; ${e.groups} package groups, leave-one-group-out; ${seconds} s on this machine.`,
  '',
  '| examples | TP | FP | FN | TN | recall | precision | F1 | Brier |',
  '|---|---|---|---|---|---|---|---|---|',
  `| ${m.n} | ${m.tp} | ${m.fp} | ${m.fn} | ${m.tn} | ${pct(m.recall)} | ${pct(m.precision)} | ${pct(m.f1)} | ${pct(m.brier)} |`,
  '',
  'Reliability (out-of-fold probabilities):',
  '',
  '| probability | examples | mean predicted | share relevant |',
  '|---|---|---|---|',
  ...e.reliability.map((r) => `| ${r.bin} | ${r.n} | ${r.n ? pct(r.predicted) : '-'} | ${r.n ? pct(r.observed) : '-'} |`),
  '',
  `Misclassified (${e.misses.length}), with the evidence that decided, strongest first:`,
  '',
  '| id | package | label | p(relevant) | evidence |',
  '|---|---|---|---|---|',
  ...e.misses.map((x) => `| ${x.id} | ${x.package} | ${x.expected ? 'relevant' : 'not relevant'} | ${pct(x.probability)} | ${x.evidence.replace(/\|/g, '\\|')} |`),
  '',
  'The bundled sample, judged by the service classifier (trained on everything):',
  '',
  '| set | records | served | relevant but not served | served but out of scope |',
  '|---|---|---|---|---|',
  ...e.sample.map((s) => `| ${s.name} | ${s.total} | ${s.served} | ${s.unserved.join(', ') || '-'} | ${s.wronglyServed.join(', ') || '-'} |`),
  '',
  `Out of scope on purpose (stored, never served): ${[...outOfScopeSample].join(', ')}.`,
];
const table = lines.join('\n');
console.log(table);

const readme = new URL('./README.md', import.meta.url);
const text = readFileSync(readme, 'utf8');
const start = '<!-- eval:start -->';
const end = '<!-- eval:end -->';
writeFileSync(readme, `${text.slice(0, text.indexOf(start) + start.length)}\n${table}\n${text.slice(text.indexOf(end))}`);
