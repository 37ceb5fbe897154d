// How issues are read, in one place: a resolver says which columns (its selection) and which issues
// (validated filters, an id, a page); this module says how they are found. Every statement goes
// past Prisma's client through db/driver-read.ts, whose rows look like Prisma's own raw reads: for
// these hot reads the client's query building and row mapping cost more CPU than the driver.
import { columnsSql, type DriverRead } from '../db/driver-read.js';
import { Prisma } from '../generated/prisma/client.js';
import type { Severity } from '../generated/prisma/enums.js';
import { isUuid } from '../params.js';
import { afterCursor, afterPosition } from './cursor.js';
import { changeOrderSql, issueFilterSql, issueOrderSql, issueOrderSqlFor, type IssueFilters } from './filters.js';
import type { Freshness, SourceFreshness } from './freshness.js';
import { publishedIssueSql, servedIssueSql } from './served.js';

export interface IssuePageQuery {
  filters: IssueFilters;
  /** Rows start after this cursor (the filters still decide which rows). */
  cursor?: string | null;
  limit: number;
  offset: number;
}

/** One page of the served issues matching the filters, in the list's order. */
export function readIssuePage<T>(read: DriverRead, columns: Prisma.Sql, { filters, cursor, limit, offset }: IssuePageQuery): Promise<T[]> {
  const filtered = issueFilterSql(filters);
  const where = cursor ? Prisma.sql`${filtered} AND ${afterCursor(cursor)}` : filtered;
  return read<T>(Prisma.sql`SELECT ${columns} FROM "Issue" WHERE ${where} ORDER BY ${issueOrderSqlFor(filters)} LIMIT ${limit} OFFSET ${offset}`);
}

/** One served issue by id; undefined for any other id, malformed ones included. */
export async function readServedIssue<T>(read: DriverRead, columns: Prisma.Sql, id: string): Promise<T | undefined> {
  if (!isUuid(id)) return undefined;
  const [issue] = await read<T>(Prisma.sql`SELECT ${columns} FROM "Issue" WHERE id = ${id}::uuid AND ${servedIssueSql}`);
  return issue;
}

/** The first served issue matching the filters (an alias: ingest merges issues sharing one, so there is at most one). */
export async function readFirstIssue<T>(read: DriverRead, columns: Prisma.Sql, filters: IssueFilters): Promise<T | undefined> {
  const [issue] = await read<T>(Prisma.sql`SELECT ${columns} FROM "Issue" WHERE ${issueFilterSql(filters)} ORDER BY ${issueOrderSql} LIMIT 1`);
  return issue;
}

/** Changes after `modifiedSince` (every change when absent), oldest first; withdrawals are changes too, so not the served rule. */
export function readIssueChanges<T>(read: DriverRead, columns: Prisma.Sql, modifiedSince: Date | undefined, limit: number): Promise<T[]> {
  const after = modifiedSince ? Prisma.sql` AND "modifiedAt" > ${modifiedSince}` : Prisma.empty;
  return read<T>(
    Prisma.sql`SELECT ${columns}, "modifiedAt", "withdrawn" FROM "Issue" WHERE ${publishedIssueSql}${after} ORDER BY ${changeOrderSql} LIMIT ${limit}`,
  );
}

/** The served issues among these ids, in the list's order (the first `limit` of them, when given). */
export function readServedIssues<T>(read: DriverRead, columns: Prisma.Sql, ids: string[], limit?: number): Promise<T[]> {
  const first = limit === undefined ? Prisma.empty : Prisma.sql` LIMIT ${limit}`;
  return read<T>(Prisma.sql`SELECT ${columns} FROM "Issue" WHERE ${servedIssueSql} AND id = ANY(${ids}::uuid[]) ORDER BY ${issueOrderSql}${first}`);
}

/** Which of these ids are served issues matching the filters. */
export async function matchingIssueIds(read: DriverRead, filters: IssueFilters, ids: string[]): Promise<string[]> {
  const rows = await read<{ id: string }>(Prisma.sql`SELECT id FROM "Issue" WHERE ${issueFilterSql(filters)} AND id = ANY(${ids}::uuid[])`);
  return rows.map((r) => r.id);
}

/** The newest served issues matching the filters, in the list's order whatever the filters (a feed). */
export function readLatestIssues<T>(read: DriverRead, columns: Prisma.Sql, filters: IssueFilters, limit: number): Promise<T[]> {
  return read<T>(Prisma.sql`SELECT ${columns} FROM "Issue" WHERE ${issueFilterSql(filters)} ORDER BY ${issueOrderSql} LIMIT ${limit}`);
}

/** Where a keyset page starts: after this issue in the list's order. */
type Position = { publishedAt: Date; id: string };

/**
 * The issues `where` selects (SQL over "Issue"), in keyset pages (publishedAt desc, id desc), for
 * exports that stream every matching row: memory stays flat and each page starts where the last
 * ended, whatever the size. Each row has `columns` and the position's own two.
 */
export async function* issuePages<R extends Record<string, unknown>>(
  read: DriverRead,
  where: Prisma.Sql,
  columns: readonly string[],
  pageSize: number,
): AsyncGenerator<(R & Position)[]> {
  const select = columnsSql([...columns, 'publishedAt', 'id']);
  let after: Position | undefined;
  for (;;) {
    const page = await read<R & Position>(
      Prisma.sql`SELECT ${select} FROM "Issue" WHERE ${where}${after ? Prisma.sql` AND ${afterPosition(after)}` : Prisma.empty}
                 ORDER BY ${issueOrderSql} LIMIT ${pageSize}`,
    );
    if (page.length > 0) {
      const last = page[page.length - 1]!;
      after = { publishedAt: last.publishedAt, id: last.id };
      yield page;
    }
    if (page.length < pageSize) return;
  }
}

/** TAXII's order: the issues `where` selects, first seen up to `settledBefore` (and after `addedAfter`), from a (firstSeenAt, id) position on. */
export function readIssuesBySeen<T>(
  read: DriverRead,
  columns: Prisma.Sql,
  {
    where,
    settledBefore,
    addedAfter,
    from,
    limit,
  }: { where: Prisma.Sql; settledBefore: Date; addedAfter?: Date; from?: { t: string; id: string }; limit: number },
): Promise<(T & { firstSeenAt: Date })[]> {
  const after = addedAfter ? Prisma.sql` AND "firstSeenAt" > ${addedAfter}` : Prisma.empty;
  const since = from ? Prisma.sql` AND ("firstSeenAt", id) >= (${new Date(from.t)}, ${from.id}::uuid)` : Prisma.empty;
  return read<T & { firstSeenAt: Date }>(
    Prisma.sql`SELECT ${columns}, "firstSeenAt" FROM "Issue" WHERE ${where} AND "firstSeenAt" <= ${settledBefore}${after}${since}
               ORDER BY "firstSeenAt", id LIMIT ${limit}`,
  );
}

/**
 * The attack types and ATLAS techniques (`attack-type:<x>`, `atlas:<id>`) named by the issues
 * `where` selects, first seen up to `settledBefore` and before a TAXII position (or at or before
 * `addedAfter`).
 */
export async function readAttackKeysSeenBefore(
  read: DriverRead,
  { where, settledBefore, before }: { where: Prisma.Sql; settledBefore: Date; before: { t: string; id: string } | { addedAfter: Date } },
): Promise<string[]> {
  const earlier =
    'id' in before ? Prisma.sql`("firstSeenAt", id) < (${new Date(before.t)}, ${before.id}::uuid)` : Prisma.sql`"firstSeenAt" <= ${before.addedAfter}`;
  const all = Prisma.sql`${where} AND "firstSeenAt" <= ${settledBefore} AND ${earlier}`;
  const rows = await read<{ key: string }>(
    Prisma.sql`SELECT 'attack-type:' || a AS key FROM "Issue", unnest("attackType") AS a WHERE ${all}
               UNION SELECT 'atlas:' || a AS key FROM "Issue", unnest("atlasIds") AS a WHERE ${all}`,
  );
  return rows.map((r) => r.key);
}

/**
 * The stats' windows, in one statement: served issues published in the last 24 hours and 7 days
 * (index range scans on the served publishedAt index; FILTER clauses over one count compared every
 * served row's date), and, in the same round trip, the number of digests.
 */
export async function readStatsCounts(read: DriverRead): Promise<{ last24h: number; last7d: number; totalDigests: number }> {
  const [row] = await read<{ last24h: number; last7d: number; totalDigests: number }>(Prisma.sql`
    SELECT (SELECT count(*)::int FROM "Issue" WHERE ${servedIssueSql} AND "publishedAt" > now() - interval '24 hours') AS "last24h",
           (SELECT count(*)::int FROM "Issue" WHERE ${servedIssueSql} AND "publishedAt" > now() - interval '7 days') AS "last7d",
           (SELECT count(*)::int FROM "Digest") AS "totalDigests"`);
  return row!;
}

/** The served issues a digest of [from, to) reads: published from `publishedFrom` to `to`, or added to KEV in [kevFrom, kevTo]; every served issue without a range. */
export function readDigestIssues<T>(
  read: DriverRead,
  columns: Prisma.Sql,
  range?: { publishedFrom: Date; to: Date; kevFrom: string; kevTo: string },
): Promise<T[]> {
  if (!range) return read<T>(Prisma.sql`SELECT ${columns} FROM "Issue" WHERE ${servedIssueSql}`);
  return read<T>(Prisma.sql`
    SELECT ${columns} FROM "Issue" WHERE ${servedIssueSql}
      AND (("publishedAt" >= ${range.publishedFrom} AND "publishedAt" < ${range.to})
        OR "kevDateAdded" BETWEEN ${range.kevFrom} AND ${range.kevTo})`);
}

/** The package refs (`ecosystem:name`) of unserved, unwithdrawn issues in these ecosystems (of these issues only, when given). */
export function readUnservedPackageRefs(read: DriverRead, ecosystems: string[], issueIds?: string[]): Promise<{ ecosystem: string; name: string }[]> {
  const only = issueIds ? Prisma.sql`AND "id" = ANY(${issueIds}::uuid[])` : Prisma.empty;
  return read<{ ecosystem: string; name: string }>(Prisma.sql`
    SELECT DISTINCT lower(split_part(ref, ':', 1)) AS ecosystem, substr(ref, strpos(ref, ':') + 1) AS name
    FROM "Issue", unnest("affectedPackageRefs") AS ref
    WHERE NOT "relevant" AND NOT "withdrawn" AND lower(split_part(ref, ':', 1)) = ANY(${ecosystems}::text[]) ${only}`);
}

/** When the feed last received new data (a served issue's modifiedAt), and the sources that brought it (their state rows), most recent first. */
export async function readFreshness(read: DriverRead): Promise<Freshness> {
  const sources = await read<SourceFreshness>(
    Prisma.sql`SELECT name, "lastNewDataAt" FROM "SourceState" WHERE "lastNewDataAt" IS NOT NULL ORDER BY "lastNewDataAt" DESC, name`,
  );
  const newDataSources = sources.map((s) => ({ name: s.name, lastNewDataAt: new Date(s.lastNewDataAt) }));
  return { lastNewDataAt: newDataSources[0]?.lastNewDataAt ?? null, newDataSources };
}

/** An issue as a scan's matching reads it. */
export interface CandidateRow {
  id: string;
  title: string;
  severity: Severity;
  cveId: string | null;
  packageNames: string[];
  vendorKeys: string[];
  affected: unknown;
}

export interface ScanCandidatesQuery {
  /** Package names (Issue.packageNames spellings) and vendor or product keys (vendorKeys) to probe. */
  packageKeys: string[];
  vendorKeys: string[];
  /** Read each candidate's OSV `affected` ranges (a stack entry has a version to check). */
  needsRanges: boolean;
  severityMin?: Severity;
  since?: Date;
  /** Settings local to the statement (a large stack's: JIT off, a time limit of its own). */
  settings?: Record<string, string>;
}

/**
 * The served issues a stack's keys touch, most severe first. One GIN index probe per key
 * (containment of a one-element array), then the rows by primary key. Not `"packageNames" && $keys`:
 * with a 1,000-key array PostgreSQL's estimate often favours a sequential scan, where every row is
 * compared with every key, and even on the index a many-key GIN scan checks every key for every hit.
 * The planner prices each probe at hundreds of rows, which pushes a large stack past
 * jit_above_cost, where compiling costs more than running: the caller turns JIT off for a large
 * stack, with a time limit past which something is wrong (scan/scan.ts). A small stack needs
 * neither and goes as one statement, without the round trips of a transaction. Sent past Prisma's
 * client: a scan reads thousands of rows, and the client's result mapping cost more CPU than the
 * statement.
 */
export function readScanCandidates(read: DriverRead, query: ScanCandidatesQuery): Promise<CandidateRow[]> {
  const conditions: Prisma.Sql[] = [servedIssueSql];
  // The enum's declaration order is critical..info, so "at least medium" is severity <= 'medium'.
  if (query.severityMin) conditions.push(Prisma.sql`severity <= ${query.severityMin}::"Severity"`);
  if (query.since) conditions.push(Prisma.sql`"publishedAt" > ${query.since}`);
  return read<CandidateRow>(
    Prisma.sql`
      SELECT id::text AS id, title, severity::text AS severity, "cveId", "packageNames", "vendorKeys",
             ${query.needsRanges ? Prisma.sql`source->'affected'` : Prisma.sql`NULL::jsonb`} AS affected
      FROM "Issue"
      WHERE id = ANY(ARRAY(
          SELECT i.id FROM unnest(${query.packageKeys}::text[]) AS k(name) JOIN "Issue" i ON i."packageNames" @> ARRAY[k.name]
          UNION ALL
          SELECT i.id FROM unnest(${query.vendorKeys}::text[]) AS k(name) JOIN "Issue" i ON i."vendorKeys" @> ARRAY[k.name]))
        AND ${Prisma.join(conditions, ' AND ')}
      ORDER BY "Issue".severity, "Issue"."publishedAt" DESC, "Issue".id DESC`,
    query.settings,
  );
}

/**
 * A published batch's issues as a scan's matching reads them: the served ones, or with `withdrawn`
 * every published one (a withdrawn issue is judged on the record it was withdrawn with).
 */
export function readBatchCandidates(read: DriverRead, ids: string[], withdrawn: boolean): Promise<CandidateRow[]> {
  return read<CandidateRow>(Prisma.sql`
      SELECT id::text AS id, title, severity::text AS severity, "cveId", "packageNames", "vendorKeys", source->'affected' AS affected
        FROM "Issue" WHERE id = ANY(${ids}::uuid[]) AND ${withdrawn ? publishedIssueSql : servedIssueSql}`);
}

/** The ids of the issues, served or not, naming any of these packages (Issue.packageNames spellings). */
export async function issueIdsWithPackages(read: DriverRead, names: string[]): Promise<string[]> {
  const rows = await read<{ id: string }>(Prisma.sql`SELECT id::text AS id FROM "Issue" WHERE "packageNames" && ${names}::text[]`);
  return rows.map((r) => r.id);
}

/** Whether any issue is stored, served or not. */
export async function hasIssues(read: DriverRead): Promise<boolean> {
  const rows = await read(Prisma.sql`SELECT 1 FROM "Issue" LIMIT 1`);
  return rows.length > 0;
}

/** Of these CVEs, those a stored advisory (an issue built from an OSV record) names. */
export async function readCvesWithAdvisories(read: DriverRead, cves: string[]): Promise<Set<string>> {
  if (cves.length === 0) return new Set();
  const rows = await read<{ id: string }>(Prisma.sql`
    SELECT DISTINCT x.id FROM "Issue" AS i, unnest(i.identifiers) AS x(id)
    WHERE i.identifiers && ${cves}::text[] AND i.source->>'format' = 'osv' AND x.id = ANY(${cves}::text[])`);
  return new Set(rows.map((r) => r.id));
}

/** These issues, served or not, with what decides whether they are (the CLI's report after an ingest). */
export function readIssueStates(
  read: DriverRead,
  ids: string[],
): Promise<{ id: string; title: string; relevant: boolean; processed: boolean; withdrawn: boolean; classification: unknown }[]> {
  return read(Prisma.sql`
    SELECT id::text AS id, title, relevant, processed, withdrawn, classification FROM "Issue" WHERE id = ANY(${ids}::uuid[])`);
}
