// Registry lookups end to end: advisories of packages no list knows are ingested over HTTP and
// not served; the server asks a real HTTP registry (PyPI's and npm's JSON formats, on 127.0.0.1)
// what each package is; those whose summary speaks of AI/ML are judged again, served, shown with
// the looked-up summary as their reason, and delivered to a real HTTPS webhook receiver once.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ingest } from '../../src/ingest/ingest.js';
import { lookUpRegistries } from '../../src/registry/lookup.js';
import { startRegistryLookups, type RegistryLookups } from '../../src/registry/runner.js';
import { createLogger } from '../../src/log.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { cliDatabase, runCli } from '../helpers/cli.js';
import { startDeliveries, type Deliveries } from '../helpers/deliveries.js';
import { adminHeaders, adminKey } from '../helpers/samples.js';
import { createWebhook, webhookKey } from '../helpers/webhooks.js';

// What the registries answer, by request path: PyPI's /pypi/<name>/json and npm's /<name>/latest.
const registry = new Map<string, { status: number; body?: unknown }>([
  [
    '/pypi/quokka-serve/json',
    { status: 200, body: { info: { name: 'quokka-serve', summary: 'Inference server for PyTorch and ONNX models', version: '2.1.0' } } },
  ],
  [
    '/pypi/ledgerlyne/json',
    { status: 200, body: { info: { name: 'ledgerlyne', summary: 'Double-entry bookkeeping for small businesses', version: '0.9.0' } } },
  ],
  ['/pypi/ghostpkg/json', { status: 404, body: { message: 'Not Found' } }],
  ['/pypi/flakypkg/json', { status: 503 }],
  ['/@wombat%2Fcrew/latest', { status: 200, body: { name: '@wombat/crew', version: '1.4.2', description: 'Orchestrate AI agents over your own tools' } }],
  ['/tiny-rooter/latest', { status: 200, body: { name: 'tiny-rooter', version: '3.0.0', description: 'A tiny HTTP\u0000 router' } }],
]);
const asked: string[] = [];

function answer(req: IncomingMessage, res: ServerResponse) {
  asked.push(req.url ?? '');
  // A registry that never answers this one: only a stop ends the request.
  if (req.url === '/pypi/stuckpkg/json') return;
  const found = registry.get(req.url ?? '') ?? { status: 404 };
  res.writeHead(found.status, { 'content-type': 'application/json' }).end(found.body === undefined ? '' : JSON.stringify(found.body));
}

// Advisories whose own words say nothing of AI: only the registry can tell.
const advisory = (id: string, ecosystem: string, name: string, summary: string) => ({
  schema_version: '1.6.0',
  id,
  modified: '2026-10-01T00:00:00Z',
  published: '2026-10-01T00:00:00Z',
  summary,
  details: `${summary}. Versions before 1.0.1 are affected; upgrade to 1.0.1.`,
  affected: [{ package: { ecosystem, name }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '1.0.1' }] }] }],
  references: [{ type: 'WEB', url: `https://example.org/advisories/${id}` }],
  database_specific: { severity: 'HIGH', cwe_ids: ['CWE-22'] },
});
const records = [
  advisory('GHSA-q1q1-q1q1-q1q1', 'PyPI', 'Quokka_Serve', 'Path traversal in the upload handler'),
  advisory('GHSA-w2w2-w2w2-w2w2', 'npm', '@wombat/crew', 'Path traversal in the workspace loader'),
  advisory('GHSA-e3e3-e3e3-e3e3', 'PyPI', 'ledgerlyne', 'Path traversal in the report exporter'),
  advisory('GHSA-r4r4-r4r4-r4r4', 'npm', 'tiny-rooter', 'Path traversal in static file serving'),
  advisory('GHSA-t5t5-t5t5-t5t5', 'PyPI', 'ghostpkg', 'Path traversal in the archive reader'),
  advisory('GHSA-y6y6-y6y6-y6y6', 'PyPI', 'flakypkg', 'Path traversal in the log viewer'),
];

let t: TestApp;
let deliveries: Deliveries;
let lookups: RegistryLookups;
let server: ReturnType<typeof createServer>;
let urls: { pypiUrl: string; npmUrl: string };

beforeAll(async () => {
  server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  urls = { pypiUrl: base, npmUrl: `${base}/` };
  // The runner needs the app's pub/sub, which the app builds: the app gets it through this handle.
  const handle: RegistryLookups = { request: (ids) => lookups.request(ids), stop: async () => {}, idle: () => lookups.idle() };
  t = await createTestApp({ adminApiKey: adminKey, webhookApiKey: webhookKey, webhookAllowPrivateTargets: true, registryLookup: urls }, undefined, {
    registryLookups: handle,
  });
  lookups = startRegistryLookups({ prisma: t.db.prisma, pubsub: t.pubsub, log: createLogger('silent'), db: t.db }, urls);
  deliveries = await startDeliveries(t, { worker: { timeoutMs: 2000, leaseMs: 20_000 } });
}, 120_000);

afterAll(async () => {
  await lookups?.stop();
  await deliveries?.stop();
  await t?.close();
  await new Promise((resolve) => server?.close(resolve));
});

const served = async () => {
  const { body } = await t.graphql(`{ issues(limit: 100) { data { id title affectedPackageRefs classification { relevant reasons { kind detail } } } } }`);
  return body.data.issues.data as {
    id: string;
    title: string;
    affectedPackageRefs: string[];
    classification: { reasons: { kind: string; detail: string }[] };
  }[];
};

describe('registry lookups', () => {
  it('serve what the registry calls AI/ML software, once, with the summary as the reason', async () => {
    const hook = await createWebhook(t, deliveries.receiver.url('/lookups'));
    await deliveries.dispatcher.refresh();
    const res = await t.fetch('/api/v1/admin/ingest', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...adminHeaders },
      body: JSON.stringify({ items: records }),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({ created: 6, rejected: [] });

    // The ingest asked the runner; it looks up in the background and judges the two again.
    await vi.waitFor(async () => expect((await served()).map((i) => i.affectedPackageRefs[0]).sort()).toEqual(['PyPI:Quokka_Serve', 'npm:@wombat/crew']), {
      timeout: 30_000,
      interval: 50,
    });
    const quokka = (await served()).find((i) => i.affectedPackageRefs[0] === 'PyPI:Quokka_Serve')!;
    expect(quokka.classification.reasons).toContainEqual({
      kind: 'registry-summary',
      detail: 'PyPI:Quokka_Serve (looked up: Inference server for PyTorch and ONNX models)',
    });

    // Each package asked once (PEP 503 name for PyPI, escaped scope for npm).
    expect([...asked].sort()).toEqual([...registry.keys()].sort());
    const profiles = await t.db.prisma.packageProfile.findMany({ orderBy: [{ ecosystem: 'asc' }, { name: 'asc' }] });
    // Anybody publishes summaries: one with a NUL is stored without it.
    expect(profiles.find((p) => p.name === 'tiny-rooter')?.summary).toBe('A tiny HTTP router');
    expect(profiles.map((p) => [p.ecosystem, p.name, p.status, p.aiSummary])).toEqual([
      ['npm', '@wombat/crew', 'found', true],
      ['npm', 'tiny-rooter', 'found', false],
      ['pypi', 'ghostpkg', 'missing', false],
      ['pypi', 'ledgerlyne', 'found', false],
      ['pypi', 'quokka-serve', 'found', true],
    ]);

    // Delivered once, naming exactly the two.
    const [delivery] = await deliveries.receiver.waitFor((r) => r.some((x) => x.path === '/lookups'));
    const ids = (await served()).map((i) => i.id).sort();
    expect(
      JSON.parse(delivery!.body.toString())
        .issues.map((i: { id: string }) => i.id)
        .sort(),
    ).toEqual(ids);
    expect(hook.active).toBe(true);

    // A second run asks only what failed, changes nothing and announces nothing.
    const events = await t.db.prisma.issueEvent.count({ where: { kind: 'new_issues' } });
    asked.length = 0;
    const again = await lookUpRegistries({ prisma: t.db.prisma, pubsub: t.pubsub, log: createLogger('silent'), db: t.db }, urls);
    expect(again).toMatchObject({ asked: 1, found: 0, missing: 0, failed: 1, changed: 0, reclassified: null });
    expect(asked).toEqual(['/pypi/flakypkg/json']);
    expect(await t.db.prisma.issueEvent.count({ where: { kind: 'new_issues' } })).toBe(events);
    expect(deliveries.receiver.requests.filter((r) => r.path === '/lookups')).toHaveLength(1);
  });

  it('keeps the judgement when an advisory comes again, and drops it when the registry changes its mind', async () => {
    const deps = { prisma: t.db.prisma, pubsub: t.pubsub, log: createLogger('silent'), db: t.db };
    const revised = { ...records[0]!, modified: '2026-10-02T00:00:00Z', summary: 'Path traversal in the upload endpoint' };
    const res = await t.fetch('/api/v1/admin/ingest', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...adminHeaders },
      body: JSON.stringify({ items: [revised] }),
    });
    expect((await res.json()).data).toMatchObject({ updated: 1 });
    expect((await served()).map((i) => i.title)).toContain('Path traversal in the upload endpoint');
    // The ingest asked the runner about the revised advisory: on a busy machine that run could
    // otherwise start after the registry below changes its answer, and take the change first.
    await lookups.idle();

    // A month on, the registry describes the package as something else: it leaves the feed.
    registry.set('/pypi/quokka-serve/json', { status: 200, body: { info: { name: 'quokka-serve', summary: 'A file server' } } });
    await t.db.prisma.packageProfile.updateMany({ data: { checkedAt: new Date('2026-01-01T00:00:00Z') } });
    const result = await lookUpRegistries(deps, urls);
    expect(result).toMatchObject({ changed: 1, reclassified: { newlyServed: 0, unserved: 1 } });
    expect((await served()).map((i) => i.affectedPackageRefs[0])).toEqual(['npm:@wombat/crew']);
  });

  it('stop at once when the server stops, storing nothing of the step cut short', async () => {
    const deps = { prisma: t.db.prisma, pubsub: t.pubsub, log: createLogger('silent'), db: t.db };
    const runner = startRegistryLookups(deps, urls);
    // Stored directly, not through the route, so only this runner asks.
    const { ids } = await ingest(deps, [advisory('GHSA-u7u7-u7u7-u7u7', 'PyPI', 'stuckpkg', 'Path traversal in the cache')]);
    runner.request(ids);
    await vi.waitFor(() => expect(asked).toContain('/pypi/stuckpkg/json'), { timeout: 20_000, interval: 20 });
    await runner.stop();
    expect(await t.db.prisma.packageProfile.count({ where: { name: 'stuckpkg' } })).toBe(0);
    runner.request(ids); // stopped: asks nothing more
    expect(asked.filter((a) => a === '/pypi/stuckpkg/json')).toHaveLength(1);
  });

  it('run after a CLI ingest, with a summary line, and on their own with `lookup`', async () => {
    registry.set('/pypi/quokka-serve/json', { status: 200, body: { info: { name: 'quokka-serve', summary: 'Inference server for PyTorch and ONNX models' } } });
    const dir = await mkdtemp(join(tmpdir(), 'secwire-lookup-'));
    const { env, pg } = await cliDatabase(dir);
    try {
      await writeFile(join(dir, 'records.json'), JSON.stringify(records));
      const lookupEnv = { ...env, REGISTRY_LOOKUP: 'true', PYPI_URL: urls.pypiUrl, NPM_REGISTRY_URL: urls.npmUrl };
      const ingest = await runCli(lookupEnv, ['ingest', join(dir, 'records.json')]);
      expect(ingest.code, ingest.stderr).toBe(0);
      expect(ingest.stdout).toMatch(/^received 6 records: created 6, /m);
      expect(ingest.stdout).toMatch(
        /^registry lookups: asked 6 \(found 4, missing 1, failed 1\), summaries changed 2, newly served 2, no longer served 0 in [\d.]+ s$/m,
      );

      const again = await runCli(lookupEnv, ['lookup']);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(/^registry lookups: asked 1 \(found 0, missing 0, failed 1\), summaries changed 0, newly served 0, /m);
      const off = await runCli(env, ['lookup']);
      expect(off.code).toBe(1);
      expect(off.stderr).toContain('registry lookups are off (REGISTRY_LOOKUP=false)');
    } finally {
      await pg?.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
