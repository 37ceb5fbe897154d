// Routes past the GraphQL executor when the database cannot be had (issue 40's soak): the Atom
// feeds, a watched stack's findings and VEX behind an issued key, and an SBOM scan answered 500
// when the pool timed out, because their errors reached the REST envelope (a plain route's catch,
// the bearer check's key look-up) raw. They answer 503 with Retry-After in the envelope, as every
// other route does. On PostgreSQL every connection of the app's pool is held by a statement
// waiting on a lock, so requests wait out the pool's connection time-out (pg's "timeout exceeded
// when trying to connect", as in the soak); PGlite's outage is the database closed.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Prisma } from '../../src/generated/prisma/client.js';
import { RETRY_AFTER_SECONDS, UNAVAILABLE_MESSAGE } from '../../src/db/unavailable.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { adminHeaders, adminKey } from '../helpers/samples.js';
import { bearer, eventually, registerWebhookRest } from '../helpers/webhooks.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ adminApiKey: adminKey, webhookAllowPrivateTargets: true });
});
// On PGlite the test has closed the database already.
afterAll(async () => t?.close().catch(() => undefined));

/** The pool's size (db/client.ts). */
const POOL_SIZE = 10;
const LOCK = 40_503;

/** Holds every connection of the app's pool until the returned function is called (PostgreSQL). */
async function holdPool(): Promise<() => Promise<void>> {
  const admin = new pg.Client({ connectionString: t.db.url });
  await admin.connect();
  await admin.query('SELECT pg_advisory_lock($1)', [LOCK]);
  const held = Array.from({ length: POOL_SIZE }, () => t.db.read(Prisma.sql`SELECT pg_advisory_lock(${LOCK}), pg_advisory_unlock(${LOCK})`));
  await eventually(async () => {
    const { rows } = await admin.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`,
    );
    return rows[0].n === POOL_SIZE;
  });
  return async () => {
    await admin.query('SELECT pg_advisory_unlock($1)', [LOCK]);
    await admin.end();
    await Promise.all(held);
  };
}

it('answers the Atom feeds, a stack findings and VEX and an SBOM scan 503 with Retry-After when no connection can be had', async () => {
  const issued = await t.fetch('/api/v1/admin/keys', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...adminHeaders },
    body: '{"name":"pool"}',
  });
  expect(issued.status).toBe(201);
  const key = ((await issued.json()) as { data: { key: string } }).data.key;
  const hook = await registerWebhookRest(t, { url: 'https://127.0.0.1:9/hook', stack: { packages: ['gradio@3.40.0', 'vllm@0.5.0'] } }, key);
  expect(hook.status).toBe(201);
  const id = hook.body.data.id as string;
  const feed = await t.graphql(`mutation ($id: ID!) { issueStackFeed(webhookId: $id) { data { path } } }`, { id }, bearer(key));
  const feedPath = feed.body.data.issueStackFeed.data.path as string;
  const sbom = {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    components: [{ type: 'library', name: 'gradio', version: '3.40.0', purl: 'pkg:pypi/gradio@3.40.0' }],
  };
  const requests: [string, () => Promise<Response>][] = [
    ['issues.atom', () => t.fetch('/api/v1/issues.atom')],
    ['stack atom', () => t.fetch(feedPath)],
    ['findings', () => t.fetch(`/api/v1/webhooks/${id}/findings`, { headers: bearer(key) })],
    ['vex', () => t.fetch(`/api/v1/webhooks/${id}/findings/vex`, { headers: bearer(key) })],
    ['sbom scan', () => t.fetch('/api/v1/scan', { method: 'POST', headers: { 'content-type': 'application/vnd.cyclonedx+json' }, body: JSON.stringify(sbom) })],
  ];
  // Each route works, and an issued key's look-up is no longer a first use.
  for (const [, request] of requests) expect((await request()).status).toBe(200);

  const release = t.db.pglite ? undefined : await holdPool();
  if (t.db.pglite) await t.db.pglite.close();
  try {
    const answers = await Promise.all(
      requests.map(async ([name, request]) => {
        const res = await request();
        return { name, status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.text() };
      }),
    );
    expect(answers.map((a) => [a.name, a.status, a.retryAfter])).toEqual(requests.map(([name]) => [name, 503, String(RETRY_AFTER_SECONDS)]));
    for (const answer of answers) {
      expect(JSON.parse(answer.body), answer.name).toEqual({ error: { message: UNAVAILABLE_MESSAGE, status: 503 } });
      expect(answer.body).not.toMatch(/timeout exceeded|connect|PGlite|prisma|pg-pool/i);
    }
  } finally {
    await release?.();
  }
  if (!t.db.pglite) for (const [, request] of requests) expect((await request()).status).toBe(200);
});
