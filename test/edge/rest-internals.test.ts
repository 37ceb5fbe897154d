// What a client cannot see directly: how many SQL statements a list page costs, and that an
// unexpected failure is masked for the client and logged with the request id.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DriverRead } from '../../src/db/driver-read.js';
import { PrismaClient } from '../../src/generated/prisma/client.js';
import { createHttpServer } from '../../src/http/server.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { makeIssue } from '../helpers/issues.js';
import { listen, send } from '../helpers/socket-answer.js';

let db: TestDatabase;
let counting: PrismaClient;
let t: TestApp;
const statements: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  // A second client on the same driver adapter, emitting every SQL statement it sends, and the
  // reads sent past Prisma's client (src/db/driver-read.ts) noted as they go.
  const client = new PrismaClient({ adapter: db.adapterFactory, log: [{ emit: 'event', level: 'query' }] });
  client.$on('query', (e) => statements.push(e.query));
  counting = client;
  const read: DriverRead = (query, settings) => (statements.push(query.text), db.read(query, settings));
  t = await createTestApp({ logLevel: 'error', adminApiKey: 'the-admin-key', webhookApiKey: 'the-webhook-key' }, { ...db, prisma: counting, read });
  await db.prisma.issue.createMany({
    data: Array.from({ length: 150 }, (_, i) => makeIssue({ cvssScore: i % 10, publishedAt: new Date(Date.UTC(2025, 0, 1 + (i % 40))) })),
  });
});
afterAll(async () => {
  await t?.close();
  await counting?.$disconnect();
  await db?.close();
});

const versionRead = /FROM "DataVersion"/;

/** The statements `run` sends, but for reads of the data version (the caches' key; one per batch of requests). */
async function countStatements(run: () => Promise<unknown>, { withVersionReads = false } = {}) {
  statements.length = 0;
  await run();
  return statements.filter((s) => withVersionReads || !versionRead.test(s));
}

// Cache-Control: no-cache asks for a fresh answer: the route's own statements, without the response cache.
const fresh = { headers: { 'cache-control': 'no-cache' } };

describe('SQL statements per list page', () => {
  // Each case at a data version of its own: counts made by an earlier case are not reused.
  beforeEach(async () => {
    await db.prisma.$executeRaw`UPDATE "DataVersion" SET version = version + 1`;
  });

  it.each([1, 20, 100])('REST page of %i costs two statements: rows and count', async (limit) => {
    const sql = await countStatements(async () => {
      const res = await t.fetch(`/api/v1/issues?limit=${limit}&severity=medium&search=test`, fresh);
      expect(res.status).toBe(200);
      expect((await res.json()).data).toHaveLength(limit);
    });
    expect(sql).toHaveLength(2);
    expect(sql.filter((s) => /COUNT\(/i.test(s))).toHaveLength(1);
  });

  it('a GraphQL page reads only the selected columns', async () => {
    const sql = await countStatements(async () => {
      const { body } = await t.graphql('{ issues(limit: 50) { data { title cvssScore } meta { total } } }');
      expect(body.data.issues.data).toHaveLength(50);
    });
    expect(sql).toHaveLength(2);
    const rows = sql.find((s) => !/COUNT\(/i.test(s))!;
    expect(rows).toMatch(/"title"/);
    expect(rows).toMatch(/"cvssScore"/);
    expect(rows).not.toMatch(/"source"|"searchText"|"summary"/);
  });

  it('columns come from fragments and aliases too, and nested fields read their one column', async () => {
    const query = `query { issues(limit: 3) { ...Page } }
      fragment Page on IssueList { data { ... on Issue { heading: headline } ...Why } }
      fragment Why on Issue { classification { version reasons { kind } } }`;
    const sql = await countStatements(async () => {
      const { body } = await t.graphql(query);
      expect(body.errors).toBeUndefined();
      expect(Object.keys(body.data.issues.data[0]).sort()).toEqual(['classification', 'heading']);
    });
    expect(sql).toHaveLength(1);
    expect(sql[0]).toMatch(/"headline"/);
    expect(sql[0]).toMatch(/"classification"/);
    expect(sql[0]).not.toMatch(/"source"|"title"|"summary"/);
  });

  it('REST issue bodies never read the raw source record', async () => {
    const { id } = await db.prisma.issue.findFirstOrThrow({ select: { id: true } });
    const sql = await countStatements(async () => {
      expect((await t.fetch('/api/v1/issues?limit=5')).status).toBe(200);
      expect((await t.fetch(`/api/v1/issues/${id}`)).status).toBe(200);
    });
    expect(sql.join('\n')).toMatch(/"solution"/);
    expect(sql.join('\n')).not.toMatch(/"source"/);
  });

  it('issueChanges reads the columns of the issue fields it is asked for', async () => {
    const sql = await countStatements(async () => {
      const { body } = await t.graphql('{ issueChanges(modifiedSince: "2000-01-01", limit: 2) { id withdrawn issue { title } } }');
      expect(body.errors).toBeUndefined();
      expect(body.data.issueChanges).toHaveLength(2);
      expect(body.data.issueChanges[0].issue.title).toEqual(expect.any(String));
    });
    expect(sql).toHaveLength(1);
    expect(sql[0]).toMatch(/"title"/);
    expect(sql[0]).not.toMatch(/"source"|"summary"/);
  });

  it('asking for rows only, or the total only, runs one statement', async () => {
    expect(await countStatements(() => t.graphql('{ issues { data { id } } }'))).toHaveLength(1);
    expect(await countStatements(() => t.graphql('{ issues { meta { total limit } } }'))).toHaveLength(1);
  });

  it('one issue is one statement', async () => {
    const { id } = await db.prisma.issue.findFirstOrThrow({ select: { id: true } });
    expect(await countStatements(() => t.fetch(`/api/v1/issues/${id}`, fresh))).toHaveLength(1);
  });

  it('a search is counted once per data version: its other pages cost their rows only', async () => {
    const first = await countStatements(() => t.fetch('/api/v1/issues?limit=5&search=test', fresh));
    expect(first.filter((s) => /COUNT\(/i.test(s))).toHaveLength(1);
    const total = async (path: string) => ((await (await t.fetch(path, fresh)).json()) as { meta: { total: number } }).meta.total;
    const sql = await countStatements(async () => expect(await total('/api/v1/issues?limit=5&offset=5&search=test')).toBeGreaterThan(10));
    expect(sql.filter((s) => /COUNT\(/i.test(s))).toHaveLength(0);
    expect(await total('/api/v1/issues?limit=5&offset=10&search=test')).toBe(await total('/api/v1/issues?limit=5&search=test'));
  });

  it('a repeated request at the same data version costs only the version read', async () => {
    const path = '/api/v1/issues?limit=20&severity=medium';
    expect(await countStatements(() => t.fetch(path))).toHaveLength(2);
    const again = await countStatements(async () => expect((await t.fetch(path)).status).toBe(200), { withVersionReads: true });
    expect(again).toHaveLength(1);
    expect(again[0]).toMatch(versionRead);
  });

  it('a miss over a socket reads the data version once: the early reply hands its cache key on to Yoga', async () => {
    const server = await listen(createHttpServer(t.app));
    try {
      const sql = await countStatements(async () => expect((await send(server, '/api/v1/issues?limit=7&severity=low')).status).toBe(200), {
        withVersionReads: true,
      });
      expect(sql.filter((s) => versionRead.test(s))).toHaveLength(1);
      expect(sql).toHaveLength(3);
    } finally {
      server.close();
    }
  });
});

describe('compiled execution', () => {
  it('a repeated operation (compiled from its second run) answers exactly as its first, errors included', async () => {
    const { id } = await db.prisma.issue.findFirstOrThrow({ select: { id: true } });
    const operations: [string, Record<string, unknown>][] = [
      ['query($limit: Int) { issues(limit: $limit) { data { id cvssScore publishedAt classification { version } } meta { total } } }', { limit: 3 }],
      ['query($offset: Int) { issues(offset: $offset) { meta { total } } stats { data { totalIssues } } }', { offset: -1 }],
      ['query($severity: Severity) { issues(severity: $severity) { meta { total } } }', { severity: 'severe' }],
      ['query($id: ID!) { issue(id: $id) { data { title } } }', { id: '00000000-0000-4000-8000-000000000000' }],
    ];
    for (const [query, variables] of operations) {
      const bodies: string[] = [];
      for (let run = 0; run < 3; run++) {
        const res = await t.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
        bodies.push(`${res.status} ${await res.text()}`);
      }
      expect(bodies[1], query).toBe(bodies[0]);
      expect(bodies[2], query).toBe(bodies[0]);
    }
    const rest: string[] = [];
    for (let run = 0; run < 3; run++) rest.push(await (await t.fetch(`/api/v1/issues/${id}`)).text());
    expect(new Set(rest).size).toBe(1);
  });
});

describe('unexpected errors', () => {
  it('are a masked 500 envelope over REST and a masked error over GraphQL, logged with the request id', async () => {
    const broken = await createTestDatabase();
    const app = await createTestApp({ logLevel: 'error' }, broken);
    await broken.prisma.$executeRawUnsafe('DROP TABLE "Issue" CASCADE');
    const lines: string[] = [];
    let generated = '';
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      const res = await app.fetch('/api/v1/issues', { headers: { 'x-request-id': 'req-broken-1' } });
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({ error: { message: 'Internal server error', status: 500 } });
      expect(text).not.toMatch(/Issue|relation|SQL|prisma/i);

      const gql = await app.fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'req-broken-2' },
        body: JSON.stringify({ query: '{ issues { data { id } } }' }),
      });
      const body = await gql.json();
      expect(body.errors[0].extensions.code).toBe('INTERNAL_SERVER_ERROR');
      expect(JSON.stringify(body)).not.toMatch(/relation|SQL|prisma|stack/i);

      // Without an X-Request-Id the service makes one up; the log line carries the one answered,
      // also on a route whose body is re-read on the way (the body limit replaces the request).
      const scan = await app.fetch('/api/v1/scan', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"packages": ["langchain"]}' });
      expect(scan.status).toBe(500);
      generated = scan.headers.get('x-request-id')!;
    } finally {
      spy.mockRestore();
      await app.close();
      await broken.close();
    }
    const logged = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 'error');
    expect(logged.map((l) => l.requestId)).toEqual(expect.arrayContaining(['req-broken-1', 'req-broken-2', generated]));
    expect(logged[0].err.message).toMatch(/Issue/);
  });
});

describe('one reading of a REST body', () => {
  // A body parse is a JSON.parse of the very text the client sent: the body plugin reads it once, and
  // SOFA, which would read it again, gets the arguments instead.
  async function parsesOf(path: string, init: RequestInit) {
    let parses = 0;
    const { parse } = JSON;
    JSON.parse = (text: string, reviver?: Parameters<typeof parse>[1]) => {
      if (text === init.body) parses++;
      return parse(text, reviver);
    };
    try {
      const res = await t.fetch(`/api/v1${path}`, init);
      await res.arrayBuffer();
      return { status: res.status, parses };
    } finally {
      JSON.parse = parse;
    }
  }

  it('parses a request body once', async () => {
    const admin = { authorization: 'Bearer the-admin-key', 'content-type': 'application/json' };
    const webhooks = { authorization: 'Bearer the-webhook-key', 'content-type': 'application/json' };
    // The admin ingest takes an array (reshaped to its argument without another parse), the scan
    // may be an SBOM (looked at before it is read as arguments), a webhook route looks up its owner.
    expect(await parsesOf('/admin/ingest', { method: 'POST', headers: admin, body: '[{"id": "GHSA-gate-0001"}]' })).toEqual({ status: 200, parses: 1 });
    expect(
      await parsesOf('/scan', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"packages": ["pkg:pypi/langchain@0.1.0"]}' }),
    ).toEqual({ status: 200, parses: 1 });
    expect(await parsesOf('/webhooks', { method: 'POST', headers: webhooks, body: '{"url": "https://127.0.0.1/hook"}' })).toMatchObject({ parses: 1 });
    expect(await parsesOf('/issues?limit=1', { method: 'GET' })).toEqual({ status: 200, parses: 0 });
  });
});
