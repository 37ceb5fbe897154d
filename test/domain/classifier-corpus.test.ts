// `npm run eval -- --osv <dir|zip> [--labels <csv>]`: the service's classifier over a directory or
// zip of someone else's OSV records, with figures against their labels, on real files.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { judgeCorpus, labelsFrom } from '../../src/ingest/classifier/corpus.js';
import { listOsvDir } from '../../src/sources/osv-dir.js';

const relevance = new URL('../../data/relevance/', import.meta.url).pathname;
// transformers (AI/ML) and NumPy (general), as data/relevance labels them.
const aiRecord = 'positive/GHSA-282v-666c-3fvg.json';
const generalRecord = 'negative/GHSA-6p56-wp2h-9hxr.json';

let dir: string;
let corpus: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'corpus-'));
  corpus = join(dir, 'records');
  mkdirSync(join(corpus, 'nested'), { recursive: true });
  copyFileSync(join(relevance, aiRecord), join(corpus, 'ai.json'));
  copyFileSync(join(relevance, generalRecord), join(corpus, 'nested', 'general.json'));
  writeFileSync(join(corpus, 'broken.json'), '{"id": ');
  writeFileSync(join(corpus, 'not-osv.json'), '{"hello": "world"}');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the classifier over a corpus of OSV records', () => {
  it('judges every record of a directory tree, tallies packages and lists what it could not take', async () => {
    const report = await judgeCorpus((await listOsvDir(corpus)).entries);
    expect(report.records).toBe(2);
    expect(report.served).toBe(1);
    expect(report.packages).toEqual([
      { name: 'transformers', ecosystem: 'PyPI', served: 1, records: 1 },
      { name: 'numpy', ecosystem: 'PyPI', served: 0, records: 1 },
    ]);
    expect(report.rejected.map((r) => r.key).sort()).toEqual(['broken.json', 'not-osv.json']);
    expect(report.labelled).toBeUndefined();
  });

  it('scores against labels by id or alias, and names each miss with its evidence', async () => {
    // NumPy labelled relevant on purpose: one miss, seen from both sides.
    const labels = labelsFrom([
      { id: 'CVE-2023-2800', label: 'positive' },
      { id: 'GHSA-6p56-wp2h-9hxr', label: 'relevant' },
      { id: 'GHSA-none-of-these', label: 'negative' },
    ]);
    const { labelled } = await judgeCorpus((await listOsvDir(corpus)).entries, labels);
    expect(labelled!.metrics).toMatchObject({ n: 2, tp: 1, fn: 1, fp: 0, tn: 0, recall: 0.5, precision: 1 });
    expect(labelled!.misses).toHaveLength(1);
    expect(labelled!.misses[0]).toMatchObject({ id: 'GHSA-6p56-wp2h-9hxr', package: 'numpy', expected: true });
    expect(labelled!.misses[0]!.evidence).toMatch(/model/);
  });

  it('labels by package when the file has no id column', async () => {
    const labels = labelsFrom([{ package: 'NumPy', label: 'negative' }]);
    const { labelled } = await judgeCorpus((await listOsvDir(corpus)).entries, labels);
    expect(labelled).toMatchObject({ unlabelled: 1, metrics: { n: 1, tn: 1 }, misses: [] });
  });

  it('refuses a label file it cannot read as labels', () => {
    expect(() => labelsFrom([{ name: 'numpy', label: 'negative' }])).toThrow(/"id" or "package" column/);
    expect(() =>
      labelsFrom([
        { id: 'GHSA-x', label: 'negative' },
        { id: 'GHSA-y', label: 'maybe' },
      ]),
    ).toThrow(/line 3: label "maybe"/);
  });

  it('npm run eval -- --osv reads a zip and a label file, prints the figures and leaves eval/README.md alone', async () => {
    const zipPath = join(dir, 'all.zip');
    const zip = new yazl.ZipFile();
    zip.addBuffer(readFileSync(join(relevance, aiRecord)), 'GHSA-282v-666c-3fvg.json');
    zip.addBuffer(readFileSync(join(relevance, generalRecord)), 'GHSA-6p56-wp2h-9hxr.json');
    zip.end();
    await new Promise<void>((resolve, reject) => {
      const chunks: Buffer[] = [];
      zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
      zip.outputStream.on('end', () => (writeFileSync(zipPath, Buffer.concat(chunks)), resolve()));
      zip.outputStream.on('error', reject);
    });
    const labelPath = join(dir, 'labels.csv');
    writeFileSync(labelPath, 'package,label\ntransformers,positive\nnumpy,negative\n');
    const readme = new URL('../../eval/README.md', import.meta.url);
    const before = readFileSync(readme, 'utf8');

    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'eval/run.ts', '--osv', zipPath, '--labels', labelPath, '--unserved'], {
      cwd: new URL('../..', import.meta.url).pathname,
    });
    expect(stdout).toContain(`2 records from ${zipPath}, 1 served (1 of 2 packages)`);
    expect(stdout).toContain('| transformers | PyPI | 1 | 1 |');
    expect(stdout).toContain('Packages with nothing served (1): numpy');
    expect(stdout).toContain('| 2 | 1 | 0 | 0 | 1 | 1.000 | 1.000 | 1.000 |');
    expect(readFileSync(readme, 'utf8')).toBe(before);
  }, 60_000);
});
