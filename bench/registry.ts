// Registry lookups over a store of unserved issues, PGlite and PostgreSQL:
// `npx tsx bench/registry.ts [--issues 20000] [--latency-ms 100]`.
// Loads synthetic advisories of general software (clones of the labelled negatives), four per
// package, on PyPI and npm packages no list knows; a registry on 127.0.0.1 answers in PyPI's and
// npm's JSON formats after `latency-ms` (public registries answered in 77-236 ms from this
// machine), calling one package in ten AI/ML software and one in twenty unknown. Times
// lookUpRegistries (eight requests at a time) with the judging again it triggers, checks that
// every issue of an AI/ML package is announced exactly once, then times a second run, which asks
// nothing: the cost of finding what to ask over the whole store.
// Results replace the "Registry lookups" section of bench/components.md.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { Database } from '../src/db/client.js';
import { ingest } from '../src/ingest/ingest.js';
import { createLogger } from '../src/log.js';
import { createIssuePubSub } from '../src/pubsub.js';
import { lookUpRegistries, type LookupResult } from '../src/registry/lookup.js';
import { writeReadmeSection } from './readme.js';
import { scratchPGlite, scratchPostgres } from './scratch-databases.js';
import { cloneAdvisory } from './synthetic.js';

const { values } = parseArgs({ options: { issues: { type: 'string', default: '20000' }, 'latency-ms': { type: 'string', default: '100' } } });
const total = Number(values.issues);
const latencyMs = Number(values['latency-ms']);
const packages = Math.ceil(total / 4);

const negativesDir = new URL('../data/relevance/negative/', import.meta.url);
const negatives = readdirSync(negativesDir).map((f) => JSON.parse(readFileSync(new URL(f, negativesDir), 'utf8')) as Record<string, unknown>);

const packageOf = (p: number) => (p % 2 === 0 ? { ecosystem: 'PyPI', name: `benchpkg-${p}` } : { ecosystem: 'npm', name: `@bench/pkg-${p}` });
const kindOf = (p: number) => (p % 10 === 3 ? 'ai' : p % 20 === 7 ? 'missing' : 'general');

function records(): unknown[] {
  return Array.from({ length: total }, (_, i) => {
    const record = cloneAdvisory(negatives[i % negatives.length]!, i);
    const [first] = record.affected as Record<string, unknown>[];
    record.affected = [{ ...first, package: packageOf(i % packages) }];
    return record;
  });
}

/** The package number a request asks about, from PyPI's /pypi/benchpkg-N/json or npm's /@bench%2Fpkg-N/latest. */
const requested = (url: string) => Number(/pkg-(\d+)/.exec(url)?.[1]);

async function startRegistry() {
  let requests = 0;
  const server = createServer(async (req, res) => {
    requests++;
    await sleep(latencyMs);
    const p = requested(req.url ?? '');
    const kind = kindOf(p);
    if (Number.isNaN(p) || kind === 'missing') return res.writeHead(404).end();
    const summary = kind === 'ai' ? 'Serve machine learning models over HTTP' : 'Utilities for parsing configuration files';
    const body = req.url!.startsWith('/pypi/') ? { info: { name: `benchpkg-${p}`, summary } } : { name: `@bench/pkg-${p}`, description: summary };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { urls: { pypiUrl: url, npmUrl: url }, requests: () => requests, close: () => new Promise((resolve) => server.close(resolve)) };
}

interface Run {
  load: number;
  seconds: number;
  result: LookupResult;
  requests: number;
  aiIssues: number;
  announcedOnce: boolean;
  again: number;
}

async function measure(db: Database): Promise<Run> {
  const { pubsub, close } = createIssuePubSub();
  const deps = { prisma: db.prisma, pubsub, log: createLogger('silent'), db };
  const registry = await startRegistry();
  try {
    const loadStart = performance.now();
    const loaded = await ingest(deps, records(), { chunkSize: 500, relay: false });
    const load = (performance.now() - loadStart) / 1000;
    if (loaded.created !== total) throw new Error(`expected ${total} created, got ${loaded.created}`);
    if ((await db.prisma.issue.count({ where: { relevant: true } })) !== 0) throw new Error('a synthetic issue was served before any lookup');

    const start = performance.now();
    const result = await lookUpRegistries(deps, registry.urls, { relay: false });
    const seconds = (performance.now() - start) / 1000;
    const requests = registry.requests();
    const startAgain = performance.now();
    const second = await lookUpRegistries(deps, registry.urls, { relay: false });
    const again = (performance.now() - startAgain) / 1000;
    if (second.asked !== 0) throw new Error(`second run asked ${second.asked}`);

    const aiIssues = Array.from({ length: total }, (_, i) => i % packages).filter((p) => kindOf(p) === 'ai').length;
    const served = new Set((await db.prisma.issue.findMany({ where: { relevant: true }, select: { id: true } })).map((r) => r.id));
    const announced = (await db.prisma.issueEvent.findMany({ where: { kind: 'new_issues' } })).flatMap((e) => e.issueIds);
    const announcedOnce = served.size === aiIssues && announced.length === aiIssues && announced.every((id) => served.has(id));
    return { load, seconds, result, requests, aiIssues, announcedOnce, again };
  } finally {
    await registry.close();
    await close();
  }
}

const pglite = await scratchPGlite();
const onPGlite = await measure(pglite.db).finally(() => pglite.close());
const postgres = await scratchPostgres();
const onPostgres = await measure(postgres.db).finally(() => postgres.close());

const row = (name: string, r: Run) =>
  `| ${name} | ${total} | ${r.load.toFixed(1)} s | ${r.result.asked} | ${r.requests} | ${r.seconds.toFixed(1)} s | ${Math.round(r.result.asked / r.seconds)} | ${r.result.changed} | ${r.result.reclassified?.newlyServed ?? 0} of ${r.aiIssues} | ${r.announcedOnce ? 'yes' : 'NO'} | ${r.again.toFixed(2)} s |`;
const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
const section = `<!-- registry:begin -->
## Registry lookups (\`npx tsx bench/registry.ts --issues ${total} --latency-ms ${latencyMs}\`)

Measured ${when} UTC on this machine (2 shared cores). ${total} unserved issues of general software,
four per package, on ${packages} PyPI and npm packages no list knows; a registry on 127.0.0.1
answering each request after ${latencyMs} ms (npm's public registry answered in 77-236 ms from here),
one package in ten described as AI/ML software, one in twenty unknown to it. One lookup run
(eight requests at a time, then the issues of the AI/ML packages judged again through reclassify),
then a second run, which finds nothing to ask:

| database | issues | load | packages asked | requests | lookup run | packages/s | summaries changed | newly served | each announced exactly once | second run |
|---|---|---|---|---|---|---|---|---|---|---|
${row('PGlite', onPGlite)}
${row('PostgreSQL', onPostgres)}

At eight requests in flight the run is bound by the registry's latency (8 / ${latencyMs} ms = ${Math.round(8000 / latencyMs)}
packages/s at most); the second run's time is the cost of working out what to ask over the whole
store, which the server pays after every sync that changed something.
<!-- registry:end -->`;

await writeReadmeSection('registry', section);
console.log(section);
