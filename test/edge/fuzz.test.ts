// Property-based fuzzing of every surface with fast-check: generated query strings, path segments,
// JSON and non-JSON bodies (wrong types, huge arrays, deep nesting, unicode, null bytes) against
// every /api/v1 route of the routes table, the CSV export, unknown paths and /graphql (every root
// field of the schema, with generated variables, plus generated documents). New routes and fields
// are fuzzed without touching this file.
//
// Invariants, for every response: never a 5xx; never a stack trace, database, library or
// JavaScript error text, nor a "Did you mean" hint; under /api every 4xx is exactly the envelope
// {error: {message, status}} with status equal to the HTTP status; GraphQL answers standard
// {data?, errors?} bodies whose resolver errors are the app's own (no masked "Unexpected error").
//
// In-process (yoga.fetch) with the rate limit off, on one seeded database, plus raw request lines
// and Host headers over a real socket (createHttpServer), since fetch will not send those. Every
// error body outside /graphql is the envelope. The total number of requests and the time taken
// are printed at the end; at least 10,000 per run. FUZZ_REQUESTS=<n> scales every budget so a
// run sends about n (CI keeps the default); bench/fuzz.ts runs it at bench scale on PGlite and on
// PostgreSQL + Redis (bench/components.md, "Fuzzing").
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import {
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  print,
  type GraphQLField,
  type GraphQLInputType,
  type OperationDefinitionNode,
} from 'graphql';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRateLimitStore } from '../../src/http/redis-rate-limit-store.js';
import type { RateLimitStore } from '../../src/http/rate-limit-store.js';
import { createLogger } from '../../src/log.js';
import { restBasePath, restRoutes, type RestRoute } from '../../src/rest/routes.js';
import { CYCLONEDX_MEDIA_TYPE, MAX_COMPONENT_DEPTH } from '../../src/sbom/parse.js';
import { collections } from '../../src/taxii/collections.js';
import { schema } from '../../src/schema/index.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeIssue } from '../helpers/issues.js';
import { listen, type Listening } from '../helpers/listening.js';
import { rawRequest } from '../helpers/raw-http.js';

const csvExportPath = '/api/issues/export';
/** The configured keys, so routes behind authentication are fuzzed past it too. */
const keys = { admin: 'fuzz-admin-key', webhook: 'fuzz-webhook-key' };
const fuzzTimeout = 600_000;

let t: TestApp;
let rateLimitStore: RateLimitStore | undefined;
let server: Server;
let listening: Listening;
let issueIds: string[] = [];
let sent = 0;
let started = 0;
const perSurface: Record<string, { requests: number; ms: number }> = {};

beforeAll(async () => {
  // With TEST_REDIS_URL (the PostgreSQL + Redis pass), Redis serves as it does for several
  // instances: the new-issue topic, and the rate limit, whose store's clock moves a window ahead
  // at every request, so that each is counted there (one script call) in a window of its own and
  // none is refused (one client sends far more than any real limit allows).
  const redisUrl = process.env.TEST_REDIS_URL || undefined;
  const redisKeyPrefix = `secwire-fuzz-${randomBytes(4).toString('hex')}:`;
  let clock = Date.now();
  rateLimitStore = redisUrl
    ? await createRateLimitStore(redisUrl, createLogger('silent'), { keyPrefix: `${redisKeyPrefix}ratelimit:`, clock: () => (clock += 60_001) })
    : undefined;
  t = await createTestApp(
    {
      logLevel: 'silent',
      adminApiKey: keys.admin,
      webhookApiKey: keys.webhook,
      redisUrl,
      redisKeyPrefix,
      ...(rateLimitStore && { rateLimitPerMinute: 10_000 }),
    },
    undefined,
    rateLimitStore && { rateLimitStore },
  );
  const severities = ['critical', 'high', 'medium', 'low', 'info'] as const;
  const types = ['vulnerability', 'incident', 'news', 'regulatory', 'research'] as const;
  await t.db.prisma.issue.createMany({
    data: Array.from({ length: 30 }, (_, i) =>
      makeIssue({
        title: `Fuzz fixture ${i} \u00e9\u00e8 \u{1F600}`,
        summary: i % 3 ? `Summary ${i}` : null,
        severity: severities[i % 5],
        issueType: types[i % 5],
        cveId: i % 2 ? `CVE-2025-${1000 + i}` : null,
        labels: i % 2 ? ['security'] : ['research', 'privacy'],
        affectedVendors: i % 4 ? ['LangChain'] : [],
        affectedVendorsRaw: i % 4 ? ['LangChain Inc.'] : [],
        vendorKeys: i % 4 ? ['langchain', 'langchain inc.'] : [],
        affectedPackages: i % 3 ? ['langchain@<0.1.0 (fixed: 0.1.0)'] : [],
        packageNames: i % 3 ? ['langchain'] : [],
        classifierConfidence: (i % 10) / 10,
        publishedAt: new Date(Date.UTC(2025, 0, 1 + i)),
        relevant: i !== 7,
      }),
    ),
  });
  issueIds = (await t.db.prisma.issue.findMany({ select: { id: true } })).map((r) => r.id);
  await t.db.prisma.digest.create({ data: { date: '2025-01-30', content: '# Digest\n\nThree issues.', issueCount: 3 } });
  listening = await listen(t);
  server = listening.server;
  started = performance.now();
});

afterAll(async () => {
  const seconds = (performance.now() - started) / 1000;
  const breakdown = Object.entries(perSurface)
    .map(([k, v]) => `${k} ${v.requests} (${(v.ms / v.requests).toFixed(1)} ms each)`)
    .join(', ');
  console.info(`fuzz: ${sent} generated requests in ${seconds.toFixed(1)} s (${(sent / seconds).toFixed(0)}/s): ${breakdown}`);
  await listening?.close();
  await t?.close();
  await rateLimitStore?.close();
});

// ---------------------------------------------------------------------------------------------
// Sending and checking

interface Probe {
  surface: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Text no client may ever see: stacks, database and library internals, JavaScript errors, hints. */
const forbiddenAnywhere: [RegExp, string][] = [
  [/\bat \S+ \(\S*:\d+:\d+\)|\n\s+at \S/, 'a stack trace'],
  [/prisma/i, 'Prisma'],
  [/\bSQL\b|postgres|pglite|\brelation "|syntax error at or near|violates .* constraint/i, 'database text'],
  [/graphql-armor|node_modules|\w\.(ts|js|mjs|cjs):\d+/i, 'library or file names'],
  // (graphql-js's own "Field x is not defined by type Y" and "Variable "$x" is not defined" are client errors.)
  [
    /TypeError|ReferenceError|RangeError|URIError|is not a function|(?<!Variable "\$\w+" )is not defined(?! by type)|undefined is not|Cannot read prop/,
    'a JavaScript error',
  ],
  // graphql-js names fields, arguments, types and enum values it knows ("Did you mean "title"?").
  // Its lexer's advice on quotes ("did you mean to use a double quote") reveals nothing and stays.
  [/Did you mean ("|the enum value)/i, 'a schema hint'],
  [/Unexpected error\.|Internal server error/i, 'a masked unexpected error'],
];
/** Under /api even GraphQL's own wording must not leak through (it is rephrased in our words). */
const forbiddenUnderApi: [RegExp, string][] = [...forbiddenAnywhere, [/Cannot|GraphQL|Int cannot represent|Variable "\$/, 'GraphQL or library wording']];

function assertClean(text: string, rules: [RegExp, string][], where: string) {
  for (const [pattern, what] of rules) {
    if (pattern.test(text)) throw new Error(`${where}: response contains ${what} (${pattern}): ${text.slice(0, 400)}`);
  }
}

async function send(probe: Probe): Promise<void> {
  sent++;
  const tally = (perSurface[probe.surface] ??= { requests: 0, ms: 0 });
  tally.requests++;
  const where = `${probe.method} ${probe.path.slice(0, 300)}`;
  const begun = performance.now();
  const res = await t.fetch(probe.path, { method: probe.method, headers: probe.headers, body: probe.body });
  const text = await res.text();
  tally.ms += performance.now() - begun;
  if (res.status >= 500) throw new Error(`${where}: ${res.status} ${text.slice(0, 400)}`);
  // HEAD has no body to check; its status is the GET's.
  if (probe.method === 'HEAD') return;
  const pathname = new URL(`http://localhost${probe.path}`).pathname;

  if (pathname === '/api' || pathname.startsWith('/api/')) {
    // A 404 names the path the client sent; that echo is the client's own text, not a leak
    // (seen: GET /api/v1/a.tS:0 looked like a source file and line).
    assertClean(text.split(pathname).join(''), forbiddenUnderApi, where);
    if (res.status >= 400) expectEnvelope(res.status, res.headers.get('content-type'), text, where);
    return;
  }

  // Yoga serves its endpoint with a trailing slash too.
  if (pathname === '/graphql' || pathname === '/graphql/') {
    if (probe.method === 'GET' && /text\/html/.test(res.headers.get('content-type') ?? '')) return; // GraphiQL
    if (res.status === 405 || res.status === 404 || res.status === 406 || res.status === 415) {
      assertClean(text, forbiddenAnywhere, where);
      return; // method, route or media type refused by Yoga before any GraphQL
    }
    const body = JSON.parse(text);
    expect(typeof body, where).toBe('object');
    expect(
      Object.keys(body).every((k) => k === 'data' || k === 'errors' || k === 'extensions'),
      where,
    ).toBe(true);
    if (res.status >= 400) expect(body.errors?.length, where).toBeGreaterThan(0);
    for (const error of body.errors ?? []) {
      expect(typeof error.message, where).toBe('string');
      // Request errors (no path) are graphql-js's standard wording; errors raised while resolving
      // are the app's own and must read as such.
      assertClean(error.message, error.path ? forbiddenUnderApi : forbiddenAnywhere, where);
    }
    assertClean(JSON.stringify(body.extensions ?? {}), forbiddenAnywhere, where);
    return;
  }

  assertClean(text, forbiddenAnywhere, where);
  if (res.status >= 400 && pathname.startsWith('/taxii2/')) {
    // TAXII's own error message (TAXII 2.1, 3.6.1), as TAXII clients read it.
    expect(res.headers.get('content-type'), where).toMatch(/^application\/taxii\+json/);
    expect(JSON.parse(text).http_status, where).toBe(String(res.status));
  } else if (res.status >= 400) expectEnvelope(res.status, res.headers.get('content-type'), text, where);
}

/** Every error outside GraphQL is exactly {error: {message, status}} with the HTTP status. */
function expectEnvelope(status: number, contentType: string | null | undefined, text: string, where: string) {
  expect(contentType, where).toMatch(/^application\/json/);
  const body = JSON.parse(text);
  expect(Object.keys(body), where).toEqual(['error']);
  expect(Object.keys(body.error).sort(), where).toEqual(['message', 'status']);
  expect(body.error.status, where).toBe(status);
  expect(typeof body.error.message, where).toBe('string');
  expect(body.error.message.length, where).toBeGreaterThan(0);
}

/** A raw request over the socket: never a 5xx, never a leak, and the envelope for every error. */
async function sendRaw(probe: { target: string; host: string | undefined; method: string }): Promise<void> {
  sent++;
  const tally = (perSurface['raw request lines'] ??= { requests: 0, ms: 0 });
  tally.requests++;
  const begun = performance.now();
  const head = `${probe.method} ${probe.target} HTTP/1.1${probe.host === undefined ? '' : `\r\nHost: ${probe.host}`}`;
  const res = await rawRequest(server, head);
  tally.ms += performance.now() - begun;
  const where = JSON.stringify(head).slice(0, 300);
  if (!(res.status >= 200 && res.status < 500)) throw new Error(`${where}: ${res.status} ${res.raw.slice(0, 400)}`);
  assertClean(res.body, forbiddenAnywhere, where);
  const graphql = /^(https?:\/\/[^/]*)?\/graphql\/?(\?|$)/i.test(probe.target);
  if (res.status >= 400 && !graphql && probe.method !== 'HEAD') expectEnvelope(res.status, res.headers['content-type'], res.body, where);
}

// ---------------------------------------------------------------------------------------------
// Generators

/** Strings that have broken parsers before: empties, escapes, encodings, numbers, injections. */
const classics = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '%',
  '%00',
  '%zz',
  '%E0%A4%A',
  '%2F',
  '%2e%2e',
  '../..',
  '../../../etc/passwd',
  '\\',
  '"',
  "'",
  '`',
  '<script>alert(1)</script>',
  '${7*7}',
  '{{7*7}}',
  "' OR 1=1 --",
  '"; DROP TABLE "Issue"; --',
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '1e309',
  '0x1F',
  '1_000',
  '9'.repeat(400),
  '-1',
  '2147483648',
  '1.5',
  'null',
  'undefined',
  'true',
  'false',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'prototype',
  '\uFEFF',
  '\uD800',
  '\uDFFF',
  '\u202E',
  'ア',
  '\u{1F600}'.repeat(50),
  'a'.repeat(10_000),
  '2025-01-01',
  '2025-13-45',
  '2025-01-01T00:00:00Z',
  '0000-00-00',
  '+275760-09-13',
  'critical',
  'high',
  'info',
  'vulnerability',
  '0000-01-01',
  '0001-01-01T00:00:00+14:00',
  '1969-12-31T23:59:59Z',
  '1970-01-01',
  '9999-12-31T23:59:59.999Z',
  '9999-12-31T23:59:59-14:00',
  '+010000-01-01T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '2024-02-30',
  '2024-02-29T24:00:00Z',
  '2024-01-01T00:00:00+99:00',
  '2024-01-01T00:00:00.123456789Z',
  '00000000-0000-0000-0000-000000000000',
  'CVE-2025-1001',
  'langchain',
  'LangChain',
);

const nastyString = fc.oneof(
  { weight: 4, arbitrary: classics },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 5000 }) },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 1, arbitrary: fc.constantFrom(...issueIdPlaceholders()) },
);

/** Real ids are known only after seeding; generators pick them through this indirection. */
function issueIdPlaceholders() {
  return ['@issue0', '@issue1', '@issue7'];
}
/** Lone surrogates cannot be percent-encoded; URLs and fetch bodies carry them as U+FFFD anyway. */
const wellFormed = (s: string) => (s as unknown as { toWellFormed(): string }).toWellFormed();
const resolveIds = (s: string) => s.replace(/@issue(\d+)/g, (_, i) => issueIds[Number(i)] ?? 'missing');

/** Any JSON value: wrong types, unicode and null bytes in strings, huge arrays, deep nesting. */
const nastyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4, stringUnit: 'binary' }) },
  { weight: 3, arbitrary: nastyString },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 31, -(2 ** 53), 1e308, [], {}) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 5_000 }).map((n) => Array.from({ length: n }, (_, i) => `pkg-${i}`)) },
  { weight: 1, arbitrary: fc.integer({ min: 10, max: 1_000 }).map((n) => nest(n)) },
);

function nest(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

/** A body as raw text: JSON of a generated shape, broken JSON, or deep nesting that only a parser sees. */
const rawBody = (objectArb: fc.Arbitrary<Record<string, unknown>>) =>
  fc.oneof(
    { weight: 5, arbitrary: objectArb.map((o) => JSON.stringify(o)) },
    { weight: 2, arbitrary: nastyJson.map((v) => JSON.stringify(v) ?? 'null') },
    { weight: 1, arbitrary: nastyString },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 200_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 5_000 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)) },
    { weight: 1, arbitrary: objectArb.map((o) => JSON.stringify(o).slice(0, -1)) },
  );

const contentType = fc.constantFrom<Record<string, string>>(
  { 'content-type': 'application/json' },
  { 'content-type': 'application/json; charset=utf-8' },
  { 'content-type': 'text/plain' },
  { 'content-type': 'application/x-www-form-urlencoded' },
  { 'content-type': 'multipart/form-data; boundary=x' },
  { 'content-type': 'application/graphql' },
  {},
);

const authorization = fc.constantFrom<Record<string, string>>(
  {},
  {},
  { authorization: `Bearer ${keys.admin}` },
  { authorization: `Bearer ${keys.webhook}` },
  { authorization: 'Bearer not-a-key' },
  { authorization: 'Basic Zm9vOmJhcg==' },
  { authorization: 'Bearer' },
);

const accept = fc.constantFrom<Record<string, string>>(
  {},
  { accept: 'application/json' },
  { accept: 'application/graphql-response+json' },
  { accept: 'text/html' },
  { accept: '*/*' },
);

/** Query strings: the route's own argument names and junk names, generated values, repeats, raw junk. */
function queryString(argNames: string[]) {
  const name = fc.oneof(
    { weight: 4, arbitrary: argNames.length ? fc.constantFrom(...argNames) : fc.constant('limit') },
    { weight: 1, arbitrary: argNames.length ? fc.constantFrom(...argNames).map((n) => `${n}[]`) : fc.constant('a[]') },
    { weight: 1, arbitrary: fc.constantFrom('a[b][c]', '__proto__[x]', 'constructor[prototype][x]', 'x', '') },
    { weight: 1, arbitrary: nastyString },
  );
  const pairs = fc.array(fc.tuple(name, nastyString), { maxLength: 8 }).map((list) => {
    const params = new URLSearchParams();
    for (const [k, v] of list) params.append(wellFormed(k), wellFormed(resolveIds(v)));
    return params.toString();
  });
  const raw = fc.constantFrom('', '&', '&&=', '%', '%zz=1', 'limit=%FF', 'a=%00', '=', '==', 'a[=1', `limit=${'9'.repeat(60)}`);
  return fc.tuple(pairs, raw).map(([p, r]) => [p, r].filter(Boolean).join('&'));
}

/** One path segment as a client might send it: encoded, raw, or deliberately broken. */
const pathSegment = fc.oneof(
  { weight: 3, arbitrary: nastyString.map((s) => encodeURIComponent(wellFormed(resolveIds(s)))) },
  { weight: 2, arbitrary: fc.constantFrom('@issue0', '@issue1', '@issue7').map(resolveIds) },
  { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '%2F', '../..', '.', '', '%20', '~', ';', ',') },
  { weight: 1, arbitrary: fc.webSegment() },
);

const otherMethod = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE');

function fieldOf(key: string): GraphQLField<unknown, unknown> {
  const [typeName, fieldName] = key.split('.') as [string, string];
  const type = typeName === 'Mutation' ? schema.getMutationType() : schema.getQueryType();
  const field = type?.getFields()[fieldName];
  if (!field) throw new Error(`no field ${key}`);
  return field;
}

/** A request to one REST route: its method (mostly), its path with generated parameters, a query string and maybe a body. */
function restProbe(key: string, route: RestRoute): fc.Arbitrary<Probe> {
  const argNames = fieldOf(key).args.map((a) => a.name);
  const bodyObject = fc.dictionary(fc.oneof(fc.constantFrom(...(argNames.length ? argNames : ['x'])), nastyString), nastyJson, { maxKeys: 6 });
  const segments = route.path.split('/');
  const path = fc
    .tuple(fc.array(pathSegment, { minLength: segments.length, maxLength: segments.length }), fc.constantFrom('', '', '', '/', '/extra', '//'))
    .map(([values, suffix]) => segments.map((s, i) => (s.startsWith(':') ? values[i] : s)).join('/') + suffix);
  return fc
    .record({
      method: fc.oneof({ weight: 5, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: otherMethod }),
      path,
      query: queryString(argNames),
      body: rawBody(bodyObject),
      type: contentType,
      accept,
      auth: authorization,
    })
    .map(({ method, path, query, body, type, accept, auth }) => ({
      surface: `REST ${key}`,
      method,
      path: `${restBasePath}${path}${query ? `?${query}` : ''}`,
      headers: { ...type, ...accept, ...auth },
      body: method === 'GET' || method === 'DELETE' ? undefined : body,
    }));
}

/** The whole operation for a root field, every leaf selected, as SOFA builds it (same builder). */
function operationFor(kind: 'query' | 'mutation', field: string): string {
  const fromSofa = createRequire(createRequire(import.meta.url).resolve('sofa-api'));
  const { buildOperationNodeForField } = fromSofa('@graphql-tools/utils') as {
    buildOperationNodeForField(options: Record<string, unknown>): OperationDefinitionNode;
  };
  return print(buildOperationNodeForField({ schema, kind, field, models: [], ignore: [], circularReferenceDepth: 1 }));
}

/** Every root field of the schema with generated variables (right names, any values). */
function graphqlFieldProbe(): fc.Arbitrary<Probe> {
  const fields = [
    ...Object.values(schema.getQueryType()?.getFields() ?? {}).map((f) => ({ kind: 'query' as const, field: f })),
    ...Object.values(schema.getMutationType()?.getFields() ?? {}).map((f) => ({ kind: 'mutation' as const, field: f })),
  ].map(({ kind, field }) => ({
    name: field.name,
    document: operationFor(kind, field.name),
    args: field.args.map((a) => ({ name: a.name, required: isNonNullType(a.type) })),
  }));
  return fc
    .record({
      target: fc.constantFrom(...fields),
      values: fc.dictionary(nastyString, nastyJson, { maxKeys: 2 }),
      chosen: fc.array(nastyJson, { minLength: 12, maxLength: 12 }),
      omit: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
      accept,
      auth: authorization,
      get: fc.boolean(),
    })
    .map(({ target, values, chosen, omit, accept, auth, get }) => {
      const variables: Record<string, unknown> = { ...values };
      target.args.forEach((arg, i) => {
        if (!omit[i % 12] || arg.required) variables[arg.name] = typeof chosen[i % 12] === 'string' ? resolveIds(chosen[i % 12] as string) : chosen[i % 12];
      });
      if (get && !target.document.startsWith('mutation')) {
        const params = new URLSearchParams({ query: target.document, variables: wellFormed(JSON.stringify(variables)) });
        return { surface: 'GraphQL fields', method: 'GET', path: `/graphql?${params}`, headers: { ...accept, ...auth } };
      }
      return {
        surface: 'GraphQL fields',
        method: 'POST',
        path: '/graphql',
        headers: { 'content-type': 'application/json', ...accept, ...auth },
        body: JSON.stringify({ query: target.document, variables }),
      };
    });
}

/** Token soup: schema names, keywords, punctuation and generated literals in any order. */
function graphqlDocumentProbe(): fc.Arbitrary<Probe> {
  const names = [
    ...Object.keys(schema.getQueryType()?.getFields() ?? {}),
    ...Object.keys(schema.getMutationType()?.getFields() ?? {}),
    ...Object.values(schema.getTypeMap()).flatMap((type) => ('getFields' in type ? Object.keys(type.getFields()) : [])),
  ];
  const token = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...new Set(names)) },
    { weight: 4, arbitrary: fc.constantFrom('{', '}', '(', ')', '[', ']', ':', '$', '!', '=', '...', '@', '|', '&', ',') },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'query',
        'mutation',
        'subscription',
        'fragment',
        'on',
        '__typename',
        '__schema',
        '__type',
        'types',
        'fields',
        'name',
        '@include(if: true)',
        '@skip(if: $x)',
        '@deprecated',
        'true',
        'null',
      ),
    },
    { weight: 1, arbitrary: nastyString.map((s) => JSON.stringify(s)) },
    { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double({ noNaN: true })).map(String) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 5 }) },
  );
  const document = fc.array(token, { maxLength: 60 }).map((tokens) => tokens.join(' '));
  const wrapped = fc.tuple(fc.constantFrom('{ ', 'query Q { ', 'query ($x: Boolean) { ', ''), document, fc.constantFrom(' }', '', ' } }'));
  return fc
    .record({ parts: wrapped, variables: nastyJson, operationName: fc.option(nastyString), extensions: fc.option(nastyJson), accept })
    .map(({ parts, variables, operationName, extensions, accept }) => ({
      surface: 'GraphQL documents',
      method: 'POST',
      path: '/graphql',
      headers: { 'content-type': 'application/json', ...accept },
      body: wellFormed(JSON.stringify({ query: parts.join(''), variables, operationName, extensions })),
    }));
}

/** Bodies that are not GraphQL requests at all: wrong JSON types, broken JSON, other media types. */
function graphqlBodyProbe(): fc.Arbitrary<Probe> {
  const requestLike = fc.dictionary(fc.constantFrom('query', 'variables', 'operationName', 'extensions', 'id', 'x'), nastyJson, { maxKeys: 4 });
  return fc
    .record({
      method: fc.constantFrom('POST', 'POST', 'POST', 'GET', 'PUT', 'DELETE', 'PATCH'),
      body: rawBody(requestLike),
      type: contentType,
      query: queryString(['query', 'variables', 'operationName', 'extensions']),
      accept,
    })
    .map(({ method, body, type, query, accept }) => ({
      surface: 'GraphQL bodies',
      method,
      path: `/graphql${method === 'GET' ? `?${query}` : ''}`,
      headers: { ...type, ...accept },
      body: method === 'GET' || method === 'DELETE' ? undefined : body,
    }));
}

/** The CSV export: the list filters and junk in the query string, any method, any body. */
function csvProbe(): fc.Arbitrary<Probe> {
  const listArgs = fieldOf('Query.issues').args.map((a) => a.name);
  return fc
    .record({
      method: fc.oneof({ weight: 5, arbitrary: fc.constant('GET') }, { weight: 1, arbitrary: otherMethod }),
      query: queryString([...listArgs, 'format', 'columns']),
      body: rawBody(fc.dictionary(nastyString, nastyJson, { maxKeys: 3 })),
      accept,
    })
    .map(({ method, query, body, accept }) => ({
      surface: 'CSV export',
      method,
      path: `${csvExportPath}${query ? `?${query}` : ''}`,
      headers: accept,
      body: method === 'GET' || method === 'DELETE' ? undefined : body,
    }));
}

/** Paths no route serves, under /api and elsewhere. */
function unknownPathProbe(): fc.Arbitrary<Probe> {
  return fc
    .record({
      prefix: fc.constantFrom('/api/v1/', '/api/', '/api/v2/', '/', '/graphql/', '/api/v1/issues/'),
      segments: fc.array(pathSegment, { maxLength: 4 }),
      method: otherMethod,
    })
    .map(({ prefix, segments, method }) => ({ surface: 'unknown paths', method, path: prefix + segments.join('/') }));
}

/** Scan bodies of every shape: lone values for arrays, names, name@version, purls, dates. */
function scanProbe(): fc.Arbitrary<Probe> {
  const entry = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('langchain', 'LangChain', 'llama_index', 'Llama.Index', '@scope/pkg', 'github.com/ollama/ollama') },
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          fc.constantFrom('langchain', 'llama-index', '@scope/pkg', 'torch'),
          fc.oneof(nastyString, fc.constantFrom('0.0.1', 'v1.2.3', '1.0.0-rc.1', 'latest', '1.2', '', '0')),
        )
        .map(([n, v]) => `${n}@${v}`),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom('pypi', 'npm', 'golang', 'maven', 'cargo', 'gem', 'nuget', 'x', ''),
          fc.constantFrom('langchain', '%40langchain/core', 'org.apache/x', 'a/b/c', ''),
          nastyString,
        )
        .map(([t, n, v]) => `pkg:${t}/${n}@${encodeURIComponent(wellFormed(v))}`),
    },
    { weight: 1, arbitrary: nastyJson },
  );
  const list = fc.oneof(
    { weight: 4, arbitrary: fc.array(entry, { maxLength: 20 }) },
    { weight: 1, arbitrary: entry },
    { weight: 1, arbitrary: fc.integer({ min: 900, max: 1_100 }).map((n) => Array.from({ length: n }, (_, i) => `langchain@0.0.${i}`)) },
  );
  const body = fc.record(
    { packages: list, vendors: list, severityMin: fc.oneof(nastyString, fc.constantFrom('critical', 'info', 'CRITICAL')), since: nastyString, x: nastyJson },
    { requiredKeys: [] },
  );
  return fc.record({ body: rawBody(body), type: contentType }).map(({ body, type }) => ({
    surface: 'scan shapes',
    method: 'POST',
    path: `${restBasePath}/scan`,
    headers: type,
    body,
  }));
}

/** Request lines and Host headers fetch would refuse: `*`, absolute forms, bad ports, junk. */
function rawProbe() {
  const host = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        'localhost',
        'localhost:3000',
        '127.0.0.1',
        '[::1]:80',
        'example.org',
        'x:99999',
        'x:-1',
        'x:80:80',
        '[::1',
        'a/b',
        '%zz',
        'x@y',
        '',
        ' ',
        'a b',
        'localhost:',
        ':80',
        '[]',
        'exa_mple.org',
        '\u00e9.example',
      ),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 30 }).map((h) => h.replace(/[\r\n]/g, '')) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  const path = fc.oneof(
    fc.constantFrom(
      '/api/v1/issues',
      '/api/v1/stats',
      '/api/issues/export',
      '/graphql',
      '/health',
      '/ready',
      '/',
      '/api/v1/issues?limit=1#frag',
      '/api/v1/issues?since=0000-01-01',
    ),
    fc.array(pathSegment, { maxLength: 3 }).map((s) => `/api/v1/${s.join('/')}`),
  );
  const target = fc.oneof(
    { weight: 3, arbitrary: path },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom('http://localhost', 'https://localhost:1', 'http://x:99999', 'ftp://h', 'http://[::1', 'HTTP://LOCALHOST', 'http://'), path)
        .map(([a, p]) => a + p),
    },
    { weight: 2, arbitrary: fc.constantFrom('*', '', 'issues', '//', '%', '/%zz', '?', '#', '/\\evil', '/..', '/../etc/passwd', '/\u00e9') },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 40 }).map((x) => x.replace(/[\s]/g, '')) },
  );
  return fc.record({ target, host, method: fc.constantFrom('GET', 'GET', 'HEAD', 'POST', 'OPTIONS', 'DELETE', 'BREW') });
}

/**
 * The shapes issue 27 found 500s or stuck slots with: forged list cursors and TAXII `next` tokens
 * (year 0, negative and out-of-range positions), CycloneDX components nested far past the depth
 * limit, lone surrogates in component versions, and HEAD on the streaming routes (subscriptions,
 * exports, feeds).
 */
function hostileProbe() {
  const time = fc.constantFrom(
    '0000-01-01T00:00:00.000Z',
    '-000001-01-01T00:00:00Z',
    '+275760-09-13T00:00:00Z',
    '1969-12-31T23:59:59Z',
    '2025-01-05T00:00:00.000Z',
    '',
    'x',
  );
  const index = fc.oneof(fc.integer(), fc.constantFrom(-5, -1, 0, 1, 2 ** 53, 1e308, 0.5, Number.NaN));
  const uuid = fc.oneof(fc.uuid(), fc.constantFrom('@issue0', 'x', ''));
  const token = (value: fc.Arbitrary<unknown>) =>
    fc.oneof(
      { weight: 4, arbitrary: value.map((v) => Buffer.from(JSON.stringify(v) ?? 'null').toString('base64url')) },
      { weight: 1, arbitrary: nastyString.map((v) => encodeURIComponent(wellFormed(v))) },
    );
  const cursor = token(fc.oneof(fc.tuple(time, uuid), fc.array(fc.oneof(time, uuid, index), { maxLength: 3 }), nastyJson));
  const next = token(fc.oneof(fc.record({ r: index }), fc.record({ t: time, id: uuid, k: index }), nastyJson));
  const collection = fc.oneof(fc.constantFrom(...collections.map((c) => c.id)), fc.constantFrom(...collections.map((c) => c.alias)));
  const sbom = fc.record({
    depth: fc.oneof(fc.integer({ min: 1, max: MAX_COMPONENT_DEPTH + 2 }), fc.integer({ min: 1, max: 6_000 })),
    version: fc.oneof(
      fc.constantFrom('1.0.0', '\\ud800', '\\udfff', 'a\\ud800b', '\\ud83d\\ude00', ''),
      fc.string({ unit: 'binary', maxLength: 10 }).map((v) => JSON.stringify(v).slice(1, -1)),
    ),
    spread: fc.integer({ min: 0, max: 3 }),
  });
  return fc.oneof(
    cursor.map((c): Probe => ({ surface: 'issue 27 shapes', method: 'GET', path: `${restBasePath}/issues?cursor=${c}` })),
    fc.tuple(collection, next).map(
      ([id, n]): Probe => ({
        surface: 'issue 27 shapes',
        method: 'GET',
        path: `/taxii2/api/collections/${id}/objects/?next=${n}`,
        headers: { accept: 'application/taxii+json;version=2.1' },
      }),
    ),
    sbom.map(({ depth, version, spread }): Probe => {
      // Written as text so the escapes reach the server's JSON parser as lone surrogates.
      let component = `{"type":"library","name":"langchain","version":"${version}","purl":"pkg:pypi/langchain@${version}"}`;
      for (let i = 1; i < depth; i++)
        component = `{"type":"library","name":"n${i}","components":[${component}${',{"type":"library","name":"s"}'.repeat(spread)}]}`;
      return {
        surface: 'issue 27 shapes',
        method: 'POST',
        path: `${restBasePath}/scan`,
        headers: { 'content-type': CYCLONEDX_MEDIA_TYPE },
        body: `{"bomFormat":"CycloneDX","specVersion":"1.5","components":[${component}]}`,
      };
    }),
    fc
      .constantFrom(
        ['/graphql?query=subscription%7BnewIssues%7Bissues%7Bid%7D%7D%7D', { accept: 'text/event-stream' }],
        ['/graphql?query=subscription%7BnewIssues%7Bissues%7Bid%7D%7D%7D', {}],
        ['/api/issues/export', {}],
        ['/api/v1/osv/all.zip', {}],
        ['/api/v1/osv/ecosystems.txt', {}],
        ['/api/v1/issues/stix?limit=100', {}],
        ['/graphql', { accept: 'text/html' }],
      )
      .map(([path, headers]): Probe => ({ surface: 'issue 27 shapes', method: 'HEAD', path: path as string, headers: headers as Record<string, string> })),
  );
}

/** A string the database cannot store: NUL, or a lone UTF-16 surrogate (JSON.stringify escapes it, so it reaches the server's parser). */
const unstorableText = fc.constantFrom('\u0000', 'a\u0000b', '\uD800', 'x\uDFFF', '\uDC00\uD800y');

/** Where a string sits in a mutation's arguments: the value's path, and whether the string is an object key there. */
interface TextSlot {
  path: (string | number)[];
  key?: boolean;
}

/** A valid-typed value of an input type with every field given, and every place in it that holds a string. */
function sampleOf(type: GraphQLInputType): { value: unknown; slots: TextSlot[] } {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    const item = sampleOf(inner.ofType);
    return { value: [item.value], slots: item.slots.map((s) => ({ ...s, path: [0, ...s.path] })) };
  }
  if (isInputObjectType(inner)) {
    const value: Record<string, unknown> = {};
    const slots: TextSlot[] = [];
    for (const [name, field] of Object.entries(inner.getFields())) {
      const sample = sampleOf(field.type);
      value[name] = sample.value;
      slots.push(...sample.slots.map((s) => ({ ...s, path: [name, ...s.path] })));
    }
    return { value, slots };
  }
  if (isEnumType(inner)) return { value: inner.getValues()[0]!.value, slots: [] };
  switch (inner.name) {
    case 'Int':
    case 'Float':
      return { value: 1, slots: [] };
    case 'Boolean':
      return { value: true, slots: [] };
    case 'DateTime':
      return { value: '2025-01-01T00:00:00Z', slots: [] };
    case 'JSON':
      // An SBOM-like document: its values and its keys at any depth.
      return {
        value: { bomFormat: 'CycloneDX', components: [{ name: 'x', purl: 'pkg:pypi/x@1' }] },
        slots: [{ path: ['bomFormat'] }, { path: ['components', 0, 'name'] }, { path: ['components', 0, 'purl'] }, { path: ['components', 0], key: true }],
      };
    default:
      return { value: '00000000-0000-4000-8000-000000000000', slots: [{ path: [] }] };
  }
}

const spelt = (path: (string | number)[]) => path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i ? `.${p}` : p)).join('');

function placeText(value: unknown, slot: TextSlot, text: string): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  if (slot.key) {
    const holder = slot.path.reduce<any>((v, p) => v[p], copy);
    holder[text] = 'x';
  } else {
    const last = slot.path.at(-1)!;
    const holder = slot.path.slice(0, -1).reduce<any>((v, p) => v[p], copy);
    holder[last] = text;
  }
  return copy;
}

/**
 * Every string of every mutation's arguments (and every value and key of a JSON one), over REST
 * and GraphQL: a NUL or a lone surrogate there is a 400 naming it, on every database. An admin
 * ingest is the exception: it refuses the one record that holds it and stores the rest.
 */
function unstorableTextProbe(): fc.Arbitrary<{ probe: Probe; named: string; graphql: boolean }> {
  const cases = Object.values(schema.getMutationType()!.getFields())
    .filter((field) => field.name !== 'ingestItems')
    .flatMap((field) => {
      const route = restRoutes[`Mutation.${field.name}`];
      const inPath = new Set((route?.path ?? '').split('/').flatMap((s) => (s.startsWith(':') ? [s.slice(1)] : [])));
      const args = Object.fromEntries(field.args.map((a) => [a.name, sampleOf(a.type)]));
      const key = route?.bearer === 'admin' ? keys.admin : keys.webhook;
      return field.args.flatMap((arg) =>
        args[arg.name]!.slots.map((slot) => ({ field, route, inPath, args, key, arg: arg.name, slot: { ...slot, path: [arg.name, ...slot.path] } })),
      );
    });
  return fc.record({ target: fc.constantFrom(...cases), text: unstorableText, graphql: fc.boolean() }).map(({ target, text, graphql }) => {
    const values = Object.fromEntries(Object.entries(target.args).map(([name, sample]) => [name, sample.value]));
    const variables = placeText(values, target.slot, text) as Record<string, unknown>;
    const named = target.slot.key ? `A key of ${spelt(target.slot.path)}` : spelt(target.slot.path);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${target.key}` };
    // Over REST, an argument in the path is the path's (a NUL there is %00 in a URL).
    if (graphql || !target.route || target.inPath.has(target.arg)) {
      const document = operationFor('mutation', target.field.name);
      return {
        graphql: true,
        named,
        probe: { surface: 'unstorable text', method: 'POST', path: '/graphql', headers, body: JSON.stringify({ query: document, variables }) },
      };
    }
    const path = target.route.path.replace(/:(\w+)/g, (_, name: string) => String(values[name]));
    const body = Object.fromEntries(Object.entries(variables).filter(([name]) => !target.inPath.has(name)));
    return {
      graphql: false,
      named,
      probe: { surface: 'unstorable text', method: target.route.method, path: `${restBasePath}${path}`, headers, body: JSON.stringify(body) },
    };
  });
}

async function sendUnstorable({ probe, named, graphql }: { probe: Probe; named: string; graphql: boolean }) {
  sent++;
  const res = await t.fetch(probe.path, { method: probe.method, headers: probe.headers, body: probe.body });
  const body = (await res.json()) as any;
  const where = `${probe.method} ${probe.path} ${probe.body}`;
  const message = graphql ? body.errors?.[0]?.message : body.error?.message;
  expect(graphql ? body.errors?.[0]?.extensions?.code : res.status, where).toBe(graphql ? 'BAD_REQUEST' : 400);
  expect(message, where).toMatch(new RegExp(`^${named.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} (must not contain NUL characters|must be valid Unicode text)`));
}

// FUZZ_REQUESTS=<n> scales every budget below (about 12,000 requests in all at the default).
const defaultTotal = 12_000;
const scale = Math.max(1, Number(process.env.FUZZ_REQUESTS ?? 0) / defaultTotal);

const run = (probe: fc.Arbitrary<Probe>, numRuns: number) =>
  fc.assert(
    fc.asyncProperty(probe, (p) => send(p)),
    { numRuns: Math.round(numRuns * scale) },
  );

// ---------------------------------------------------------------------------------------------

describe('fuzzing', () => {
  const routeKeys = Object.keys(restRoutes) as (keyof typeof restRoutes)[];
  // A budget shared by the routes (at least 300 each), so the run time grows slowly as routes land.
  const perRoute = Math.max(300, Math.ceil(4_000 / routeKeys.length));

  it.each(routeKeys)('REST %s', async (key) => run(restProbe(key, restRoutes[key]!), perRoute), fuzzTimeout);

  it('the CSV export', async () => run(csvProbe(), 1_000), fuzzTimeout);
  it('unknown paths', async () => run(unknownPathProbe(), 1_200), fuzzTimeout);
  it('GraphQL: every root field with generated variables', async () => run(graphqlFieldProbe(), 1_000), fuzzTimeout);
  it('GraphQL: generated documents', async () => run(graphqlDocumentProbe(), 3_000), fuzzTimeout);
  it('GraphQL: bodies that are not GraphQL requests', async () => run(graphqlBodyProbe(), 1_200), fuzzTimeout);
  it('scan shapes', async () => run(scanProbe(), 600), fuzzTimeout);
  it(
    'a NUL or a lone surrogate in any string of any mutation is a 400 naming it, and changes nothing',
    async () => {
      const stored = () => Promise.all([t.db.prisma.webhook.count(), t.db.prisma.apiKey.count(), t.db.prisma.digest.count()]);
      const before = await stored();
      await fc.assert(
        fc.asyncProperty(unstorableTextProbe(), (p) => sendUnstorable(p)),
        { numRuns: Math.round(300 * scale) },
      );
      expect(await stored()).toEqual(before);
    },
    fuzzTimeout,
  );
  it(
    'issue 27 shapes: forged cursors and TAXII tokens, deep SBOMs, lone surrogates, HEAD on streaming routes',
    async () => run(hostileProbe(), 600),
    fuzzTimeout,
  );
  it(
    'raw request lines and Host headers over a socket',
    async () =>
      fc.assert(
        fc.asyncProperty(rawProbe(), (p) => sendRaw(p)),
        { numRuns: Math.round(400 * scale) },
      ),
    fuzzTimeout,
  );

  it('sent at least 10,000 generated requests (FUZZ_REQUESTS: at least that many)', () => {
    expect(sent).toBeGreaterThanOrEqual(Math.max(10_000, Number(process.env.FUZZ_REQUESTS ?? 0)));
  });
});
