// Webhooks that opt in to more event kinds: a changed advisory reaches them as issues_updated, a
// withdrawn one as issues_withdrawn (ids only, it is no longer served), each once; a webhook that
// did not opt in receives new_issues exactly as the spec says, and nothing else.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { startWebhookApp, type Deliveries } from '../helpers/deliveries.js';
import type { ReceivedRequest } from '../helpers/https-receiver.js';
import { adminHeaders, loadAdvisories } from '../helpers/samples.js';
import { bearer, registerWebhookRest } from '../helpers/webhooks.js';

let t: TestApp;
let deliveries: Deliveries;

beforeAll(async () => {
  ({ t, deliveries } = await startWebhookApp());
});

afterAll(async () => {
  await deliveries?.stop();
  await t?.close();
});

const events = (path: string) => (requests: ReceivedRequest[]) =>
  requests.filter((r) => r.path === path).map((r) => JSON.parse(r.body.toString('utf8')) as { event: string; issues: { id: string; title?: string }[] });

async function ingest(record: Record<string, unknown>) {
  const res = await t.fetch('/api/v1/admin/ingest', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...adminHeaders },
    body: JSON.stringify({ items: [record] }),
  });
  expect(res.status).toBe(200);
}

it('delivers issues_updated and issues_withdrawn to webhooks that opted in, and nothing new to the others', async () => {
  const plain = await registerWebhookRest(t, { url: deliveries.receiver.url('/plain') });
  expect(plain.status).toBe(201);
  // REST takes the new optional field, and its answer keeps the spec's shape.
  const restOpted = await registerWebhookRest(t, { url: deliveries.receiver.url('/updates-only'), events: ['issues_updated'] });
  expect(restOpted.status).toBe(201);
  expect(restOpted.body.data).not.toHaveProperty('events');
  const { body } = await t.graphql(
    'mutation ($url: String!) { createWebhook(url: $url, events: [new_issues, issues_updated, issues_withdrawn, issues_updated]) { data { id events } } }',
    { url: deliveries.receiver.url('/all') },
    bearer(),
  );
  expect(body.data.createWebhook.data.events).toEqual(['new_issues', 'issues_updated', 'issues_withdrawn']);
  const empty = await t.graphql(
    'mutation ($url: String!) { createWebhook(url: $url, events: []) { data { id } } }',
    { url: deliveries.receiver.url('/none') },
    bearer(),
  );
  expect(empty.body.errors?.[0]?.message).toMatch(/^events must name at least one of/);
  await deliveries.dispatcher.refresh();

  const advisory = loadAdvisories().find((a) => !a.withdrawn)!;
  await ingest(advisory);
  const [created] = events('/all')(await deliveries.receiver.waitFor((r) => events('/all')(r).length >= 1));
  expect(created!.event).toBe('new_issues');
  const id = created!.issues[0]!.id;

  const later = (days: number) => new Date(Date.parse(advisory.modified) + days * 86_400_000).toISOString();
  await ingest({ ...advisory, summary: `${advisory.summary} (revised)`, modified: later(1) });
  const afterUpdate = await deliveries.receiver.waitFor((r) => events('/all')(r).length >= 2 && events('/updates-only')(r).length >= 1);
  expect(events('/all')(afterUpdate)[1]).toMatchObject({ event: 'issues_updated', issues: [{ id }] });
  expect(events('/updates-only')(afterUpdate)).toEqual([expect.objectContaining({ event: 'issues_updated', issues: [expect.objectContaining({ id })] })]);

  await ingest({ ...advisory, withdrawn: later(2), modified: later(2) });
  const afterWithdrawal = await deliveries.receiver.waitFor((r) => events('/all')(r).length >= 3);
  expect(events('/all')(afterWithdrawal)[2]).toEqual({ event: 'issues_withdrawn', issues: [{ id }], deliveredAt: expect.any(String) });

  // Rows for one event are written for every webhook of a filter group in one statement, so by now
  // the others' rows are all there: the plain webhook has its new_issues and nothing else, the
  // REST-registered one its update only.
  const kinds = async (hookId: string) =>
    (await t.db.prisma.webhookDelivery.findMany({ where: { webhookId: hookId }, select: { kind: true } })).map((d) => d.kind).sort();
  expect(await kinds(plain.body.data.id)).toEqual(['new_issues']);
  expect(await kinds(restOpted.body.data.id)).toEqual(['issues_updated']);
});
