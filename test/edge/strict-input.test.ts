// Strict input (docs/api.md, "REST" and "Abuse limits"), through HTTP into the app as a client
// would send it: dates outside 1970-01-01 to 9999-12-31, wrong JSON types, unknown parameters,
// wrong methods, missing keys. Each is a 4xx in the envelope in plain words, and a bad record in an
// ingest batch is rejected on its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeIssue } from '../helpers/issues.js';
import { adminHeaders, adminKey } from '../helpers/samples.js';

let t: TestApp;
const webhookKey = 'strict-input-webhook-key-0123456789';
beforeAll(async () => {
  t = await createTestApp({ adminApiKey: adminKey, webhookApiKey: webhookKey });
});
afterAll(async () => t?.close());

const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

/** The response must be the error envelope with this status; its message is returned. */
async function envelope(res: Response, status: number): Promise<string> {
  const body = await res.json();
  expect({ status: res.status, body }).toEqual({ status, body: { error: { message: expect.any(String), status } } });
  return body.error.message as string;
}

/** No GraphQL or JavaScript library wording in a message a client sees. */
function expectPlain(message: string) {
  expect(message).not.toMatch(
    /Variable "|cannot represent|Expected value of type|Int!|String!|Boolean|JSON!|non-nullable|SyntaxError|Unexpected token|at position/,
  );
}

const badDates = ['0000-01-01', '0001-01-01T00:00:00+14:00', '1969-12-31T23:59:59Z', '+010000-01-01T00:00:00Z'];

describe('dates outside 1970-01-01 to 9999-12-31', () => {
  it('are a 400 naming since on the list, STIX, export and scan', async () => {
    for (const since of badDates) {
      const q = `since=${encodeURIComponent(since)}`;
      for (const path of [`/api/v1/issues?${q}`, `/api/v1/issues/stix?${q}`, `/api/issues/export?${q}`]) {
        expect(await envelope(await t.fetch(path), 400), `${path}`).toMatch(/^since must be/);
      }
      const scan = await t.fetch('/api/v1/scan', json({ packages: ['langchain'], since }));
      expect(await envelope(scan, 400), since).toMatch(/^since must be/);
    }
  });

  it('are a 400 in GraphQL, not an internal error', async () => {
    for (const since of badDates) {
      for (const query of [
        'query($s: String) { issues(since: $s) { meta { total } } }',
        'query($s: String) { scan(packages: ["x"], since: $s) { meta { total } } }',
      ]) {
        const { body } = await t.graphql(query, { s: since });
        expect(
          body.errors?.map((e: any) => [e.extensions?.code, e.message.slice(0, 11)]),
          query,
        ).toEqual([['BAD_REQUEST', 'since must ']]);
      }
    }
  });

  it('the range edges themselves are accepted', async () => {
    for (const since of ['1970-01-01', '9999-12-31T23:59:59.999Z', '1970-01-01T02:00:00+02:00']) {
      expect((await t.fetch(`/api/v1/issues?since=${encodeURIComponent(since)}`)).status, since).toBe(200);
    }
  });

  it('reject only the record that carries one in an admin ingest', async () => {
    const good = { title: 'LLM jailbreak write-up', url: 'https://example.org/dates-good', publishedAt: '2024-02-02', type: 'research' };
    const bad = [
      { ...good, url: 'https://example.org/dates-0', publishedAt: '0000-01-01' },
      { ...good, url: 'https://example.org/dates-1', publishedAt: '0001-01-01T00:00:00+14:00' },
      { ...good, url: 'https://example.org/dates-2', disclosedAt: '1900-01-01' },
      { schema_version: '1.6.0', id: 'GHSA-aaaa-bbbb-cccc', modified: '0000-01-01T00:00:00Z', summary: 'LLM prompt injection' },
    ];
    const res = await t.fetch('/api/v1/admin/ingest', json([good, ...bad], adminHeaders));
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({ received: 5, created: 1 });
    expect(data.rejected.map((r: { index: number }) => r.index)).toEqual([1, 2, 3, 4]);
    for (const r of data.rejected) expect(r.message).toMatch(/must be between 1970-01-01 and 9999-12-31/);
  });
});

describe('malformed input', () => {
  it('a JSON string where an array is required is a 400, not list coercion', async () => {
    for (const body of [{ packages: 'langchain' }, { vendors: 'openai' }, { packages: ['langchain'], vendors: { a: 1 } }]) {
      const message = await envelope(await t.fetch('/api/v1/scan', json(body)), 400);
      expect(message, JSON.stringify(body)).toMatch(/^(packages|vendors) must be an array/);
    }
    const ingest = await t.fetch('/api/v1/admin/ingest', json({ items: 'x' }, adminHeaders));
    expect(await envelope(ingest, 400)).toMatch(/^items must be an array/);
  });

  it('scan needs Content-Type: application/json', async () => {
    const body = JSON.stringify({ packages: ['langchain'] });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', undefined]) {
      const res = await t.fetch('/api/v1/scan', { method: 'POST', body, headers: type ? { 'content-type': type } : {} });
      expect(await envelope(res, 415), String(type)).toMatch(/application\/json/);
    }
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON']) {
      expect((await t.fetch('/api/v1/scan', { method: 'POST', body, headers: { 'content-type': type } })).status, type).toBe(200);
    }
  });

  it('an unknown query parameter is a 400 naming it, on every REST route and the export', async () => {
    for (const path of [
      '/api/v1/issues?severty=critical',
      '/api/v1/issues/stix?severty=critical',
      '/api/v1/stats?severty=critical',
      '/api/v1/digest/latest?severty=critical',
      '/api/issues/export?severty=critical',
      '/api/v1/issues/00000000-0000-0000-0000-000000000000?severty=critical',
    ]) {
      expect(await envelope(await t.fetch(path), 400), path).toMatch(/^Unknown query parameter: severty \(/);
    }
    expect(await envelope(await t.fetch('/api/v1/issues?severty=x&limt=2&limit=1'), 400)).toMatch(/^Unknown query parameters: severty, limt \(/);
    expect(await envelope(await t.fetch('/api/v1/scan?severty=critical', json({ packages: ['x'] })), 400)).toMatch(/severty/);
  });

  it('an unknown top-level body key is a 400 naming it', async () => {
    const message = await envelope(await t.fetch('/api/v1/scan', json({ packges: ['langchain'], vendors: ['x'] })), 400);
    expect(message).toMatch(/^packges is not a known key \(expected: packages, vendors, severityMin, since\)/);
  });
});

describe('plain messages', () => {
  it('a label repeated 21 times', async () => {
    const query = Array.from({ length: 21 }, (_, i) => `label=l${i}`).join('&');
    for (const path of [`/api/v1/issues?${query}`, `/api/issues/export?${query}`]) {
      expect(await envelope(await t.fetch(path), 400), path).toBe('label must be given at most 20 times');
    }
  });

  it('a string where a webhook filter takes a boolean or an integer', async () => {
    const key = { authorization: `Bearer ${webhookKey}` };
    const res = await t.fetch('/api/v1/webhooks', json({ url: 'https://example.org/hook', filters: { llmSpecific: 'true' } }, key));
    expect(await envelope(res, 400)).toBe('filters.llmSpecific must be true or false');
  });

  it('a null entry in an admin ingest batch rejects that entry only', async () => {
    const item = { title: 'LLM jailbreak write-up', url: 'https://example.org/null-entry', publishedAt: '2024-02-02', type: 'research' };
    const res = await t.fetch('/api/v1/admin/ingest', json([null, item], adminHeaders));
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({ received: 2, created: 1, rejected: [{ index: 0, message: expect.stringMatching(/must be a JSON object/) }] });
    const { body } = await t.graphql(
      'mutation($items: [JSON]!) { ingestItems(items: $items) { data { received rejected { index } } } }',
      { items: [null] },
      adminHeaders,
    );
    expect(body.data.ingestItems.data).toEqual({ received: 1, rejected: [{ index: 0 }] });
  });

  it('a fragment in the URL is not part of the last parameter', async () => {
    const res = await t.fetch('/api/v1/issues?limit=1#frag');
    expect(res.status).toBe(200);
    expect((await res.json()).meta.limit).toBe(1);
  });

  it('GraphQL does not echo the JSON parser error', async () => {
    const res = await t.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query": ' });
    const body = await res.json();
    expect(res.status).toBe(400);
    expect(body.errors).toEqual([{ message: 'The request body must be JSON', extensions: { code: 'BAD_REQUEST' } }]);
    expect(JSON.stringify(body)).not.toMatch(/originalError|SyntaxError|Unexpected/);
  });

  it('none of these messages carries library wording', async () => {
    for (const [path, init] of [
      ['/api/v1/issues?limit=1.5', undefined],
      ['/api/v1/scan', json({ packages: [1] })],
      ['/api/v1/scan', json({ packages: ['x'], severityMin: 'nope' })],
      ['/api/v1/webhooks', json({ url: 'https://example.org/h', filters: { severity: 1 } }, { authorization: `Bearer ${webhookKey}` })],
    ] as const) {
      expectPlain(await envelope(await t.fetch(path, init), 400));
    }
  });
});

describe('methods and auth', () => {
  it('a wrong method on a known route is a 405 with Allow, inside and outside /api/v1', async () => {
    const cases: [string, string, string][] = [
      ['POST', '/api/v1/issues', 'GET, HEAD'],
      ['DELETE', '/api/v1/issues/00000000-0000-0000-0000-000000000000', 'GET, HEAD'],
      ['GET', '/api/v1/scan', 'POST'],
      ['PUT', '/api/v1/webhooks', 'POST, GET, HEAD'],
      ['POST', '/api/v1/webhooks/00000000-0000-0000-0000-000000000000', 'GET, HEAD, PATCH, DELETE'],
      ['POST', '/api/v1/openapi.json', 'GET, HEAD'],
      ['POST', '/api/issues/export', 'GET, HEAD'],
      ['POST', '/health', 'GET, HEAD'],
      ['DELETE', '/ready', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await t.fetch(path, { method });
      expect(res.headers.get('allow')?.split(', ').sort(), `${method} ${path}`).toEqual(allow.split(', ').sort());
      expect(await envelope(res, 405), `${method} ${path}`).toBe(`Method ${method} is not allowed on ${path}; use ${res.headers.get('allow')}`);
    }
  });

  it('unknown paths stay 404, and /health answers only its own path', async () => {
    await envelope(await t.fetch('/api/v1/issues/', { method: 'POST' }), 404);
    await envelope(await t.fetch('/api/v1/nowhere/health'), 404);
    expect((await t.fetch('/api/v1/issues?search=/health')).headers.get('content-type')).toMatch(/json/);
    expect((await (await t.fetch('/api/v1/issues?search=/health')).json()).meta).toBeDefined();
    expect((await t.fetch('/health')).status).toBe(200);
  });

  it('a 401 carries WWW-Authenticate: Bearer, on REST and GraphQL', async () => {
    for (const [path, init] of [
      ['/api/v1/webhooks', { method: 'GET' }],
      ['/api/v1/webhooks', json({ url: 'https://example.org/x' }, { authorization: 'Bearer wrong' })],
      ['/api/v1/admin/ingest', json([])],
    ] as const) {
      const res = await t.fetch(path, init);
      expect(res.headers.get('www-authenticate'), path).toBe('Bearer');
      await envelope(res, 401);
    }
    const res = await t.fetch('/graphql', json({ query: '{ webhooks { data { id } } }' }));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });
});

describe('paging and names', () => {
  beforeAll(async () => {
    await t.db.prisma.issue.createMany({
      data: [0, 1, 2].map((i) =>
        makeIssue({
          naturalKey: `paging-${i}`,
          title: `Paging issue ${i}`,
          publishedAt: new Date(Date.UTC(2030, 0, 1 + i)),
          packageNames: i === 0 ? ['llama-index'] : [],
        }),
      ),
    });
  });

  it('the STIX export pages with offset like the list route', async () => {
    const ids = async (query: string) => {
      const res = await t.fetch(`/api/v1/issues/stix?since=2029-12-31&${query}`);
      expect(res.status, query).toBe(200);
      return (await res.json()).objects
        .filter((o: { type: string }) => o.type !== 'identity' && o.type !== 'marking-definition')
        .map((o: { name: string }) => o.name);
    };
    expect(await ids('limit=3')).toEqual(['Paging issue 2', 'Paging issue 1', 'Paging issue 0']);
    expect(await ids('limit=1&offset=1')).toEqual(['Paging issue 1']);
    expect(await ids('offset=3')).toEqual([]);
    expect(await envelope(await t.fetch('/api/v1/issues/stix?offset=-1'), 400)).toBe('offset must be at least 0');
  });

  it('the list package filter normalises PyPI names as the scan does', async () => {
    for (const name of ['llama-index', 'llama_index', 'Llama.Index', 'LLAMA__index']) {
      const res = await t.fetch(`/api/v1/issues?package=${encodeURIComponent(name)}`);
      expect(
        (await res.json()).data.map((i: { title: string }) => i.title),
        name,
      ).toEqual(['Paging issue 0']);
    }
  });
});

describe('issuing a key while the server runs', () => {
  it('POST /api/v1/admin/keys (admin bearer) issues a webhook key that works at once', async () => {
    expect((await t.fetch('/api/v1/admin/keys', json({ name: 'team-a' }))).status).toBe(401);
    const res = await t.fetch('/api/v1/admin/keys', json({ name: 'team-a' }, adminHeaders));
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data).toEqual({ id: expect.any(String), name: 'team-a', key: expect.stringMatching(/^swk_/) });
    const hooks = await t.fetch('/api/v1/webhooks', { headers: { authorization: `Bearer ${data.key}` } });
    expect(hooks.status).toBe(200);
    expect(await envelope(await t.fetch('/api/v1/admin/keys', json({ name: ' ' }, adminHeaders)), 400)).toBe('name must be 1 to 100 characters');
    // PostgreSQL text cannot hold U+0000: found by the fuzzer as a masked 500.
    expect(await envelope(await t.fetch('/api/v1/admin/keys', json({ name: 'a\u0000b' }, adminHeaders)), 400)).toBe('name must not contain NUL characters');
    const nul = await t.graphql('mutation($n: String!) { createApiKey(name: $n) { data { name } } }', { n: '\u0000' }, adminHeaders);
    expect(nul.body.errors?.[0]).toMatchObject({ message: 'name must not contain NUL characters', extensions: { code: 'BAD_REQUEST' } });
    const { body } = await t.graphql('mutation { createApiKey(name: "team-b") { data { name key } } }', undefined, adminHeaders);
    expect(body.data.createApiKey.data).toEqual({ name: 'team-b', key: expect.stringMatching(/^swk_/) });
  });
});
