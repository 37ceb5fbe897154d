// The OpenAPI document and the docs page describe the routes that really exist, and the real
// responses (successes and errors) match the schemas the document gives for them.
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restRoutes } from '../../src/rest/routes.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeIssue } from '../helpers/issues.js';

let t: TestApp;
let doc: any;
let issueId: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.db.prisma.issue.createMany({
    data: [
      makeIssue({ cvssScore: 7.5, cveId: 'CVE-2025-0002', epssScore: 0.5, publishedAt: new Date('2025-02-01T00:00:00Z') }),
      makeIssue({ title: 'Second', publishedAt: new Date('2025-02-02T00:00:00Z') }),
    ],
  });
  issueId = (await t.db.prisma.issue.findFirstOrThrow({ select: { id: true } })).id;
  const res = await t.fetch('/api/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = await res.json();
});
afterAll(async () => t?.close());

describe('GET /api/v1/digest/latest', () => {
  // First, while the only digest is empty.
  it('is a 404 envelope when there is no non-empty digest', async () => {
    await t.db.prisma.digest.create({ data: { date: '2025-02-03', content: '', issueCount: 0 } });
    const res = await t.fetch('/api/v1/digest/latest');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { message: 'No digest yet', status: 404 } });
  });

  it('answers the newest digest that covers issues, skipping an empty newer one', async () => {
    await t.db.prisma.digest.createMany({
      data: [
        { date: '2025-01-15', content: 'older', issueCount: 4 },
        { date: '2025-02-02', content: '# Digest', issueCount: 2 },
      ],
    });
    const res = await t.fetch('/api/v1/digest/latest');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(Object.keys(body)).toEqual(['data']);
    expect(body.data).toEqual({
      date: '2025-02-02',
      content: '# Digest',
      issueCount: 2,
      generatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const { body: gql } = await t.graphql('{ latestDigest { data { date issueCount } } }');
    expect(gql.data.latestDigest.data).toEqual({ date: '2025-02-02', issueCount: 2 });
  });
});

describe('GET /api/v1/openapi.json', () => {
  it('is a valid OpenAPI 3 document with the CC-BY-4.0 licence', async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.license).toEqual({ name: 'CC-BY-4.0', url: 'https://creativecommons.org/licenses/by/4.0/' });
    expect(doc.servers).toEqual([{ url: '/api/v1' }]);
  });

  it('lists exactly the routes of the route table, and the plain routes under their own servers', () => {
    const documented = Object.entries<Record<string, unknown>>(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => key !== 'servers')
        .map((method) => `${method.toUpperCase()} ${((item.servers as { url: string }[] | undefined)?.[0]?.url ?? '') + path.replace(/\{(\w+)\}/g, ':$1')}`),
    );
    const plain = [
      'GET /issues.atom',
      'GET /digests.atom',
      'GET /osv/all.zip',
      'GET /osv/:ecosystem/all.zip',
      'GET /osv/ecosystems.txt',
      'GET /api/issues/export',
      'GET /taxii2/',
      'GET /taxii2/api/collections',
      'GET /taxii2/api/collections/:collectionId/objects',
    ];
    expect(documented.sort()).toEqual([...Object.values(restRoutes).map((r) => `${r.method} ${r.path}`), ...plain].sort());
  });

  it('documents the list parameters with their bounds, and the error responses', () => {
    const op = doc.paths['/issues'].get;
    const params = Object.fromEntries(op.parameters.map((p: any) => [p.name, p]));
    expect(Object.keys(params).sort()).toEqual([
      'alias',
      'confidenceMin',
      'cursor',
      'issueType',
      'knownExploited',
      'label',
      'limit',
      'modifiedSince',
      'offset',
      'package',
      'search',
      'severity',
      'since',
      'vendor',
    ]);
    expect(params.limit.schema).toMatchObject({ type: 'integer', minimum: 1 });
    expect(params.confidenceMin.schema).toMatchObject({ type: 'number', minimum: 0, maximum: 1 });
    expect(params.label.schema).toMatchObject({ type: 'array', items: { type: 'string' } });
    for (const p of Object.values<any>(params)) expect(p.description, p.name).toBeTruthy();
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '404', '429', '500']);
    expect(doc.components.schemas.Error.properties.error.required).toEqual(['message', 'status']);
    expect(doc.paths['/issues/{id}'].get.parameters[0]).toMatchObject({ name: 'id', in: 'path', required: true });
    for (const { servers: _servers, ...ops } of Object.values<any>(doc.paths)) for (const op of Object.values<any>(ops)) expect(op.description).toBeTruthy();
  });

  it('documents JSON bodies as bodies, and bearer routes with their 401', () => {
    for (const [key, route] of Object.entries(restRoutes)) {
      const op = doc.paths[route.path.replace(/:(\w+)/g, '{$1}')][route.method.toLowerCase()];
      expect(op.description, key).toBeTruthy();
      const bodyFields = Object.keys(op.requestBody?.content?.['application/json']?.schema?.properties ?? {});
      const paramNames = (op.parameters ?? []).map((p: any) => p.name);
      expect(
        bodyFields.filter((f) => paramNames.includes(f)),
        key,
      ).toEqual([]);
      if (route.method === 'POST')
        expect(
          (op.parameters ?? []).filter((p: any) => p.in === 'query'),
          key,
        ).toEqual([]);
      expect(Boolean(op.security), key).toBe(Boolean(route.bearer));
      expect('401' in op.responses, key).toBe(Boolean(route.bearer));
    }
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/scan'].post.requestBody.content['application/json'].schema.properties.packages).toBeTruthy();
  });

  describe('real responses match the documented schemas', () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addFormat('int32', true);
    ajv.addFormat('float', true);
    const check = (schema: unknown, body: unknown) => {
      ajv.removeSchema('openapi');
      ajv.addSchema({ $id: 'openapi', components: doc.components }, 'openapi');
      const rewritten = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));
      const validate = ajv.compile(rewritten);
      expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    };
    const responseSchema = (path: string, status: string) => {
      const response = doc.paths[path].get.responses[status];
      const resolved = response.$ref ? doc.components.responses[response.$ref.split('/').pop()] : response;
      return resolved.content['application/json'].schema;
    };

    it.each([
      ['/issues', '/api/v1/issues', '200'],
      ['/issues/{id}', () => `/api/v1/issues/${issueId}`, '200'],
      ['/digest/latest', '/api/v1/digest/latest', '200'],
      ['/stats', '/api/v1/stats', '200'],
      ['/issues', '/api/v1/issues?limit=0', '400'],
      ['/issues/{id}', '/api/v1/issues/nope', '404'],
    ] as const)('%s -> %s', async (path, url, status) => {
      const res = await t.fetch(typeof url === 'function' ? url() : url);
      expect(String(res.status)).toBe(status);
      check(responseSchema(path, status), await res.json());
    });

    it('the Issue schema marks nullable keys, so a null is valid and a missing key is not', async () => {
      const issue = (await (await t.fetch(`/api/v1/issues/${issueId}`)).json()).data;
      expect(issue.headline).toBeNull();
      const withAllKeys = { ...doc.components.schemas.Issue, required: Object.keys(doc.components.schemas.Issue.properties) };
      check(withAllKeys, issue);
    });
  });
});

describe('GET /api/v1/docs', () => {
  it('is an HTML page naming every route, parameter and the error envelope', async () => {
    const res = await t.fetch('/api/v1/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    for (const route of Object.values(restRoutes)) expect(html).toContain(`/api/v1${route.path}`);
    // The list route's parameters, as its 400 for an unknown one names them.
    const { message } = (await (await t.fetch('/api/v1/issues?nosuchparameter=1')).json()).error;
    const known = /\(known: ([^)]+)\)/.exec(message)![1]!.split(', ');
    expect(known).toEqual(expect.arrayContaining(['search', 'alias', 'knownExploited', 'cursor', 'modifiedSince', 'limit', 'offset']));
    const listSection = /<section class="operation" id="[^"]*">\s*<h3><span class="method">GET<\/span> <code>\/api\/v1\/issues<\/code>[\s\S]*?<\/section>/.exec(
      html,
    )![0];
    for (const param of known) expect(listSection, param).toContain(`<td><code>${param}</code></td>`);
    expect(html).toContain('{"error": {"message": string, "status": integer}}');
    expect(html).toContain('Invalid parameters; the message names the parameter.');
    expect(html).toContain('CC-BY-4.0');
    if (Object.values(restRoutes).some((r) => r.method === 'POST')) expect(html).toContain('JSON body:');
    if (Object.values(restRoutes).some((r) => r.bearer)) expect(html).toContain('Authorization: Bearer &lt;key&gt;');
    // One inline script (the examples' origin) and nothing loaded from elsewhere.
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).not.toMatch(/<script[^>]*\ssrc=|https:\/\/unpkg|cdn\./);
    // A curl example per route, the plain routes under their own prefixes.
    expect(html.match(/<section class="operation"/g)?.length).toBe(html.match(/<pre><code>curl /g)?.length);
    expect(html).toContain('http://localhost:3000/api/v1/issues/5d0092c5-5f74-4287-9642-33f4c354e56d');
    expect(html).toContain('http://localhost:3000/taxii2/api/collections/all/objects?');
  });

  it('has a table of contents whose every link reaches an anchor on the page, one per route and schema', async () => {
    const html = await (await t.fetch('/api/v1/docs')).text();
    const ids = new Set([...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]));
    const contents = /<nav class="contents"[\s\S]*?<\/nav>/.exec(html)![0];
    const links = [...contents.matchAll(/href="#([^"]+)"/g)].map((m) => m[1]);
    expect(links.filter((id) => !ids.has(id))).toEqual([]);
    expect(links.length).toBe(3 + html.match(/<section class="operation"/g)!.length + html.match(/<section id="schema-/g)!.length);
    // Every section heading links to itself.
    expect(html.match(/<section class="operation"/g)!.length).toBe(html.match(/<h3><span class="method">[\s\S]*?class="anchor"/g)!.length);
  });
});
