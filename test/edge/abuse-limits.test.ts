// Limits a public GraphQL endpoint needs: document shape (graphql-armor), no batching, hidden field
// suggestions, and request body size on every route, in-process and over a real socket.
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { getIntrospectionQuery, print, type OperationDefinitionNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyLimits, MB } from '../../src/http/body-limit.js';
import { graphqlLimits } from '../../src/http/graphql-limits.js';
import { guarded } from '../../src/http/guard.js';
import { createHttpServer } from '../../src/http/server.js';
import { restRoutes } from '../../src/rest/routes.js';
import { restSchema } from '../../src/rest/rest-schema.js';
import { schema } from '../../src/schema/index.js';
import { createYoga } from 'graphql-yoga';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { recordingLog } from '../helpers/recording-log.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ adminApiKey: 'the-admin-key' });
});
afterAll(async () => t?.close());

/** The fields of `stats` a query can select, for building legitimate documents. */
const stats = 'stats { data { totalIssues } }';

/** Refused before execution: a 4xx, GraphQL errors, and no `data` at all (nothing ran). */
async function expectRefused(query: string, pattern: RegExp) {
  const { status, body } = await t.graphql(query);
  expect(status).toBeGreaterThanOrEqual(400);
  expect(status).toBeLessThan(500);
  expect(body).not.toHaveProperty('data');
  expect(body.errors?.[0]?.message).toMatch(pattern);
  return body;
}

describe('GraphQL document limits', () => {
  it('refuses 500 aliases before execution', async () => {
    const aliases = Array.from({ length: 500 }, (_, i) => `a${i}: __typename`).join(' ');
    // 500 aliases are 1500 tokens: the token limit trips while parsing, before the alias rule runs.
    await expectRefused(`{ ${aliases} }`, /token limit of 1000 exceeded/i);
  });

  it(`allows ${graphqlLimits.maxAliases} aliases and refuses one more`, async () => {
    const aliased = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `s${i}: ${stats}`).join(' ')} }`;
    const ok = await t.graphql(aliased(graphqlLimits.maxAliases));
    expect(ok.status).toBe(200);
    expect(Object.keys(ok.body.data)).toHaveLength(graphqlLimits.maxAliases);
    await expectRefused(aliased(graphqlLimits.maxAliases + 1), /aliases limit/i);
  });

  it('refuses a second alias of an expensive field (scan, stixBundle) before execution', async () => {
    const scans = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `s${i}: scan(packages: ["langchain@0.0.${i}"]) { meta { total } }`).join(' ')} }`;
    expect((await t.graphql(scans(1))).status).toBe(200);
    const refused = await expectRefused(scans(15), /at most one scan field per request/i);
    expect(refused.errors).toHaveLength(1);
    await expectRefused('{ a: stixBundle b: stixBundle(limit: 1) }', /at most one stixBundle field per request/i);
    await expectRefused(
      'query { ...S scan(vendors: ["openai"]) { meta { total } } } fragment S on Query { other: scan(vendors: ["x"]) { meta { total } } }',
      /at most one scan/i,
    );
  });

  it('refuses depth 20 before execution, even under introspection', async () => {
    const nest = (levels: number) => 'ofType { '.repeat(levels) + 'name' + ' }'.repeat(levels);
    // __schema > types > fields > type > 16 x ofType > name: 20 levels of selection.
    await expectRefused(`{ __schema { types { fields { type { ${nest(15)} } } } } }`, /depth limit of 15 exceeded/i);
    // Outside introspection the cost limit may trip first: any limit will do, as long as nothing runs.
    await expectRefused(`{ ${'stats { '.repeat(20)}x${' }'.repeat(20)} }`, /(depth|cost) limit of \d+ exceeded/i);
  });

  it("serves GraphiQL's full introspection query", async () => {
    const { status, body } = await t.graphql(
      getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, inputValueDeprecation: true }),
    );
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data.__schema.queryType.name).toBe('Query');
  });

  it('passes the operation SOFA generates for every REST route', async () => {
    // The same builder, same copy and same options SOFA uses for its routes.
    const fromSofa = createRequire(createRequire(import.meta.url).resolve('sofa-api'));
    const { buildOperationNodeForField } = fromSofa('@graphql-tools/utils') as {
      buildOperationNodeForField(options: Record<string, unknown>): OperationDefinitionNode;
    };
    const routeSchema = restSchema(schema, restRoutes);
    expect(Object.keys(restRoutes).length).toBeGreaterThan(0);
    for (const key of Object.keys(restRoutes)) {
      const [type, field] = key.split('.') as [string, string];
      const operation = print(
        buildOperationNodeForField({
          schema: routeSchema,
          kind: type === 'Mutation' ? 'mutation' : 'query',
          field,
          models: [],
          ignore: [],
          circularReferenceDepth: 1,
        }),
      );
      const { body } = await t.graphql(operation);
      // Parsed and validated: it ran (errors from resolvers carry a path, e.g. no digest yet), or,
      // without variables, a route with required arguments stopped at them.
      for (const error of body.errors ?? []) {
        if (!error.path) expect(error.message, key).toMatch(/^Variable "\$\w+" of required type .* was not provided\.$/);
      }
    }
  });

  it('refuses cyclic introspection', async () => {
    await expectRefused('{ __schema { types { fields { type { fields { type { fields { type { fields { name } } } } } } } } } }', /introspection depth/i);
  });

  it('refuses a document of more than 1000 tokens', async () => {
    const fields = Array.from({ length: 600 }, () => '__typename').join(' ');
    await expectRefused(`{ ${fields} ${fields} }`, /token limit/i);
  });

  it('refuses more than 10 directives', async () => {
    const field = (i: number) => `f${i}: __typename @include(if: true)`;
    await expectRefused(`{ ${Array.from({ length: 11 }, (_, i) => field(i)).join(' ')} }`, /directives limit/i);
  });

  it('never suggests field, argument, type or enum value names', async () => {
    const cases: [string, Record<string, unknown>?][] = [
      ['{ stat { data { totalIssues } } }'],
      ['{ stats { data { totalIssue } } }'],
      ['{ issues(limt: 5) { meta { total } } }'],
      ['query ($x: Strin) { __typename }'],
      ['{ issues(severity: hgh) { meta { total } } }'],
      ['query ($s: Severity) { issues(severity: $s) { meta { total } } }', { s: 'hgh' }],
    ];
    for (const [query, variables] of cases) {
      const { body } = await t.graphql(query, variables);
      expect(body.errors?.length).toBeGreaterThan(0);
      expect(JSON.stringify(body)).not.toMatch(/did you mean/i);
    }
  });

  it('answers a batch (an array of operations) with a 4xx', async () => {
    const res = await t.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ query: `{ ${stats} }` }, { query: `{ ${stats} }` }]),
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    const body = await res.json();
    expect(body).not.toHaveProperty('data');
    expect(body.errors).toHaveLength(1);
  });
});

describe('request body limits', () => {
  const big = (bytes: number) => JSON.stringify({ query: `{ ${stats} }`, extensions: { padding: 'x'.repeat(bytes) } });
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    t.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  it('refuses a 5 MB body on /graphql with a GraphQL error and 413', async () => {
    const res = await post('/graphql', big(5 * MB));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ errors: [{ message: 'Request body too large: the limit is 1 MB', extensions: { code: 'PAYLOAD_TOO_LARGE' } }] });
  });

  it('refuses a 5 MB body on REST routes and the CSV export with the envelope and 413', async () => {
    for (const path of ['/api/v1/scan', '/api/v1/webhooks', '/api/issues/export', '/api/v1/admin/ingest']) {
      const res = await post(path, big(5 * MB));
      expect(res.status, path).toBe(413);
      expect(await res.json()).toEqual({ error: { message: 'Request body too large: the limit is 1 MB', status: 413 } });
    }
  });

  it('admits a body just under the limit', async () => {
    const res = await post('/graphql', big(bodyLimits.default - 200));
    expect(res.status).toBe(200);
    expect((await res.json()).data.stats.data.totalIssues).toBe(0);
  });

  it('lets the admin send larger ingest batches, nobody else', async () => {
    const body = big(5 * MB);
    const admin = await post('/api/v1/admin/ingest', body, { authorization: 'Bearer the-admin-key' });
    expect(admin.status).not.toBe(413);
    await admin.arrayBuffer();
    const stranger = await post('/api/v1/admin/ingest', body, { authorization: 'Bearer not-the-admin-key' });
    expect(stranger.status).toBe(413);
    const tooBig = await post('/api/v1/admin/ingest', big(bodyLimits.adminIngest + 1), { authorization: 'Bearer the-admin-key' });
    expect(tooBig.status).toBe(413);
    expect((await tooBig.json()).error.message).toBe('Request body too large: the limit is 32 MB');
  });

  it('over a real socket, refuses a declared 5 MB body without reading it', async () => {
    const server = createHttpServer(t.app);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      for (const path of ['/graphql', '/api/v1/scan']) {
        // Declare 5 MB, send only the first kilobyte, and wait for the answer.
        const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = httpRequest(
            { host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': 5 * MB } },
            (res) => {
              let body = '';
              res.on('data', (chunk) => (body += chunk));
              res.on('end', () => resolve({ status: res.statusCode!, body }));
            },
          );
          req.on('error', reject);
          req.write('x'.repeat(1024));
        });
        expect(answer.status, path).toBe(413);
        expect(answer.body).toMatch(/Request body too large/);
      }
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('inputs the fuzzer found (each was a 500)', () => {
  it('a NUL character in a text filter is a 400, on REST and GraphQL', async () => {
    const rest = await t.fetch('/api/v1/issues?search=a%00b');
    expect(rest.status).toBe(400);
    expect(await rest.json()).toEqual({ error: { message: 'search must not contain NUL characters', status: 400 } });
    const scan = await t.fetch('/api/v1/scan', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ packages: ['a\u0000b'] }),
    });
    expect(await scan.json()).toEqual({ error: { message: 'packages[0] must not contain NUL characters', status: 400 } });
    // Percent-encoded in a purl (the fuzzer, seed 701817146, on PostgreSQL).
    for (const purl of ['pkg:pypi/@a%00b', 'pkg:npm/a@1.0%00', 'pkg:npm/%00ns/a']) {
      const encoded = await t.fetch('/api/v1/scan', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ packages: ['x', purl] }),
      });
      expect(encoded.status, purl).toBe(400);
      expect(await encoded.json(), purl).toEqual({ error: { message: 'packages[1] must not contain NUL characters', status: 400 } });
    }
    const { body } = await t.graphql('query ($v: String) { issues(vendor: $v) { meta { total } } }', { v: '\u0000' });
    expect(body.errors?.[0].message).toBe('vendor must not contain NUL characters');
    expect(body.errors?.[0].extensions.code).toBe('BAD_REQUEST');
  });

  it('a path segment that is not valid percent-encoding is a 404 envelope', async () => {
    for (const path of ['/api/v1/issues/%', '/api/v1/issues/%E0%A4%A', '/api/v1/issues/%zz']) {
      const res = await t.fetch(path);
      expect(res.status, path).toBe(404);
      expect((await res.json()).error.status).toBe(404);
    }
  });

  it('a deeply nested ingest body is refused, not a stack overflow', async () => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    const res = await t.fetch('/api/v1/admin/ingest', { method: 'POST', headers: { 'content-type': 'application/json' }, body: deep });
    expect(res.status).toBe(401);
    expect((await res.json()).error.status).toBe(401);
  });

  it('a JSON body that is not an object is a 400 envelope in our words', async () => {
    for (const body of ['null', '[]', '42', '"text"', 'true']) {
      const res = await t.fetch('/api/v1/admin/digests', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer the-admin-key' },
        body,
      });
      expect(res.status, body).toBe(400);
      expect(await res.json()).toEqual({ error: { message: 'The request body must be a JSON object', status: 400 } });
    }
  });

  it('broken JSON in GET variables or extensions is a 400', async () => {
    for (const path of ['/graphql?query=%7B__typename%7D&variables=%7B', '/graphql?query=%7B__typename%7D&extensions=%00']) {
      const res = await t.fetch(path);
      expect(res.status, path).toBe(400);
      expect(await res.json()).toEqual({ errors: [{ message: 'The variables and extensions parameters must be JSON', extensions: { code: 'BAD_REQUEST' } }] });
    }
  });
});

describe('a request hook that throws', () => {
  it('answers a masked 500 over a real socket, logs the cause, and survives a throwing onResponse', async () => {
    const log = recordingLog();
    const failing = guarded(
      {
        onRequest({ url }) {
          if (url.pathname !== '/fine') throw new Error('boom in secret-module.ts:12:3');
        },
        onResponse() {
          throw new Error('late boom');
        },
      },
      log,
      '/graphql',
    );
    const yoga = createYoga({ schema, plugins: [failing], logging: false });
    const server = createHttpServer(yoga);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      const rest = await fetch(`http://127.0.0.1:${port}/api/v1/anything`);
      expect(rest.status).toBe(500);
      expect(await rest.json()).toEqual({ error: { message: 'Internal server error', status: 500 } });
      const graphql = await fetch(`http://127.0.0.1:${port}/graphql?query=%7B__typename%7D`);
      expect(graphql.status).toBe(500);
      expect(await graphql.json()).toEqual({ errors: [{ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
      const fine = await fetch(`http://127.0.0.1:${port}/fine`);
      expect(fine.status).toBe(404); // served, despite the throwing onResponse
      expect(log.entries.filter((e) => e.level === 'error').map((e) => (e.fields?.err as Error).message)).toEqual([
        'boom in secret-module.ts:12:3',
        'late boom',
        'boom in secret-module.ts:12:3',
        'late boom',
        'late boom',
      ]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
