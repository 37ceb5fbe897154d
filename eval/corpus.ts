// npm run eval -- --osv <dir|zip> [--labels <csv>] [--unserved]: the service's classifier over a
// directory or zip of OSV records (a clone of an advisory database, an OSV all.zip), printed as
// Markdown; eval/README.md is left as it is. See src/ingest/classifier/corpus.ts.
import { readFileSync, statSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { judgeCorpus, labelsFrom, type CorpusReport } from '../src/ingest/classifier/corpus.js';
import { defaultJudge } from '../src/ingest/classifier/relevance.js';
import { listOsvDir } from '../src/sources/osv-dir.js';
import { openOsvZip } from '../src/sources/osv-zip.js';
import { cell, metricRow, metricsHeader, missRows } from './markdown.js';

export function corpusMarkdown(path: string, report: CorpusReport, unserved: boolean): string {
  const served = report.packages.filter((p) => p.served > 0);
  const lines = [
    `Classifier version \`${defaultJudge().version}\`; ${report.records} records from ${path}, ${report.served} served (${served.length} of ${report.packages.length} packages); ${report.rejected.length} entries not taken.`,
    '',
    '| package | ecosystem | served | records |',
    '|---|---|---|---|',
    ...served.map((p) => `| ${cell(p.name)} | ${p.ecosystem} | ${p.served} | ${p.records} |`),
  ];
  if (unserved) {
    const names = report.packages.filter((p) => p.served === 0).map((p) => p.name);
    lines.push('', `Packages with nothing served (${names.length}): ${names.join(', ') || '-'}`);
  }
  if (report.rejected.length > 0) {
    lines.push('', 'Not taken (first 20):', '', ...report.rejected.slice(0, 20).map((r) => `- ${r.key}: ${r.reason}`));
  }
  if (report.labelled) {
    const { metrics: m, misses, unlabelled } = report.labelled;
    lines.push(
      '',
      `Against the labels (${m.n} labelled records; ${unlabelled} records had no label):`,
      '',
      ...metricsHeader,
      metricRow('against the labels', m),
      '',
      `Misclassified (${misses.length}), with the evidence that decided, strongest first:`,
      '',
      ...missRows(misses),
    );
  }
  return lines.join('\n');
}

export async function printCorpus(path: string, labelFile: string | undefined, unserved: boolean): Promise<void> {
  const labels = labelFile ? labelsFrom(parse(readFileSync(labelFile, 'utf8'), { columns: true, skip_empty_lines: true, trim: true })) : undefined;
  const source = statSync(path).isDirectory() ? { ...(await listOsvDir(path)), close: () => {} } : await openOsvZip(path);
  try {
    console.log(corpusMarkdown(path, await judgeCorpus(source.entries, labels), unserved));
  } finally {
    source.close();
  }
}
