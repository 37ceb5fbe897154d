// Watched stacks (issue 31): a webhook with a stack receives new_issues only for issues affecting a
// listed version, exactly what the scan reports for the same components, with the components that
// matched; a fixed version is never notified; an upstream update that widens a range notifies a
// newly affected stack once; an unaffected stack receives nothing; its findings, VEX and Atom feed
// say what affects it now. Bad stacks are a 400 (or 413) envelope and change nothing.
import { readFileSync } from 'node:fs';
import { parseFeed } from '@rowanmanning/feed-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { startWebhookApp, type Deliveries } from '../helpers/deliveries.js';
import type { ReceivedRequest } from '../helpers/https-receiver.js';
import { makeIssue } from '../helpers/issues.js';
import { adminHeaders, loadAdvisories, loadAdvisory } from '../helpers/samples.js';
import { bearer, publishIssues, registerWebhookRest } from '../helpers/webhooks.js';

let t: TestApp;
let deliveries: Deliveries;

beforeAll(async () => {
  ({ t, deliveries } = await startWebhookApp());
});

afterAll(async () => {
  await deliveries?.stop();
  await t?.close();
});

/** 20 components: affected versions, fixed versions, a PEP 503 spelling, a Go purl, an npm purl of a PyPI name, a model. */
const stack20 = [
  'langchain@0.0.300',
  'gradio@3.40.0',
  'llama-index@0.9.30',
  'transformers@4.30.0',
  'tensorflow@2.11.0',
  'mlflow@2.9.0',
  'numpy@1.26.0',
  'requests@2.31.0',
  'litellm@1.35.36', // the fixed version of GHSA-3xr8-qfvj-9p9j (still inside GHSA-g26j-5385-hhw3)
  'gradio@4.44.0',
  'pkg:pypi/Llama_Index@0.9.30',
  'qdrant-client@1.9.0', // fixed
  'haystack-ai@2.3.1', // fixed
  'streamlit@1.11.1', // fixed
  'jupyter-server@2.7.2', // fixed
  'pkg:golang/github.com/ollama/ollama@0.1.30',
  'nltk@3.6.4', // fixed
  'vllm@0.5.0',
  'pkg:npm/langchain@0.0.300', // another ecosystem: no PyPI advisory applies
  'pkg:huggingface/meta-llama/Llama-3.1-8B',
];
const fixedComponents = ['qdrant-client@1.9.0', 'haystack-ai@2.3.1', 'streamlit@1.11.1', 'jupyter-server@2.7.2', 'nltk@3.6.4', 'pkg:npm/langchain@0.0.300'];

interface Delivery {
  event: string;
  issues: { id: string; title: string }[];
  matchedComponents?: { issueId: string; components: string[] }[];
}
const bodies = (path: string) => (requests: ReceivedRequest[]) => requests.filter((r) => r.path === path).map((r) => r.json as Delivery);

async function ingest(records: Record<string, unknown>[]) {
  const res = await t.fetch('/api/v1/admin/ingest', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...adminHeaders },
    body: JSON.stringify({ items: records }),
  });
  expect(res.status).toBe(200);
}

async function scan(packages: string[]) {
  const res = await t.fetch('/api/v1/scan', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ packages }) });
  return (await res.json()) as { data: { id: string; matchedPackages: string[] }[]; meta: { total: number } };
}

const get = async (path: string) => {
  const res = await t.fetch(path, { headers: bearer() });
  return { status: res.status, body: (await res.json()) as any };
};

const widened = 'GHSA-3xr8-qfvj-9p9j';
let watcher: string;

describe('a watched stack', () => {
  it('receives exactly what the scan reports for its components, never a fixed version, and an unaffected stack nothing', async () => {
    const plain = await registerWebhookRest(t, { url: deliveries.receiver.url('/plain') });
    const watched = await registerWebhookRest(t, {
      url: deliveries.receiver.url('/stack'),
      stack: { packages: stack20 },
      events: ['new_issues', 'issues_updated'],
    });
    const unaffected = await registerWebhookRest(t, {
      url: deliveries.receiver.url('/unaffected'),
      stack: { packages: ['vllm@0.5.0', 'pkg:npm/left-pad@1.3.0'] },
    });
    // Without a stack, opted in to updates: every update reaches it (the witness that a sweep ran).
    const updates = await registerWebhookRest(t, { url: deliveries.receiver.url('/updates'), events: ['issues_updated'] });
    expect([plain, watched, unaffected, updates].map((r) => (r.status === 201 ? 201 : JSON.stringify(r.body)))).toEqual([201, 201, 201, 201]);
    // The creation answer keeps the spec's shape.
    expect(Object.keys(watched.body.data).sort()).toEqual(Object.keys(plain.body.data).sort());
    watcher = watched.body.data.id;
    await deliveries.dispatcher.refresh();

    // Two batches: affecting and non-affecting advisories in each.
    const advisories = loadAdvisories().filter((a) => !a.withdrawn);
    await ingest(advisories.slice(0, 30));
    await ingest(advisories.slice(30));

    const expected = await scan(stack20);
    expect(expected.meta.total).toBeGreaterThan(10);
    const delivered = (requests: ReceivedRequest[]) => bodies('/stack')(requests).flatMap((d) => d.issues.map((i) => i.id));
    const requests = await deliveries.receiver.waitFor((r) => new Set(delivered(r)).size >= expected.meta.total && bodies('/plain')(r).length >= 2);

    const stackBodies = bodies('/stack')(requests);
    expect(stackBodies.every((d) => d.event === 'new_issues')).toBe(true);
    expect(delivered(requests).sort()).toEqual(expected.data.map((m) => m.id).sort());
    // One additive field: the components that matched each issue, as the scan names them.
    const matched = new Map(stackBodies.flatMap((d) => d.matchedComponents!.map((m) => [m.issueId, m.components] as const)));
    for (const m of expected.data) expect(matched.get(m.id)).toEqual(m.matchedPackages);
    for (const d of stackBodies) expect(Object.keys(d).sort()).toEqual(['deliveredAt', 'event', 'issues', 'matchedComponents']);
    // A fixed version is never notified (nor a purl of another ecosystem).
    for (const components of matched.values()) for (const fixed of fixedComponents) expect(components).not.toContain(fixed);
    expect(matched.get(await issueIdOf(widened))).toBeUndefined();
    // PEP 503: the purl spelling matched with the plain name.
    expect([...matched.values()].some((c) => c.includes('pkg:pypi/Llama_Index@0.9.30') && c.includes('llama-index@0.9.30'))).toBe(true);

    // The plain webhook's body is the spec's; the unaffected stack has no row at all (rows of one
    // event are written in one pass, so its rows would exist by now).
    for (const d of bodies('/plain')(requests)) expect(Object.keys(d).sort()).toEqual(['deliveredAt', 'event', 'issues']);
    expect(await t.db.prisma.webhookDelivery.count({ where: { webhookId: unaffected.body.data.id } })).toBe(0);

    // Findings: what affects it now, paged.
    const page = await get(`/api/v1/webhooks/${watcher}/findings?limit=5&offset=2`);
    expect(page.status).toBe(200);
    expect(page.body.meta).toEqual({ total: expected.meta.total, limit: 5, offset: 2 });
    expect(page.body.data.map((m: { id: string }) => m.id)).toEqual(expected.data.slice(2, 7).map((m) => m.id));
  }, 180_000);

  it('notifies a newly affected stack once when an upstream update widens a range, and nothing for the past on a change', async () => {
    const advisory = loadAdvisory(widened);
    const later = (days: number) => new Date(Date.parse(advisory.modified) + days * 86_400_000).toISOString();
    const widen = structuredClone(advisory);
    widen.modified = later(1);
    widen.affected[0].ranges[0].events = [{ introduced: '0' }, { fixed: '1.35.37' }];
    await ingest([widen]);
    const id = await issueIdOf(widened);
    const updates = (r: ReceivedRequest[]) => bodies('/stack')(r).filter((d) => d.event === 'issues_updated');
    const [update] = updates(await deliveries.receiver.waitFor((r) => updates(r).length >= 1));
    expect(update!.issues.map((i) => i.id)).toEqual([id]);
    expect(update!.matchedComponents).toEqual([{ issueId: id, components: ['litellm@1.35.36'] }]);

    // Another upstream change of the same issue: the stack knows it already.
    await ingest([{ ...widen, summary: `${widen.summary} (revised)`, modified: later(2) }]);
    const seen = (r: ReceivedRequest[]) => bodies('/updates')(r).filter((d) => d.issues.some((i) => i.id === id));
    await deliveries.receiver.waitFor((r) => seen(r).length >= 2);
    // Refreshes queue behind sweeps: once this resolves, the sweep that wrote that row is done.
    await deliveries.dispatcher.refresh();
    const second = await t.db.prisma.webhookDelivery.count({ where: { webhookId: watcher, kind: 'issues_updated' } });
    expect(second).toBe(1);

    // Changing the stack sends nothing from the past.
    const before = await t.db.prisma.webhookDelivery.count({ where: { webhookId: watcher } });
    const res = await t.fetch(`/api/v1/webhooks/${watcher}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', ...bearer() },
      body: JSON.stringify({ stack: { packages: ['gradio@3.40.0'] } }),
    });
    expect(res.status).toBe(200);
    await deliveries.dispatcher.refresh();
    expect(await t.db.prisma.webhookDelivery.count({ where: { webhookId: watcher } })).toBe(before);
    expect((await get(`/api/v1/webhooks/${watcher}/findings`)).body.meta.total).toBe((await scan(['gradio@3.40.0'])).meta.total);
  }, 120_000);

  it('sends a stack webhook the withdrawals of issues that affected it only', async () => {
    const stack = ['gradio@3.40.0'];
    const watching = await registerWebhookRest(t, {
      url: deliveries.receiver.url('/withdrawn-stack'),
      stack: { packages: stack },
      events: ['issues_withdrawn'],
    });
    const plain = await registerWebhookRest(t, { url: deliveries.receiver.url('/withdrawn-plain'), events: ['issues_withdrawn'] });
    expect([watching.status, plain.status]).toEqual([201, 201]);
    await deliveries.dispatcher.refresh();

    // Two advisories affecting the stack: one withdrawn as it was, one whose withdrawn record no
    // longer names the stack's version (the stack was told of it, so it hears of the withdrawal).
    const affecting = (await scan(stack)).data.map((m) => m.id);
    expect(affecting.length).toBeGreaterThanOrEqual(2);
    const ghsaOf = async (id: string) =>
      (await t.db.prisma.issue.findUniqueOrThrow({ where: { id }, select: { identifiers: true } })).identifiers.find((i) => i.startsWith('GHSA-'))!;
    const [kept, narrowed] = [loadAdvisory(await ghsaOf(affecting[0]!)), loadAdvisory(await ghsaOf(affecting[1]!))];
    const other = loadAdvisories().find((a) => !a.withdrawn && a.affected.every((x: { package: { name: string } }) => x.package.name !== 'gradio'))!;
    const withdraw = (advisory: Record<string, any>): Record<string, any> => {
      const at = new Date(Date.parse(advisory.modified) + 30 * 86_400_000).toISOString();
      return { ...advisory, withdrawn: at, modified: at };
    };
    const narrow = withdraw(narrowed);
    narrow.affected = [{ ...narrow.affected[0], ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '5.0.0' }, { fixed: '5.0.1' }] }], versions: [] }];
    await ingest([withdraw(kept), narrow, withdraw(other)]);

    const withdrawnIds = [affecting[0]!, affecting[1]!, await issueIdOf(other.id)];
    const plainIds = (r: ReceivedRequest[]) => new Set(bodies('/withdrawn-plain')(r).flatMap((d) => d.issues.map((i) => i.id)));
    await deliveries.receiver.waitFor((r) => withdrawnIds.every((id) => plainIds(r).has(id)));
    // Withdrawals travel by the sweep, which writes a stack's rows in the pass that writes the plain
    // ones; refreshes queue behind sweeps, so once this resolves every row is there.
    await deliveries.dispatcher.refresh();
    const rows = await t.db.prisma.webhookDelivery.count({ where: { webhookId: watching.body.data.id } });
    const received = bodies('/withdrawn-stack')(await deliveries.receiver.waitFor((r) => bodies('/withdrawn-stack')(r).length >= rows));
    expect(received.every((d) => d.event === 'issues_withdrawn')).toBe(true);
    expect(received.flatMap((d) => d.issues.map((i) => i.id)).sort()).toEqual([affecting[0]!, affecting[1]!].sort());
    expect(received.flatMap((d) => d.matchedComponents!).sort((a, b) => a.issueId.localeCompare(b.issueId))).toEqual(
      [affecting[0]!, affecting[1]!].sort().map((issueId) => ({ issueId, components: stack })),
    );
  });

  it('registers a stack from a real SBOM, answers its findings as CycloneDX VEX and serves them as an Atom feed', async () => {
    const sbom = JSON.parse(readFileSync(new URL('../fixtures/sbom/python-ai-stack.cdx-1.6.json', import.meta.url), 'utf8'));
    const created = await registerWebhookRest(t, { url: deliveries.receiver.url('/sbom'), stack: { sbom } });
    expect(created.status).toBe(201);
    const hook = created.body.data.id as string;
    const expected = await t.fetch('/api/v1/scan', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sbom }) });
    const scanned = (await expected.json()) as { data: { id: string }[] };
    expect(scanned.data.length).toBeGreaterThan(0);

    const vex = await get(`/api/v1/webhooks/${hook}/findings/vex`);
    expect(vex.status).toBe(200);
    expect(vex.body).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.6' });
    expect(vex.body.vulnerabilities.map((v: { 'bom-ref': string }) => v['bom-ref']).sort()).toEqual(scanned.data.map((m) => `secwire-issue-${m.id}`).sort());
    // The SBOM's own refs name the affected components.
    const refs = new Set(sbom.components.map((c: { 'bom-ref': string }) => c['bom-ref']));
    for (const v of vex.body.vulnerabilities) for (const a of v.affects) expect(refs.has(a.ref)).toBe(true);

    const feed = await t.fetch(`/api/v1/webhooks/${hook}/feed`, { method: 'POST', headers: bearer() });
    expect(feed.status).toBe(201);
    const { path, token } = ((await feed.json()) as { data: { path: string; token: string } }).data;
    expect(token).toMatch(/^swf_[A-Za-z0-9_-]{43}$/);
    const atom = await t.fetch(path);
    expect(atom.status).toBe(200);
    expect(atom.headers.get('content-type')).toMatch(/^application\/atom\+xml/);
    const parsed = parseFeed(await atom.text());
    expect(parsed.meta.type).toBe('atom');
    expect(parsed.items.map((i) => i.id!.replace('urn:uuid:', '')).sort()).toEqual(scanned.data.map((m) => m.id).sort());

    // Another key cannot revoke it, the owner can, and a guessed token is the same 404.
    const other = await t.fetch(`/api/v1/webhooks/${hook}/feed`, { method: 'DELETE', headers: bearer('some-other-key') });
    expect(other.status).toBe(401);
    const revoked = await t.fetch(`/api/v1/webhooks/${hook}/feed`, { method: 'DELETE', headers: bearer() });
    expect(revoked.status).toBe(200);
    for (const p of [path, `/api/v1/stacks/swf_${'A'.repeat(43)}.atom`]) {
      const res = await t.fetch(p);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: { message: 'Feed not found', status: 404 } });
    }
  });

  it('matches models and agent tools by package or by vendor and product, in the scan and in a watched SBOM alike', async () => {
    const model = { type: 'machine-learning-model', 'bom-ref': 'model-1', group: 'meta-llama', name: 'Llama-3.1-8B' };
    const sbom = {
      bomFormat: 'CycloneDX',
      specVersion: '1.6',
      components: [model, { type: 'application', name: 'claude-code', purl: 'pkg:generic/anthropic/claude-code@1.0.3' }],
    };
    const created = await registerWebhookRest(t, { url: deliveries.receiver.url('/models'), stack: { sbom } });
    expect(created.status).toBe(201);
    await deliveries.dispatcher.refresh();
    const [byVendor, byPackage, vendorOnly] = (
      await publishIssues(t, [
        { title: 'Backdoored Llama 3.1 8B weights', vendorKeys: ['meta-llama', 'llama-3.1-8b'] },
        { title: 'Claude Code tool runs arbitrary commands', packageNames: ['anthropic/claude-code'] },
        { title: 'Another Meta model', vendorKeys: ['meta-llama', 'llama-2-7b'] },
      ])
    ).issueIds;
    const scanned = await t.fetch('/api/v1/scan', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sbom }) });
    const matches = ((await scanned.json()) as { data: { id: string; matchedPackages: string[] }[] }).data;
    expect(matches.map((m) => [m.id, m.matchedPackages]).sort()).toEqual(
      [
        [byVendor, ['pkg:huggingface/meta-llama/Llama-3.1-8B']],
        [byPackage, ['pkg:generic/anthropic/claude-code@1.0.3']],
      ].sort(),
    );
    const [delivery] = bodies('/models')(await deliveries.receiver.waitFor((r) => bodies('/models')(r).length >= 1));
    expect(delivery!.issues.map((i) => i.id).sort()).toEqual([byVendor, byPackage].sort());
    expect(delivery!.issues.map((i) => i.id)).not.toContain(vendorOnly);
  });

  it('answers a repeated read of findings, VEX and feed from what it kept at the data version, and anew once it moves', async () => {
    const created = await registerWebhookRest(t, { url: deliveries.receiver.url('/kept'), stack: { packages: ['pkg:generic/acme/kept-tool@1.0.0'] } });
    expect(created.status).toBe(201);
    const hook = created.body.data.id as string;
    const feed = await t.fetch(`/api/v1/webhooks/${hook}/feed`, { method: 'POST', headers: bearer() });
    const { path } = ((await feed.json()) as { data: { path: string } }).data;
    const answers = async () => ({
      findings: (await get(`/api/v1/webhooks/${hook}/findings`)).body.meta.total,
      vex: (await get(`/api/v1/webhooks/${hook}/findings/vex`)).body.vulnerabilities.length,
      feed: parseFeed(await (await t.fetch(path)).text()).items.length,
    });
    expect(await answers()).toEqual({ findings: 0, vex: 0, feed: 0 });
    // An issue written past every path that moves the data version: what was kept still answers.
    await t.db.prisma.issue.create({ data: makeIssue({ title: 'Kept tool runs arbitrary code', packageNames: ['acme/kept-tool'] }) });
    expect(await answers()).toEqual({ findings: 0, vex: 0, feed: 0 });
    // The version moves (as every change to served data moves it): the answers are the scan's again.
    await t.db.prisma.$executeRaw`UPDATE "DataVersion" SET version = version + 1 WHERE id = 1`;
    expect(await answers()).toEqual({ findings: 1, vex: 1, feed: 1 });
  });

  it('stops watching on "stack": null, over REST alone or with another field and over GraphQL alike', async () => {
    const stack = { packages: ['gradio@3.40.0'] };
    const paths = ['/unwatch-rest-alone', '/unwatch-rest-with', '/unwatch-graphql'];
    const hooks: string[] = [];
    const feeds: string[] = [];
    for (const path of paths) {
      const created = await registerWebhookRest(t, { url: deliveries.receiver.url(path), stack });
      expect(created.status).toBe(201);
      hooks.push(created.body.data.id);
      const feed = await t.fetch(`/api/v1/webhooks/${created.body.data.id}/feed`, { method: 'POST', headers: bearer() });
      feeds.push(((await feed.json()) as { data: { path: string } }).data.path);
      expect((await t.fetch(feeds.at(-1)!)).status).toBe(200);
    }
    const patch = async (id: string, body: unknown) => {
      const res = await t.fetch(`/api/v1/webhooks/${id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', ...bearer() },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    expect((await patch(hooks[0]!, { stack: null })).status).toBe(200);
    expect((await patch(hooks[1]!, { stack: null, events: ['new_issues'] })).status).toBe(200);
    const { body } = await t.graphql(`mutation ($id: ID!) { updateWebhook(id: $id, stack: null) { data { watchedComponents } } }`, { id: hooks[2] }, bearer());
    expect(body).toEqual({ data: { updateWebhook: { data: { watchedComponents: 0 } } } });

    for (const [i, id] of hooks.entries()) {
      // No findings, no feed, no stack rows.
      expect(await get(`/api/v1/webhooks/${id}/findings`), paths[i]).toEqual({
        status: 400,
        body: { error: { message: 'The webhook watches no stack', status: 400 } },
      });
      expect((await t.fetch(feeds[i]!)).status, paths[i]).toBe(404);
      expect(await t.db.prisma.stackEntry.count({ where: { webhookId: id } })).toBe(0);
    }
    // No filtering: an issue that does not affect the old stack reaches every one of them.
    await deliveries.dispatcher.refresh();
    const {
      issueIds: [unrelated],
    } = await publishIssues(t, [{ title: 'An issue of another package', packageNames: ['left-pad'] }]);
    const reached = (r: ReceivedRequest[]) => paths.filter((p) => bodies(p)(r).some((d) => d.issues.some((i) => i.id === unrelated)));
    expect(reached(await deliveries.receiver.waitFor((r) => reached(r).length === paths.length))).toEqual(paths);
  });

  it('refuses bad stacks with a clear 4xx and changes nothing', async () => {
    const count = async () => t.db.prisma.webhook.count();
    const before = await count();
    const tooMany = Array.from({ length: 100_000 }, (_, i) => `p${i % 100}`);
    const cases: [unknown, RegExp][] = [
      [{ sbom: { bomFormat: 'CycloneDX', specVersion: '1.6', components: 'none' } }, /^CycloneDX components must be a list/],
      [{ sbom: '<bom/>' }, /^The SBOM must be a JSON object/],
      [{ packages: tooMany }, /^packages has 100000 entries; at most 1000/],
      [{ packages: ['pkg:foo/bar@1.0'] }, /unknown package type "foo"/],
      [{ packages: ['vllm\u0000@0.5.0'] }, /must not contain NUL/],
      [{ sbom: { bomFormat: 'CycloneDX', specVersion: '1.6', components: [{ name: 'x\u0000', purl: 'pkg:pypi/x@1' }] } }, /must not contain NUL/],
      [{ packages: ['vllm@0.5.0'], sbom: { bomFormat: 'CycloneDX' } }, /either packages or sbom/],
    ];
    for (const [stack, message] of cases) {
      const res = await registerWebhookRest(t, { url: deliveries.receiver.url('/bad'), stack });
      expect(res.status, JSON.stringify(res.body).slice(0, 200)).toBe(400);
      expect(res.body.error.status).toBe(400);
      expect(res.body.error.message).toMatch(message);
    }
    // 100,000 SBOM components pass the 1 MB body limit: 413 in the envelope.
    const huge = {
      url: deliveries.receiver.url('/bad'),
      stack: { sbom: { bomFormat: 'CycloneDX', specVersion: '1.6', components: tooMany.map((p) => ({ purl: `pkg:pypi/${p}` })) } },
    };
    const res = await registerWebhookRest(t, huge);
    expect(res.status).toBe(413);
    expect(res.body.error.status).toBe(413);
    // A bad PATCH leaves the stack as it was.
    const patch = await t.fetch(`/api/v1/webhooks/${watcher}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', ...bearer() },
      body: JSON.stringify({ stack: { packages: ['pkg:foo/bar@1'] } }),
    });
    expect(patch.status).toBe(400);
    expect((await t.db.prisma.watchedStack.findUniqueOrThrow({ where: { webhookId: watcher } })).components).toEqual([
      { entry: 'gradio@3.40.0', ref: 'gradio@3.40.0', name: 'gradio@3.40.0' },
    ]);
    expect(await count()).toBe(before);
  });
});

async function issueIdOf(ghsa: string): Promise<string> {
  const issue = await t.db.prisma.issue.findFirstOrThrow({ where: { identifiers: { has: ghsa } }, select: { id: true } });
  return issue.id;
}
