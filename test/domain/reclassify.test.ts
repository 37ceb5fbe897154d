// Reclassification end to end: issues stored by an older classifier version are re-run from their
// source records through POST /api/v1/admin/reclassify; newly relevant ones reach a real HTTPS
// webhook receiver exactly once, wrongly served ones leave the feed, and a second run is a no-op.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultJudge } from '../../src/ingest/classifier/relevance.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { startDeliveries, type Deliveries } from '../helpers/deliveries.js';
import { adminHeaders, adminKey as adminApiKey, loadAdvisories, loadItems } from '../helpers/samples.js';
import { createWebhook, webhookKey } from '../helpers/webhooks.js';

let t: TestApp;
let deliveries: Deliveries;

const post = (path: string, body?: unknown) =>
  t.fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...adminHeaders },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

beforeAll(async () => {
  t = await createTestApp({ webhookApiKey: webhookKey, webhookAllowPrivateTargets: true, adminApiKey });
  deliveries = await startDeliveries(t, { worker: { timeoutMs: 2000, leaseMs: 20_000 } });
  const items = [...loadAdvisories(), ...loadItems('news-and-regulation.json')];
  const res = await post('/api/v1/admin/ingest', { items });
  expect(res.status).toBe(200);
}, 180_000);

afterAll(async () => {
  await deliveries?.stop();
  await t?.close();
});

describe('reclassify', () => {
  it('publishes each newly relevant issue once, unserves wrongly served ones, and does nothing the second time', async () => {
    const prisma = t.db.prisma;
    const rows = await prisma.issue.findMany({ orderBy: { id: 'asc' }, select: { id: true, relevant: true, sourceUrl: true } });
    const log4shell = rows.find((r) => r.sourceUrl.includes('apache-log4j'))!;
    expect(log4shell.relevant).toBe(false);
    const served = rows.filter((r) => r.relevant);
    // What an older classifier left behind: three relevant issues it missed (never served, never
    // announced), one it served and later dropped (announced already), and Log4Shell served by mistake.
    const missed = served.slice(0, 3).map((r) => r.id);
    const returning = served[3]!.id;
    await prisma.issue.updateMany({ data: { classifierPromptVersion: 'rules-1.0.0' } });
    await prisma.issue.updateMany({ where: { id: { in: missed } }, data: { relevant: false, announcedAt: null } });
    await prisma.issue.update({ where: { id: returning }, data: { relevant: false } });
    await prisma.issue.update({ where: { id: log4shell.id }, data: { relevant: true, announcedAt: new Date() } });

    const hook = await createWebhook(t, deliveries.receiver.url('/reclassify'));
    await deliveries.dispatcher.refresh();
    const eventsBefore = new Set((await prisma.issueEvent.findMany({ where: { kind: 'new_issues' }, select: { id: true } })).map((e) => e.id));

    const res = await post('/api/v1/admin/reclassify');
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({ examined: rows.length, updated: rows.length, newlyServed: 4, unserved: 1, failed: 0 });
    // The classifier's own version (rules version + hash of its data), whatever the current rules are.
    expect(data.version).toBe(defaultJudge().version);
    expect(data.version).toMatch(/^rules-\d+\.\d+\.\d+\+[0-9a-f]{8}$/);

    // One new_issues event, naming exactly the missed issues: the returning one was announced
    // before. (Issues that stay served and change get an issues_updated event beside it.)
    const events = (await prisma.issueEvent.findMany({ where: { kind: 'new_issues' } })).filter((e) => !eventsBefore.has(e.id));
    expect(events).toHaveLength(1);
    expect(events.flatMap((e) => e.issueIds).sort()).toEqual([...missed].sort());
    const [delivery] = await deliveries.receiver.waitFor((r) => r.some((x) => x.path === '/reclassify'));
    const body = JSON.parse(delivery!.body.toString());
    expect(body.issues.map((i: { id: string }) => i.id).sort()).toEqual([...missed].sort());
    expect(hook.active).toBe(true);

    // Served now: the missed and the returning issues; Log4Shell is gone from the feed.
    for (const id of [...missed, returning]) expect((await t.fetch(`/api/v1/issues/${id}`)).status).toBe(200);
    expect((await t.fetch(`/api/v1/issues/${log4shell.id}`)).status).toBe(404);
    const { body: graph } = await t.graphql(`{ issue(id: "${missed[0]}") { data { classification { version relevant reasons { kind } } } } }`);
    expect(graph.data.issue.data.classification).toMatchObject({ version: data.version, relevant: true });

    // Idempotent: nothing is stale, nothing changes, no event is written, so nothing more is sent.
    const again = await (await post('/api/v1/admin/reclassify')).json();
    expect(again.data).toMatchObject({ examined: 0, updated: 0, newlyServed: 0, unserved: 0, failed: 0 });
    expect(await prisma.issueEvent.count({ where: { kind: 'new_issues' } })).toBe(eventsBefore.size + 1);
    expect(deliveries.receiver.requests.filter((r) => r.path === '/reclassify')).toHaveLength(1);
  });

  it('answers 401 without the admin key and changes nothing', async () => {
    const res = await t.fetch('/api/v1/admin/reclassify', { method: 'POST' });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: { message: expect.any(String), status: 401 } });
  });
});
