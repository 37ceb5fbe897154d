// The throughput benchmark's baseline: the least a server can do to answer the benchmarked requests
// with the same JSON as secwire. node:http, one pg pool (10 connections, as the app's), hand-written
// SQL, JSON.stringify. It knows only the requests bench/throughput.ts sends and answers 404 to
// anything else; it validates nothing. Run as a child process: DATABASE_URL, or DATA_DIR for an
// embedded PGlite (queried directly, as the app's adapter does), PORT (0 = any); it prints
// `listening <port>` once ready.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { newPGlite } from '../src/db/pglite.js';
import { smallGraphqlQuery } from './graphql-queries.js';
import { scanCandidatesSql } from './issue-rows.js';

interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
  end(): Promise<void>;
}

async function connect(): Promise<Queryable> {
  if (process.env.DATABASE_URL) return new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 }) as unknown as Queryable;
  const pglite = newPGlite(process.env.DATA_DIR);
  return { query: (sql, params) => pglite.query(sql, params), end: () => pglite.close() };
}

const pool = await connect();

const issueColumns = `id::text, title, headline, summary, "sourceUrl", "publishedAt", severity::text, "cvssSeverity", "cvssScore",
  labels, "issueType"::text, "cveId", "cweIds", "affectedPackages", "affectedPackageRefs", "affectedVendors", "affectedVendorsRaw",
  "classifierModel", "classifierPromptVersion", solution, "attackType", "cvssVector", "attackVector", "attackComplexity",
  "privilegesRequired", "userInteraction", "exploitMaturity", "epssScore", "epssCheckedAt", "kevDateAdded", "advisoryAliases",
  "affectedPackagesSource", "patchAvailable", "disclosureDate", "capecIds", "crossRefCount", "attackSophistication", "impactType",
  "aiComponentTargeted", "llmSpecific", "classifierConfidence", "researchCategory", "atlasIds"`;

const served = 'relevant AND processed AND NOT withdrawn';
const iso = (d: Date | null) => (d === null ? null : d.toISOString());

/** A row as the REST surface writes an issue: timestamps in ISO, cvssScore with one decimal. */
function issueJson(row: Record<string, unknown>): Record<string, unknown> {
  return {
    ...row,
    publishedAt: iso(row.publishedAt as Date),
    cvssScore: row.cvssScore === null ? null : Number(row.cvssScore).toFixed(1),
    epssCheckedAt: iso(row.epssCheckedAt as Date | null),
    disclosureDate: iso(row.disclosureDate as Date | null),
  };
}

/** The list filters the benchmark uses, as SQL; its search is words (src/issues/filters.ts: full text). */
function listWhere(query: URLSearchParams, params: unknown[]): string {
  const where = [served];
  const severity = query.get('severity');
  if (severity) where.push(`severity = $${params.push(severity)}::"Severity"`);
  const pkg = query.get('package');
  if (pkg) where.push(`"packageNames" && $${params.push([pkg.toLowerCase()])}::text[]`);
  const search = query.get('search');
  if (search) where.push(`"searchVector" @@ websearch_to_tsquery('english', $${params.push(search)})`);
  return where.join(' AND ');
}

async function list(query: URLSearchParams, columns: string, toJson: (row: Record<string, unknown>) => unknown) {
  const params: unknown[] = [];
  const where = listWhere(query, params);
  const limit = Number(query.get('limit') ?? 20);
  const [rows, count] = await Promise.all([
    pool.query(`SELECT ${columns} FROM "Issue" WHERE ${where} ORDER BY "publishedAt" DESC, id DESC LIMIT ${limit}`, params),
    pool.query<{ total: number }>(`SELECT count(*)::int AS total FROM "Issue" WHERE ${where}`, params),
  ]);
  return { data: rows.rows.map(toJson), meta: { total: count.rows[0]!.total, limit, offset: 0 } };
}

/**
 * One statement; each count an index-only scan of the served partial indexes, as the app's four, and
 * the freshness fields as src/issues/freshness.ts reads them (timestamps are stored in UTC).
 */
async function stats() {
  const servedSince = (interval: string) => `(SELECT count(*) FROM "Issue" WHERE ${served} AND "publishedAt" > now() - interval '${interval}')::int`;
  const { rows } = await pool.query<{ lastNewDataAt: Date | null }>(`
    SELECT (SELECT count(*) FROM "Issue" WHERE ${served})::int AS "totalIssues", (SELECT count(*) FROM "Digest")::int AS "totalDigests",
           ${servedSince('24 hours')} AS "last24h", ${servedSince('7 days')} AS "last7d",
           (SELECT max("modifiedAt") FROM "Issue" WHERE ${served}) AS "lastNewDataAt",
           (SELECT coalesce(json_agg(json_build_object('name', name, 'lastNewDataAt', to_char("lastNewDataAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
                                     ORDER BY "lastNewDataAt" DESC, name), '[]')
              FROM "SourceState" WHERE "lastNewDataAt" IS NOT NULL) AS "newDataSources"`);
  return { data: { ...rows[0]!, lastNewDataAt: iso(rows[0]!.lastNewDataAt) } };
}

async function digest() {
  const [row] = (
    await pool.query<{ generatedAt: Date }>(`SELECT date, content, "issueCount", "generatedAt" FROM "Digest" WHERE "issueCount" > 0 ORDER BY date DESC LIMIT 1`)
  ).rows;
  return row && { data: { ...row, generatedAt: iso(row.generatedAt) } };
}

async function single(id: string) {
  const [row] = (await pool.query(`SELECT ${issueColumns} FROM "Issue" WHERE id = $1 AND ${served}`, [id])).rows;
  return row && { data: issueJson(row) };
}

const severities = ['critical', 'high', 'medium', 'low', 'info'];

/** Plain package names only (no versions, vendors or ecosystems): the benchmark's stacks. */
async function scan(packages: string[]) {
  const keys = packages.map((p) => p.toLowerCase());
  const { rows } = await pool.query(scanCandidatesSql('NULL::jsonb'), [keys, []]);
  const bySeverity: Record<string, number> = Object.fromEntries(severities.map((s) => [s, 0]));
  const data = rows.map((row) => {
    bySeverity[row.severity as string]! += 1;
    const names = new Set(row.packageNames as string[]);
    return {
      id: row.id,
      title: row.title,
      severity: row.severity,
      cveId: row.cveId,
      matchedPackages: packages.filter((p, i) => names.has(keys[i]!)),
      matchedVendors: [],
    };
  });
  return { data, meta: { total: data.length, bySeverity } };
}

/** GraphQL: only the benchmark's own query, recognised by its text. */
async function graphql(body: { query?: string }) {
  if (body.query !== smallGraphqlQuery) return undefined;
  const page = await list(new URLSearchParams(), `id::text, title, severity::text, "publishedAt"`, (row) => ({
    ...row,
    publishedAt: iso(row.publishedAt as Date),
  }));
  return { data: { issues: { data: page.data, meta: { total: page.meta.total } } } };
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

async function route(req: IncomingMessage): Promise<unknown> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (req.method === 'GET') {
    if (url.pathname === '/api/v1/issues') return list(url.searchParams, issueColumns, issueJson);
    if (url.pathname === '/api/v1/stats') return stats();
    if (url.pathname === '/api/v1/digest/latest') return digest();
    const one = /^\/api\/v1\/issues\/([0-9a-f-]{36})$/.exec(url.pathname);
    if (one) return single(one[1]!);
  }
  if (req.method === 'POST' && url.pathname === '/api/v1/scan') return scan((await readJson(req)).packages as string[]);
  if (req.method === 'POST' && url.pathname === '/graphql') return graphql(await readJson(req));
  return undefined;
}

function send(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const server = createServer((req, res) => {
  route(req).then(
    (body) => send(res, body === undefined ? 404 : 200, body ?? { error: 'not found' }),
    (err: Error) => send(res, 500, { error: err.message }),
  );
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log(`listening ${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => server.close(() => void pool.end()));
