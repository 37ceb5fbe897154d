// Sync of an OSV ecosystem export (osv-zip), PGlite and PostgreSQL side by side:
//   npx tsx bench/sources.ts [--records 250000] [--ai-share 0.1] [--skip-pglite]
// Builds a zip of OSV records cloned from the sample advisories (data/advisories) under new ids,
// keeping their real sizes; all but --ai-share of them are made non-AI (packages renamed, AI words
// replaced), as in a real ecosystem export. Each sync runs in its own process
// (bench/sources-sync.ts) for its peak RSS: the first sync on a fresh database, then a second one
// over the same file read again (validators forgotten, every entry checked by fingerprint).
// Results replace the "Sources" section of bench/README.md.
import { execFileSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import yazl from 'yazl';
import { readSampleRecords } from '../src/seed.js';
import { aiTerms, llmTerms, vendorAliases } from '../src/ingest/classifier/tables.js';
import { writeReadmeSection } from './readme.js';
import { emptyPostgres } from './scratch-databases.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '250000' },
    'ai-share': { type: 'string', default: '0.1' },
    'skip-pglite': { type: 'boolean', default: false },
  },
});
const total = Number(values.records);
const aiShare = Number(values['ai-share']);

const aiWords = new RegExp(`${aiTerms.strong.source}|${aiTerms.weak.source}|${llmTerms.source}`, 'gi');
const aiVendors = vendorAliases.filter((v) => v.ai).map((v) => new RegExp(v.pattern.source, 'gi'));
const ecosystems = ['npm', 'PyPI', 'Maven', 'Go', 'crates.io', 'RubyGems', 'NuGet', 'Packagist'];

/** A GHSA-shaped id from a number (in GHSA's own 20-letter alphabet): unique per record. */
function ghsaId(n: number): string {
  const alphabet = '23456789cfghjmpqrvwx';
  let s = '';
  for (let rest = n; s.length < 12; rest = Math.floor(rest / 20)) s = alphabet[rest % 20]! + s;
  return `GHSA-${s.slice(0, 4)}-${s.slice(4, 8)}-${s.slice(8, 12)}`;
}

const scrub = (text: unknown) => aiVendors.reduce((t, pattern) => t.replace(pattern, 'Acme'), String(text ?? '').replace(aiWords, 'widget'));

/**
 * Clone `i` of a sample. Each round through the samples renames their packages (`langchain-7`), so
 * a package has as few advisories as in a real export instead of one per round; AI clones stay AI
 * through their words. Non-AI clones lose the AI words and vendors and move to other ecosystems.
 */
function record(base: Record<string, any>, i: number, samples: number): Record<string, unknown> {
  const r = structuredClone(base);
  const round = Math.floor(i / samples);
  const ai = i % Math.round(1 / aiShare) === 0;
  r.id = ghsaId(i);
  r.aliases = [`CVE-2099-${String(100000 + i)}`];
  // PYSEC references would merge the clones back into one issue.
  r.references = (r.references ?? [])
    .filter((ref: { url: string }) => !/PYSEC-/i.test(ref.url))
    .map((ref: { url: string }) => (ai ? ref : { ...ref, url: scrub(ref.url) }));
  if (!ai) {
    r.summary = scrub(r.summary);
    r.details = scrub(r.details);
  }
  r.affected = (r.affected ?? []).map((a: Record<string, any>, j: number) => {
    const { purl: _purl, ...pkg } = a.package as Record<string, string>;
    if (ai) return { ...a, package: { ...pkg, name: round ? `${pkg.name}-${round}` : pkg.name } };
    return { ...a, package: { ecosystem: ecosystems[(i + j) % ecosystems.length], name: `example-lib-${round}-${i % samples}-${j}` } };
  });
  return r;
}

async function buildZip(path: string): Promise<void> {
  const samples = (await readSampleRecords()).filter((r) => String((r as { id?: string }).id).startsWith('GHSA-')) as Record<string, any>[];
  const zip = new yazl.ZipFile();
  const written = pipeline(zip.outputStream, createWriteStream(path));
  // Lazy entries: each record is made when the zip reaches it, so memory holds one at a time
  // (addBuffer would hold every record until the end).
  for (let i = 0; i < total; i++) {
    const bytes = () => Buffer.from(JSON.stringify(record(samples[i % samples.length]!, i, samples.length), null, 2));
    zip.addReadStreamLazy(`${ghsaId(i)}.json`, (done) => done(null, Readable.from([bytes()])));
  }
  zip.end();
  await written;
}

interface SyncRun {
  status: string;
  seconds: number;
  counts: Record<string, number>;
  served: number;
  newEvents: number;
  modifiedAtMoved: boolean;
  peakRssMb: number;
}

function runSync(zip: string, env: Record<string, string>, freshRead: boolean): SyncRun {
  const out = execFileSync(process.execPath, ['--import', 'tsx', 'bench/sources-sync.ts', zip, ...(freshRead ? ['--fresh-read'] : [])], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.trim().split('\n').at(-1)!) as SyncRun;
}

const dir = await mkdtemp(join(tmpdir(), 'secwire-bench-sources-'));
const zip = join(dir, 'all.zip');
try {
  const started = performance.now();
  await buildZip(zip);
  const zipMb = (await stat(zip)).size / 1024 / 1024;
  console.log(`built ${total} records (${zipMb.toFixed(0)} MB zipped) in ${((performance.now() - started) / 1000).toFixed(0)} s`);

  const rows: string[] = [];
  const measure = (label: string, env: Record<string, string>) => {
    const first = runSync(zip, env, false);
    console.log(label, 'first', JSON.stringify(first));
    const second = runSync(zip, env, true);
    console.log(label, 'second', JSON.stringify(second));
    const rate = Math.round(first.counts.received! / first.seconds);
    rows.push(
      `| ${label} | ${first.counts.received} (${first.served} served) | ${first.seconds.toFixed(1)} | **${rate}** | **${first.peakRssMb}** | ` +
        `${second.seconds.toFixed(1)} (**${((second.seconds / first.seconds) * 100).toFixed(1)}%**) | ${second.counts.skipped} | ` +
        `${second.newEvents} / ${second.modifiedAtMoved ? 'moved' : 'unchanged'} | ${second.peakRssMb} |`,
    );
  };
  if (!values['skip-pglite']) measure('PGlite (on disk)', { DATA_DIR: join(dir, 'pglite'), DATABASE_URL: '' });
  const pg = await emptyPostgres();
  try {
    measure('PostgreSQL', { DATABASE_URL: pg.url });
  } finally {
    await pg.drop();
  }

  const section = [
    '<!-- sources:begin -->',
    `## Sources: osv-zip sync (\`npx tsx bench/sources.ts --records ${total}\`)`,
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on this machine (2 shared cores, other work running; compare ratios, not`,
    `absolute figures). A zip of ${total} OSV records (${zipMb.toFixed(0)} MB) cloned from the sample advisories under new ids with`,
    `their real sizes; ${Math.round((1 - aiShare) * 100)}% made non-AI (packages renamed, AI words replaced), as in a real ecosystem export.`,
    'Each sync runs in its own process (`bench/sources-sync.ts`): the first on a fresh, migrated database; the second over the same',
    'file read again with its validators forgotten, so every entry is checked against its stored fingerprint (CRC-32 and size from',
    "the zip's central directory) and none is inflated. With validators kept, a re-run is one `stat` or one HTTP 304.",
    '',
    '| database | records (served) | first sync s | records/s | peak RSS MB | second sync s (of first) | skipped | new events / modifiedAt | second peak RSS MB |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '<!-- sources:end -->',
  ].join('\n');
  await writeReadmeSection('sources', section);
  console.log(section);
} finally {
  await rm(dir, { recursive: true, force: true });
}
