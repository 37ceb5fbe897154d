// Contention on one key's watched stacks (issue 40): many registrations with stacks at once for
// one key were 500s ("interactive transaction could not start in time"), as each held a pooled
// connection in a transaction waiting on the key's lock. Now one key's stack writes queue in the
// process before any transaction opens, and a transaction that still cannot start (a busy pool)
// is a 503 with Retry-After: never a 500, and never more webhooks than the key may have.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/keys/api-keys.js';
import { maxWatchedComponentsPerKey } from '../../src/stacks/watched.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { insertIssues, makeIssue } from '../helpers/issues.js';
import { bearer, webhookKey } from '../helpers/webhooks.js';

let t: TestApp;
const cap = 50;

beforeAll(async () => {
  t = await createTestApp({ webhookApiKey: webhookKey, webhookAllowPrivateTargets: true, webhooksPerKey: cap });
  // Issues under the stacks' names, as many as a real feed holds: each registration's scan has
  // work to do, and each records hundreds of findings as known.
  await insertIssues(
    t.db.prisma,
    Array.from({ length: 2000 }, (_, i) =>
      makeIssue({ title: `Issue ${i}`, packageNames: [`contended-${i % 50}`], affectedPackages: [`contended-${i % 50}@<2.0.0`] }),
    ),
  );
});
afterAll(async () => t?.close());

const stackOf = (n: number, salt: number) => Array.from({ length: n }, (_, i) => `contended-${i}@1.${salt}.0`);

describe('one key registering stacks at once', () => {
  it('answers 60 simultaneous registrations with 20-entry stacks in turn: 201 up to the cap, 400 beyond, never a 500', async () => {
    const answers = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const res = await t.fetch('/api/v1/webhooks', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...bearer() },
          body: JSON.stringify({ url: `https://127.0.0.1/contended/${i}`, stack: { packages: stackOf(20, i) } }),
        });
        return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as any };
      }),
    );
    const statuses = answers.map((a) => a.status);
    expect(
      statuses.filter((s) => s >= 500 && s !== 503),
      JSON.stringify(answers.find((a) => a.status >= 500)),
    ).toEqual([]);
    for (const a of answers.filter((x) => x.status === 503)) expect(a.retryAfter).toMatch(/^\d+$/);
    expect(statuses.filter((s) => s !== 201 && s !== 400 && s !== 503)).toEqual([]);
    // Each waits its turn (a 503 only past the wait's bound, on a machine far busier than this
    // test's): every one registered is stored with its stack, and the cap's 400 comes only at the cap.
    const created = statuses.filter((s) => s === 201).length;
    expect(created).toBeGreaterThan(0);
    expect(await t.db.prisma.webhook.count()).toBe(created);
    expect(await t.db.prisma.watchedStack.count()).toBe(created);
    if (statuses.includes(400)) expect(created).toBe(cap);
  }, 120_000);

  it('answers 60 keys registering stacks at once with 201, or 503 with Retry-After when the pool is busy, never a 500', async () => {
    const keys = await Promise.all(Array.from({ length: 60 }, (_, i) => issueKey(t.db.prisma, `contender ${i}`)));
    const answers = await Promise.all(
      keys.map(async ({ key }, i) => {
        const res = await t.fetch('/api/v1/webhooks', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...bearer(key) },
          body: JSON.stringify({ url: `https://127.0.0.1/keys/${i}`, stack: { packages: stackOf(20, i) } }),
        });
        return { status: res.status, retryAfter: res.headers.get('retry-after') };
      }),
    );
    expect(
      answers.filter((a) => a.status !== 201 && !(a.status === 503 && /^\d+$/.test(a.retryAfter ?? ''))),
      JSON.stringify(answers),
    ).toEqual([]);
  }, 120_000);

  it('answers simultaneous stack changes of one webhook each in turn, the last one kept whole', async () => {
    const hook = (await t.db.prisma.webhook.findFirstOrThrow({ where: { url: { contains: '/contended/' } }, select: { id: true } })).id;
    const answers = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const res = await t.fetch(`/api/v1/webhooks/${hook}`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json', ...bearer() },
          body: JSON.stringify({ stack: { packages: stackOf(50, 100 + i) } }),
        });
        return res.status;
      }),
    );
    expect(answers.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(answers.filter((s) => s === 200).length).toBeGreaterThan(0);
    // One stack's rows, not a mix of several.
    const stack = await t.db.prisma.watchedStack.findUniqueOrThrow({ where: { webhookId: hook }, select: { components: true } });
    const salt = /@1\.(\d+)\.0$/.exec((stack.components as { entry: string }[])[0]!.entry)![1];
    const entries = await t.db.prisma.stackEntry.findMany({ where: { webhookId: hook }, select: { entry: true } });
    expect(new Set(entries.map((e) => /@1\.(\d+)\.0$/.exec(e.entry)![1]))).toEqual(new Set([salt]));
  }, 120_000);
});

describe("a key's watched components", () => {
  it(`are capped at ${maxWatchedComponentsPerKey} over all its webhooks, a replaced stack counting only once`, async () => {
    const { key } = await issueKey(t.db.prisma, 'watching many');
    const register = async (i: number, packages: string[]) => {
      const res = await t.fetch('/api/v1/webhooks', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(key) },
        body: JSON.stringify({ url: `https://127.0.0.1/many/${i}`, stack: { packages } }),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const full = (salt: number) => Array.from({ length: 1000 }, (_, i) => `contended-${i % 50}@${salt}.${i}.0`);
    const stacks = maxWatchedComponentsPerKey / 1000;
    const created = [];
    for (let i = 0; i < stacks; i++) created.push(await register(i, full(i)));
    expect(created.map((c) => c.status)).toEqual(Array(stacks).fill(201));
    const over = await register(99, ['contended-1@9.9.9']);
    expect(over).toEqual({
      status: 400,
      body: {
        error: {
          message: `A key may watch at most ${maxWatchedComponentsPerKey} components over all its webhooks; it watches ${maxWatchedComponentsPerKey}, and this stack has 1`,
          status: 400,
        },
      },
    });
    // Replacing a full stack by a smaller one frees its place; the same size again fits as well.
    const patch = await t.fetch(`/api/v1/webhooks/${created[0]!.body.data.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', ...bearer(key) },
      body: JSON.stringify({ stack: { packages: full(7).slice(0, 999) } }),
    });
    expect(patch.status).toBe(200);
    expect((await register(100, ['contended-1@9.9.9'])).status).toBe(201);
    expect(await t.db.prisma.webhook.count({ where: { url: { contains: '/many/' } } })).toBe(stacks + 1);
  }, 120_000);
});
