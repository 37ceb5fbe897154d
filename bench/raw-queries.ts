// The raw server's SQL (bench/raw-server.ts), shared with the stack floor (bench/floor-server.ts):
// one pg pool (10 connections, as the app's) or the embedded PGlite, hand-written SQL, rows shaped
// as secwire's JSON. DATABASE_URL, or DATA_DIR for an embedded PGlite (queried directly, as the
// app's adapter does).
import pg from 'pg';
import { newPGlite } from '../src/db/pglite.js';
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

export const pool = await connect();

export const issueColumns = `id::text, title, headline, summary, "sourceUrl", "publishedAt", severity::text, "cvssSeverity", "cvssScore",
  labels, "issueType"::text, "cveId", "cweIds", "affectedPackages", "affectedPackageRefs", "affectedVendors", "affectedVendorsRaw",
  "classifierModel", "classifierPromptVersion", solution, "attackType", "cvssVector", "attackVector", "attackComplexity",
  "privilegesRequired", "userInteraction", "exploitMaturity", "epssScore", "epssCheckedAt", "kevDateAdded", "advisoryAliases",
  "affectedPackagesSource", "patchAvailable", "disclosureDate", "capecIds", "crossRefCount", "attackSophistication", "impactType",
  "aiComponentTargeted", "llmSpecific", "classifierConfidence", "researchCategory", "atlasIds"`;

const served = 'relevant AND processed AND NOT withdrawn';
export const iso = (d: Date | null) => (d === null ? null : d.toISOString());

/** A row as the REST surface writes an issue: timestamps in ISO, cvssScore with one decimal. */
export function issueJson(row: Record<string, unknown>): Record<string, unknown> {
  return {
    ...row,
    publishedAt: iso(row.publishedAt as Date),
    cvssScore: row.cvssScore === null ? null : Number(row.cvssScore).toFixed(1),
    epssCheckedAt: iso(row.epssCheckedAt as Date | null),
    disclosureDate: iso(row.disclosureDate as Date | null),
  };
}

/** A row of the GraphQL list's narrow SELECT (id, title, severity, publishedAt) as JSON. */
export const listItemJson = (row: Record<string, unknown>) => ({ ...row, publishedAt: iso(row.publishedAt as Date) });

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

export async function list(query: URLSearchParams, columns: string, toJson: (row: Record<string, unknown>) => unknown) {
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
export async function stats() {
  const servedSince = (interval: string) => `(SELECT count(*) FROM "Issue" WHERE ${served} AND "publishedAt" > now() - interval '${interval}')::int`;
  const { rows } = await pool.query<{ lastNewDataAt: Date | null }>(`
    SELECT (SELECT count(*) FROM "Issue" WHERE ${served})::int AS "totalIssues", (SELECT count(*) FROM "Digest")::int AS "totalDigests",
           ${servedSince('24 hours')} AS "last24h", ${servedSince('7 days')} AS "last7d",
           (SELECT max("lastNewDataAt") FROM "SourceState") AS "lastNewDataAt",
           (SELECT coalesce(json_agg(json_build_object('name', name, 'lastNewDataAt', to_char("lastNewDataAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
                                     ORDER BY "lastNewDataAt" DESC, name), '[]')
              FROM "SourceState" WHERE "lastNewDataAt" IS NOT NULL) AS "newDataSources"`);
  return { data: { ...rows[0]!, lastNewDataAt: iso(rows[0]!.lastNewDataAt) } };
}

export async function digest() {
  const [row] = (
    await pool.query<{ generatedAt: Date }>(`SELECT date, content, "issueCount", "generatedAt" FROM "Digest" WHERE "issueCount" > 0 ORDER BY date DESC LIMIT 1`)
  ).rows;
  return row && { data: { ...row, generatedAt: iso(row.generatedAt) } };
}

export async function single(id: string) {
  const [row] = (await pool.query(`SELECT ${issueColumns} FROM "Issue" WHERE id = $1 AND ${served}`, [id])).rows;
  return row && { data: issueJson(row) };
}

const severities = ['critical', 'high', 'medium', 'low', 'info'];

/** Plain package names only (no versions, vendors or ecosystems): the benchmark's stacks. */
export async function scan(packages: string[]) {
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
