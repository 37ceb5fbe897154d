// Webhook test plumbing: issue batches published the way ingestion publishes them (issues and an
// IssueEvent row, then {eventId, issueIds} on the pub/sub), and polling helpers.
import type { Prisma } from '../../src/generated/prisma/client.js';
import type { TestApp } from './app.js';
import { makeIssue } from './issues.js';

export const webhookKey = 'test-webhook-key-0123456789';
export const bearer = (key = webhookKey) => ({ authorization: `Bearer ${key}` });

export async function publishIssues(t: TestApp, issues: Partial<Prisma.IssueCreateManyInput>[]) {
  const rows = issues.map((o) => makeIssue(o));
  const created = await t.db.prisma.issue.createManyAndReturn({ data: rows, select: { id: true } });
  const issueIds = created.map((r) => r.id);
  const event = await t.db.prisma.issueEvent.create({ data: { issueIds } });
  t.pubsub.publish('newIssues', { eventId: event.id, issueIds });
  return { eventId: event.id, issueIds };
}

export async function createWebhook(
  t: TestApp,
  url: string,
  filters?: Record<string, unknown>,
  key = webhookKey,
): Promise<{ id: string; url: string; secret: string; active: boolean; filters: Record<string, unknown> }> {
  const { body } = await t.graphql(
    `mutation ($url: String!, $filters: WebhookFiltersInput) {
      createWebhook(url: $url, filters: $filters) { data { id url secret active filters { severity issueType vendor llmSpecific } } }
    }`,
    { url, filters },
    bearer(key),
  );
  if (!body.data?.createWebhook) throw new Error(`createWebhook failed: ${JSON.stringify(body.errors)}`);
  return body.data.createWebhook.data;
}

/** Polls until `check` answers a truthy value. */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 30_000, everyMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** POST /api/v1/webhooks, as a REST client registers one. */
export async function registerWebhookRest(t: TestApp, body: unknown, key: string | null = webhookKey) {
  const res = await t.fetch('/api/v1/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key === null ? {} : bearer(key)) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}
