// The shipped default sources: used when neither SOURCES nor SOURCES_FILE is set, off with
// SOURCES=[] (and in every test and bench), and a start without the network: the server listens
// at once, serves the sample and says so, names every unreachable source in one line and shows
// each one's error on /ready.
// Nothing here leaves the machine: the default list's hosts are swapped for a closed local port.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { defaultSourcesUrl, parseConfig, testConfig } from '../../src/config.js';
import { startServerProcess } from '../helpers/server-process.js';

const defaults = JSON.parse(readFileSync(defaultSourcesUrl, 'utf8')) as { name: string; kind: string; location: string }[];
let dir: string | undefined;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('are the shipped list of public upstreams unless SOURCES or SOURCES_FILE is set; SOURCES=[] and testConfig turn them off', () => {
  const config = parseConfig({});
  expect(config.sourcesFrom).toBe('default');
  expect(config.sources.map((s) => s.name)).toEqual(defaults.map((s) => s.name));
  // Every kind of upstream the feed needs, each from its publisher over https.
  const kinds = new Set(config.sources.map((s) => s.kind));
  expect([...kinds].sort()).toEqual(['epss', 'feed', 'kev', 'osv-zip']);
  expect(config.sources.filter((s) => s.kind === 'osv-zip').map((s) => new URL(s.location).pathname)).toEqual([
    '/PyPI/all.zip',
    '/npm/all.zip',
    '/Go/all.zip',
    '/Maven/all.zip',
    '/crates.io/all.zip',
  ]);
  expect(config.sources.every((s) => s.location.startsWith('https://'))).toBe(true);
  // The curation hints: arXiv listings are research, whatever an entry's words suggest.
  expect(config.sources.filter((s) => s.name.startsWith('arxiv-')).map((s) => s.issueType)).toEqual(['research', 'research']);
  expect(parseConfig({ SOURCES: '[]' })).toMatchObject({ sources: [], sourcesFrom: 'SOURCES' });
  expect(parseConfig({ SOURCES: ' ' }).sourcesFrom).toBe('default');
  expect(testConfig().sources).toEqual([]);
  // The suite's own environment (vitest.config.ts) keeps any child process off them too.
  expect(process.env.SOURCES).toBe('[]');
});

it('a start without the network serves the sample at once, says so, names each unreachable source in one line and shows its error on /ready', async () => {
  // A port that refuses connections: what an upstream looks like with the network down.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  dir = await mkdtemp(join(tmpdir(), 'secwire-offline-'));
  const offline = defaults.map((s) => ({ ...s, location: `https://127.0.0.1:${port}${new URL(s.location).pathname}` }));
  await writeFile(join(dir, 'sources.json'), JSON.stringify(offline));
  const server = await startServerProcess({
    DATA_DIR: join(dir, 'db'),
    SEED_SAMPLE_DATA: 'true',
    // Debug, to see each source's retries: the production ones, only sooner (at the production
    // waits this file spent nearly all its time asleep).
    LOG_LEVEL: 'debug',
    SOURCES: '',
    SOURCES_FILE: join(dir, 'sources.json'),
    SOURCES_ALLOW_PRIVATE: 'true',
    SOURCES_RETRY_MS: '20',
  });
  try {
    const at = await server.waitForLog((l) => l.msg === 'sources configured');
    const configured = server.lines()[at] as { sources?: string[] };
    expect(configured.sources).toEqual(defaults.map((s) => s.name));
    // Said plainly: no source has delivered, so the feed is the sample, of its date.
    await server.waitForLog((l) => l.msg === 'no source has delivered yet: until one does, the feed is the bundled sample data (newest record 2026-02-23)');
    // Listening before any source answered: the sample is served meanwhile, and it is not news.
    const sample = await (await fetch(`${server.base}/api/v1/issues?limit=1`)).json();
    expect(sample.meta.total).toBeGreaterThan(100);
    expect((await (await fetch(`${server.base}/api/v1/stats`)).json()).data).toMatchObject({ lastNewDataAt: null, newDataSources: [] });
    // One line for the first pass, naming each source's failure once; no other warning or error, no stack.
    await server.waitForLog((l) => l.msg?.startsWith("sources' first sync done") ?? false);
    const failures = server.lines().filter((l) => l.level === 'error' || l.level === 'warn');
    expect(failures).toEqual([
      expect.objectContaining({
        level: 'warn',
        msg: `sources' first sync done: 0 of ${defaults.length} synced, ${defaults.length} failed`,
        synced: [],
        failed: defaults.map((s) => ({ source: s.name, error: 'fetch failed: ECONNREFUSED' })),
      }),
    ]);
    expect(JSON.stringify(server.lines())).not.toMatch(/\bat .+:\d+:\d+/);
    // Each source was tried three times before it counted as failed; the retries say so at debug only.
    const retries = server.lines().filter((l) => l.msg === 'source fetch failed, retrying');
    expect(retries.map((l) => `${l.source} ${l.attempt}`).sort()).toEqual(defaults.flatMap((s) => [`${s.name} 1`, `${s.name} 2`]).sort());
    expect(retries.every((l) => l.level === 'debug')).toBe(true);
    const ready = await (await fetch(`${server.base}/ready`)).json();
    expect(ready.status).toBe('ready');
    expect(ready.sources.map((s: { name: string }) => s.name)).toEqual(defaults.map((s) => s.name));
    for (const s of ready.sources) expect(s.lastError).toMatch(/^fetch failed: ECONNREFUSED$/);
  } finally {
    await server.stop();
  }
}, 180_000);
