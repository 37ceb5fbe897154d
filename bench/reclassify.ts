// Reclassification of 10,000 stored issues, PGlite and PostgreSQL: `npx tsx bench/reclassify.ts [--issues 10000]`.
// Loads synthetic advisories (clones of the sample's AI/ML advisories and of the labelled general-
// software ones, under new ids), then makes the store look as an older classifier left it: every
// issue stale, and a fifth of the relevant ones missed (never served, never announced). Times
// reclassify() in batches of 500 with the CLI's progress bar, checks that each missed issue is in
// exactly one new event row, runs it again (nothing stale), and on PostgreSQL runs the real CLI too.
// Results replace the "Reclassify" section of bench/components.md.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Presets, SingleBar } from 'cli-progress';
import type { Database } from '../src/db/client.js';
import { readSampleRecords } from '../src/server/seed.js';
import { ingest } from '../src/ingest/ingest.js';
import { reclassify, type ReclassifyResult } from '../src/ingest/reclassify.js';
import { createLogger } from '../src/log.js';
import { createIssuePubSub } from '../src/pubsub.js';
import { writeReadmeSection } from './readme.js';
import { scratchPGlite, scratchPostgres } from './scratch-databases.js';
import { cloneAdvisory } from './synthetic.js';

const { values } = parseArgs({ options: { issues: { type: 'string', default: '10000' }, 'skip-pglite': { type: 'boolean', default: false } } });
const total = Number(values.issues);

const negativesDir = new URL('../data/relevance/negative/', import.meta.url);
const negatives = readdirSync(negativesDir).map((f) => JSON.parse(readFileSync(new URL(f, negativesDir), 'utf8')) as Record<string, unknown>);
const positives = (await readSampleRecords()).filter((r) => (r as { id?: string }).id?.startsWith('GHSA-')) as Record<string, unknown>[];

/** 80% AI/ML advisories, 20% general software, each under fresh ids so each is its own issue. */
function records(n: number): unknown[] {
  return Array.from({ length: n }, (_, i) => cloneAdvisory(i % 5 === 4 ? negatives[i % negatives.length]! : positives[i % positives.length]!, i));
}

interface Run {
  seconds: number;
  again: number;
  result: ReclassifyResult;
  missed: number;
  announcedOnce: boolean;
}

async function measure(db: Database, input: unknown[]): Promise<Run> {
  const { pubsub, close } = createIssuePubSub();
  const deps = { prisma: db.prisma, pubsub, log: createLogger('silent'), db };
  try {
    const loaded = await ingest(deps, input, { chunkSize: 500, relay: false });
    if (loaded.created !== input.length) throw new Error(`expected ${input.length} created, got ${loaded.created}`);
    const served = await db.prisma.issue.findMany({ where: { relevant: true }, select: { id: true }, orderBy: { id: 'asc' } });
    const missed = served.filter((_, i) => i % 5 === 0).map((r) => r.id);
    await db.prisma.issue.updateMany({ data: { classifierPromptVersion: 'rules-1.0.0' } });
    await db.prisma.issue.updateMany({ where: { id: { in: missed } }, data: { relevant: false, announcedAt: null } });
    const before = new Set((await db.prisma.issueEvent.findMany({ select: { id: true } })).map((e) => e.id));

    const bar = new SingleBar(
      { format: 'reclassify [{bar}] {percentage}% | {value}/{total} issues | {eta_formatted} left', hideCursor: true },
      Presets.shades_classic,
    );
    bar.start(0, 0);
    const start = performance.now();
    const result = await reclassify(deps, { batchSize: 500, relay: false, onProgress: (done, all) => (bar.setTotal(all), bar.update(done)) });
    const seconds = (performance.now() - start) / 1000;
    bar.stop();
    const startAgain = performance.now();
    const second = await reclassify(deps, { batchSize: 500, relay: false });
    const again = (performance.now() - startAgain) / 1000;
    if (second.examined !== 0) throw new Error(`second run examined ${second.examined}`);

    // Only new_issues events announce; issues_updated ones (every reclassified issue changed) do not.
    const announced = (await db.prisma.issueEvent.findMany({ where: { kind: 'new_issues' } })).filter((e) => !before.has(e.id)).flatMap((e) => e.issueIds);
    const announcedOnce = announced.length === missed.length && new Set(announced).size === missed.length && missed.every((id) => announced.includes(id));
    return { seconds, again, result, missed: missed.length, announcedOnce };
  } finally {
    await close();
  }
}

/** The real CLI on the PostgreSQL database just reclassified, after marking everything stale again. */
function cliRun(url: string): { seconds: number; line: string } {
  const start = performance.now();
  const out = execFileSync(process.execPath, ['--import', 'tsx', 'src/server/cli.ts', 'reclassify'], {
    env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'error', REGISTRY_LOOKUP: 'false', SOURCES: '[]' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return { seconds: (performance.now() - start) / 1000, line: out.trim().split('\n').at(-1) ?? '' };
}

const input = records(total);
let onPGlite: Run | undefined;
if (!values['skip-pglite']) {
  const pglite = await scratchPGlite();
  onPGlite = await measure(pglite.db, input).finally(() => pglite.close());
}
const postgres = await scratchPostgres();
let onPostgres: Run;
let cli: { seconds: number; line: string };
try {
  onPostgres = await measure(postgres.db, input);
  await postgres.db.prisma.issue.updateMany({ data: { classifierPromptVersion: 'rules-1.0.0' } });
  cli = cliRun(postgres.url!);
} finally {
  await postgres.close();
}

const row = (name: string, r: Run) =>
  `| ${name} | ${r.result.examined} | ${r.seconds.toFixed(1)} s | ${Math.round(r.result.examined / r.seconds)} | ${r.result.newlyServed} | ${r.missed} | ${r.announcedOnce ? 'yes' : 'NO'} | ${r.again.toFixed(2)} s |`;
const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
const section = `<!-- reclassify:begin -->
## Reclassify (\`npx tsx bench/reclassify.ts --issues ${total}${onPGlite ? '' : ' --skip-pglite'}\`)

Measured ${when} UTC on this machine (2 shared cores, other work running). ${total} stored issues
(80% clones of the sample's AI/ML advisories, 20% of the labelled general-software ones), all
classified by an older version, a fifth of the relevant ones missed by it (never served, never
announced). \`reclassify\` in batches of 500 through the ingest path, with the CLI's progress bar:

| database | issues | time | issues/s | newly served | missed before | each announced exactly once | second run (nothing stale) |
|---|---|---|---|---|---|---|---|
${onPGlite ? `${row('PGlite', onPGlite)}\n` : ''}${row('PostgreSQL', onPostgres)}

"Announced exactly once": the new event rows (the outbox webhooks and SSE read) name every missed
issue once and nothing else. The real CLI on the same PostgreSQL store, everything marked stale
again (nothing newly served, so nothing announced): ${cli.seconds.toFixed(1)} s wall time including
process start and model training, \`${cli.line}\`.
<!-- reclassify:end -->`;

await writeReadmeSection('reclassify', section);
console.log(section);
