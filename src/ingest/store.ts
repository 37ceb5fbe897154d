// Idempotent upsert of one batch, in one transaction: issues, their cross-reference counts and
// the IssueEvent row naming the batch's newly served issues commit together or not at all. The
// transaction runs on a plain driver client (db/bulk.ts): its statements carry megabytes of JSON.
import { randomUUID } from 'node:crypto';
import type { BulkClient, BulkTransaction } from '../db/bulk.js';
import { bumpDataVersion } from '../db/data-version.js';
import { utcDay } from '../dates.js';
import { Prisma } from '../generated/prisma/client.js';
import { isServed, servedColumnsSql, servedIssueSql } from '../issues/served.js';
import { applyEnrichment } from '../sources/store.js';
import { lockForChanges, recordChangeEvents, recordEvent } from './changes.js';
import type { SourceRecord } from './item.js';
import { sourceTextOf, withMember, type IssueRow } from './row.js';

export interface PreparedItem {
  row: IssueRow;
  source: SourceRecord;
}

export type ItemOutcome = 'created' | 'updated' | 'unchanged';

export interface StoredBatch {
  outcomes: { id: string; outcome: ItemOutcome }[];
  /** Issues this batch made servable for the first time ever (created, or newly relevant and never announced). */
  newIssueIds: string[];
  /** UTC days (YYYY-MM-DD) whose digest the batch may have changed: of created and changed issues, before and after. */
  days: string[];
  eventId: string | null;
}

/** What the store compares an incoming record with: the issue's keys and where it came from, not its whole record. */
interface Existing {
  id: string;
  naturalKey: string;
  identifiers: string[];
  publishedAt: Date | string;
  packageNames: string[];
  contentHash: string;
  classifierModel: string;
  classifierPromptVersion: string;
  relevant: boolean;
  processed: boolean;
  severity: string;
  exploitMaturity: string | null;
  kevDateAdded: string | null;
  withdrawn: boolean;
  announcedAt: Date | string | null;
  source: Pick<SourceRecord, 'format' | 'id' | 'modified'>;
}

/**
 * The issues sharing an identifier with the batch: one index probe per identifier. Not
 * `identifiers && <the batch's 2,000 ids>`: for so long an array PostgreSQL estimates that most
 * rows match and scans the whole table (a second per chunk at 20,000 rows, growing with it).
 * OFFSET 0 keeps the probe per identifier (see updateCrossRefs). Only the keys of `source` are read: the record itself (most of a row's size) is never needed
 * to decide what changed.
 */
async function existingIssues(tx: BulkClient, ids: string[]): Promise<Existing[]> {
  if (ids.length === 0) return [];
  const rows = await tx.query<Omit<Existing, 'source'> & { format: SourceRecord['format']; sourceId: string; modified: string | null }>(Prisma.sql`
    SELECT DISTINCT ON (i.id) i.id::text AS id, i."naturalKey", i.identifiers, i."packageNames", i."contentHash", i."classifierModel",
      i."classifierPromptVersion", i.relevant, i.processed, i.severity::text AS severity, i."exploitMaturity", i."kevDateAdded", i.withdrawn, i."announcedAt", i."publishedAt",
      i.source->>'format' AS format, i.source->>'id' AS "sourceId", i.source->>'modified' AS modified
    FROM unnest(${ids}::text[]) AS k(id) CROSS JOIN LATERAL (SELECT * FROM "Issue" WHERE identifiers @> ARRAY[k.id] OFFSET 0) AS i`);
  return rows.map(({ format, sourceId, modified, ...row }) => ({ ...row, source: { format, id: sourceId, modified } }));
}

/** Articles are keyed by their URL; records by an id (CVE, GHSA, OSV id). */
const isArticleKey = (naturalKey: string) => /^https?:\/\//i.test(naturalKey);

/** Existing issues by each of their identifiers and by natural key, kept current as the batch adds issues. */
class KnownIssues {
  private readonly byIdentifier = new Map<string, Existing[]>();
  private readonly byNaturalKey = new Map<string, Existing>();

  constructor(issues: Existing[]) {
    issues.forEach((issue) => this.add(issue));
  }

  add(issue: Existing): void {
    this.addIdentifiers(issue, issue.identifiers);
    this.byNaturalKey.set(issue.naturalKey, issue);
  }

  addIdentifiers(issue: Existing, identifiers: string[]): void {
    for (const id of identifiers) {
      const list = this.byIdentifier.get(id);
      if (!list) this.byIdentifier.set(id, [issue]);
      else if (!list.includes(issue)) list.push(issue);
    }
  }

  /**
   * The issue a row is: the one with its natural key among those sharing an identifier, else the
   * first of those. An article (keyed by its URL, see row.ts) is only ever itself: it shares the
   * CVE of the advisory it is about, and neither takes the other over.
   */
  match(row: { naturalKey: string; identifiers: string[] }): Existing | undefined {
    const matches = new Set<Existing>();
    for (const id of row.identifiers) this.byIdentifier.get(id)?.forEach((k) => matches.add(k));
    const same = [...matches].find((k) => k.naturalKey === row.naturalKey);
    if (same || isArticleKey(row.naturalKey)) return same;
    return [...matches].find((k) => !isArticleKey(k.naturalKey));
  }

  /** Whether an issue other than `issue` holds this natural key. */
  keyHeldByOther(naturalKey: string, issue: Existing): boolean {
    const holder = this.byNaturalKey.get(naturalKey);
    return holder !== undefined && holder !== issue && holder.naturalKey === naturalKey;
  }

  rekey(issue: Existing, previousKey: string): void {
    if (this.byNaturalKey.get(previousKey) === issue) this.byNaturalKey.delete(previousKey);
    this.byNaturalKey.set(issue.naturalKey, issue);
  }
}

/** OSV advisories are the authority on a vulnerability; a native item about the same CVE is not. */
const rankOf = (source: Pick<SourceRecord, 'format'>) => (source.format === 'osv' ? 2 : 1);

/** Whether the incoming record should replace what the issue was built from. */
function supersedes(incoming: SourceRecord, current: Existing['source']): boolean {
  if (incoming.id === current.id && incoming.format === current.format) return true;
  if (rankOf(incoming) !== rankOf(current)) return rankOf(incoming) > rankOf(current);
  return (incoming.modified ?? '') > (current.modified ?? '');
}

const union = (a: string[], b: string[]) => [...new Set([...a, ...b])];

export async function storeBatch(bulkTransaction: BulkTransaction, items: PreparedItem[]): Promise<StoredBatch> {
  return bulkTransaction(async (tx) => {
    const modifiedAt = await lockForChanges(tx);
    const known = new KnownIssues(await existingIssues(tx, [...new Set(items.flatMap((i) => i.row.identifiers))]));
    const creates = new Map<string, Prisma.IssueCreateManyInput>();
    const updates = new Map<string, Partial<IssueRow>>();
    // Each issue the batch creates or changes, with its keys as stored before if it was served:
    // cross-reference counts follow from which issues are served and their keys alone.
    const changed = new Map<string, { before: CrossRefKeys | null; issue: Existing }>();
    const outcomes: StoredBatch['outcomes'] = [];
    const newIssueIds = new Set<string>();
    const updatedIssueIds = new Set<string>();
    const withdrawnIssueIds = new Set<string>();
    const days = new Set<string>();
    const now = new Date();

    // Digests are about served issues only: a day's changes when an issue on it is served before
    // or after it is created or changed. Storing an issue nobody is served (most of an ecosystem
    // export) touches no digest and no count.
    const touchDay = (issue: { publishedAt: Date | string }) => days.add(utcDay(new Date(issue.publishedAt)));
    for (const { row, source } of items) {
      const match = known.match(row);

      if (!match) {
        const id = randomUUID();
        if (isServed(row)) touchDay(row);
        // Every created row carries the key: the batch insert takes its columns from the first row.
        const announcedAt = isServed(row) ? now : null;
        creates.set(id, { ...row, id, modifiedAt, announcedAt });
        const issue = { ...row, id, source, withdrawn: row.withdrawn ?? false, announcedAt } as Existing;
        known.add(issue);
        changed.set(id, { before: null, issue });
        outcomes.push({ id, outcome: 'created' });
        if (announcedAt) newIssueIds.add(id);
        continue;
      }

      const identifiers = union(match.identifiers, row.identifiers);
      let change: Partial<IssueRow> | null = null;
      if (supersedes(source, match.source)) {
        const same =
          row.contentHash === match.contentHash &&
          row.classifierModel === match.classifierModel &&
          row.classifierPromptVersion === match.classifierPromptVersion &&
          // The same classifier decides otherwise when what a registry said of a package changed.
          row.relevant === match.relevant &&
          // ... or when KEV learned of its CVE (see sources/enrichment.ts).
          row.kevDateAdded === match.kevDateAdded &&
          row.severity === match.severity &&
          row.exploitMaturity === match.exploitMaturity &&
          identifiers.length === match.identifiers.length;
        if (!same) {
          // Keep the old key when another issue already holds the new one (aliases not yet merged).
          const keyTaken = known.keyHeldByOther(row.naturalKey, match);
          // The same record judged again is our change; a new record is the upstream's.
          const changedHereAt = row.contentHash === match.contentHash ? modifiedAt : null;
          change = { ...row, identifiers, naturalKey: keyTaken ? match.naturalKey : row.naturalKey, modifiedAt, changedHereAt };
        }
      } else if (identifiers.length > match.identifiers.length) {
        change = { identifiers, modifiedAt };
      }

      if (!change) {
        outcomes.push({ id: match.id, outcome: 'unchanged' });
        continue;
      }
      const wasServed = isServed(match);
      if (wasServed) touchDay(match);
      if (!changed.has(match.id)) changed.set(match.id, { before: wasServed ? crossRefKeys(match) : null, issue: match });
      const previousKey = match.naturalKey;
      Object.assign(match, change);
      known.addIdentifiers(match, identifiers);
      known.rekey(match, previousKey);
      if (isServed(match)) touchDay(match);
      if (change.source) match.source = source;
      // An issue is news once: one that leaves the feed and comes back is not announced again.
      if (!wasServed && isServed(match) && !match.announcedAt) {
        newIssueIds.add(match.id);
        change.announcedAt = match.announcedAt = now;
      } else if (isServed(match)) updatedIssueIds.add(match.id);
      else if (wasServed && match.withdrawn) withdrawnIssueIds.add(match.id);
      const pending = creates.get(match.id);
      if (pending) Object.assign(pending, change);
      else updates.set(match.id, { ...(updates.get(match.id) ?? {}), ...change });
      outcomes.push({ id: match.id, outcome: 'updated' });
    }

    if (creates.size) await insertIssues(tx, [...creates.values()]);
    if (updates.size) await updateIssues(tx, updates);
    if (creates.size || updates.size) await bumpDataVersion(tx);
    // A record written again comes without the KEV and EPSS signals: they come back from their store.
    const written = [...creates.values(), ...updates.values()].map((row) => row.cveId);
    await applyEnrichment(tx, [...new Set(written.filter((id): id is string => typeof id === 'string'))], modifiedAt);
    await updateCrossRefs(
      tx,
      [...changed.values()].map(({ before, issue }) => ({ id: issue.id, before, after: isServed(issue) ? crossRefKeys(issue) : null })),
    );

    const eventId = newIssueIds.size ? await recordEvent(tx, 'new_issues', [...newIssueIds]) : null;
    // Served issues whose content changed, and served issues withdrawn: each kind its own event row.
    await recordChangeEvents(tx, { issues_updated: [...updatedIssueIds], issues_withdrawn: [...withdrawnIssueIds] });
    return { outcomes, newIssueIds: [...newIssueIds], days: [...days], eventId };
  });
}

/** Column list of rows given as JSON (every row of a statement carries the same keys). */
const columnsOf = (row: object) =>
  Object.keys(row)
    .map((c) => `"${c.replace(/"/g, '')}"`)
    .join(', ');

/**
 * Rows per write statement. A whole chunk's rows as one JSON parameter were about 5 MB: a string
 * in V8's large-object space and then the driver's message buffer, for each chunk in flight, which
 * made much of a sync's peak RSS. Slices of this many rows keep each under a megabyte for a few
 * more round trips per chunk.
 */
const rowsPerStatement = 250;

/** Rows as one JSON array; a row's source is the text it was built with (sourceTextOf), not serialised again. */
export function rowsJson(rows: object[]): string {
  const texts: string[] = [];
  for (const row of rows as { source?: unknown }[]) {
    const source = row.source;
    const text = source && typeof source === 'object' ? sourceTextOf(source) : undefined;
    if (text === undefined) {
      texts.push(JSON.stringify(row));
      continue;
    }
    // Left out for the moment of the call (JSON.stringify omits undefined), so the row is not copied.
    row.source = undefined;
    try {
      texts.push(withMember(JSON.stringify(row), 'source', text));
    } finally {
      row.source = source;
    }
  }
  return `[${texts.join(',')}]`;
}

function* slices<T>(rows: T[]): Generator<T[]> {
  for (let start = 0; start < rows.length; start += rowsPerStatement) yield rows.slice(start, start + rowsPerStatement);
}

/**
 * Inserts new issues with one parameter per statement (a JSON array the database turns into
 * rows): about ten times faster than createMany's thousands of bound parameters. Columns not in
 * the rows keep their database defaults. (`jsonb_populate_recordset`, not the `json` one: for rows
 * with nested objects and arrays the `json` one re-parses each value and took 1.7 times as long.)
 */
async function insertIssues(tx: BulkClient, rows: Prisma.IssueCreateManyInput[]): Promise<void> {
  const columns = columnsOf(rows[0]!);
  // updatedAt as a parameter of its own, rather than a copy of every row that adds it.
  const updatedAt = new Date().toISOString();
  for (const slice of slices(rows)) {
    await tx.execute({
      text: `INSERT INTO "Issue" (${columns}, "updatedAt") SELECT ${columns}, $2::timestamptz(3) FROM jsonb_populate_recordset(NULL::"Issue", $1::jsonb)`,
      values: [rowsJson(slice), updatedAt],
    });
  }
}

/**
 * Writes changed issues with one statement per set of changed columns (a whole new row, or only
 * merged identifiers) and slice of rows, each from one JSON parameter as insertIssues does,
 * instead of a statement per issue.
 */
async function updateIssues(tx: BulkClient, updates: Map<string, Partial<IssueRow>>): Promise<void> {
  const updatedAt = new Date();
  const byColumns = new Map<string, Record<string, unknown>[]>();
  for (const [id, change] of updates) {
    const row = { ...change, updatedAt, id };
    const key = Object.keys(row).join(',');
    byColumns.set(key, [...(byColumns.get(key) ?? []), row]);
  }
  for (const rows of byColumns.values()) {
    const columns = Object.keys(rows[0]!)
      .filter((c) => c !== 'id')
      .map((c) => c.replace(/"/g, ''));
    const assignments = columns.map((c) => `"${c}" = x."${c}"`).join(', ');
    for (const slice of slices(rows)) {
      await tx.execute({
        text: `UPDATE "Issue" AS i SET ${assignments} FROM jsonb_populate_recordset(NULL::"Issue", $1::jsonb) AS x WHERE i.id = x.id`,
        values: [rowsJson(slice)],
      });
    }
  }
}

/** What a served issue's cross-reference count is about: the keys it shares with others. */
interface CrossRefKeys {
  identifiers: string[];
  packageNames: string[];
}

const crossRefKeys = (issue: CrossRefKeys): CrossRefKeys => ({ identifiers: [...issue.identifiers], packageNames: [...issue.packageNames] });

function sameKeys(a: CrossRefKeys | null, b: CrossRefKeys | null): boolean {
  if (!a || !b) return a === b;
  const same = (x: string[], y: string[]) => {
    const xs = new Set(x);
    const ys = new Set(y);
    return xs.size === ys.size && [...ys].every((v) => xs.has(v));
  };
  return same(a.identifiers, b.identifiers) && same(a.packageNames, b.packageNames);
}

/**
 * Keeps crossRefCount (the number of other served issues sharing a CVE, alias or package) right
 * after a batch, from each changed issue's keys before (null: not served then) and after (null:
 * not served now). An issue served now with other keys than before is counted afresh; every other
 * served issue's count moves by the changed issues it now shares a key with, less those it shared
 * one with before. Counting afresh every neighbour instead cost a join over all of theirs: a
 * reclassify of 10,000 issues of the sample's packages recounted about 8,000 issues per batch of
 * 500 and took 119.8 s on PostgreSQL, 45.3 s this way (bench/components.md, "Reclassify"). An unserved
 * issue's count is never read; it is counted when it becomes served.
 */
async function updateCrossRefs(tx: BulkClient, issues: { id: string; before: CrossRefKeys | null; after: CrossRefKeys | null }[]): Promise<void> {
  const moved = issues.filter((i) => !sameKeys(i.before, i.after));
  const sides = moved.flatMap(({ id, before, after }) => [...(before ? [{ id, sign: -1, ...before }] : []), ...(after ? [{ id, sign: 1, ...after }] : [])]);
  if (sides.length === 0) return;
  const counted = moved.filter((i) => i.after).map((i) => i.id);
  // One statement, so each key is probed once: the served holders of the changed issues' keys
  // give both the neighbours' deltas and the fresh counts of the issues served now. Each key is
  // its own index probe (see existingIssues for why not one `&&` with every key). OFFSET 0 keeps
  // each probe a subquery run per key: flattened into a join, the planner may instead scan every
  // served row and test it against every key. The served test stays outside the probe: inside it,
  // it matches the served partial indexes' predicate, and the planner ANDs each GIN probe with a
  // bitmap of one of those whole indexes (0.3 ms per probe at 2,500 served rows, growing with them).
  await tx.execute(Prisma.sql`
    WITH sides AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(sides)}::jsonb) AS x(id uuid, sign int, identifiers text[], "packageNames" text[])
    ),
    holders AS (
      SELECT 'i' AS kind, k.v, o.id FROM (SELECT DISTINCT unnest(identifiers) AS v FROM sides) AS k
        CROSS JOIN LATERAL (SELECT id, ${servedColumnsSql} FROM "Issue" WHERE identifiers @> ARRAY[k.v] OFFSET 0) AS o WHERE ${servedIssueSql}
      UNION ALL
      SELECT 'p', k.v, o.id FROM (SELECT DISTINCT unnest("packageNames") AS v FROM sides) AS k
        CROSS JOIN LATERAL (SELECT id, ${servedColumnsSql} FROM "Issue" WHERE "packageNames" @> ARRAY[k.v] OFFSET 0) AS o WHERE ${servedIssueSql}
    ),
    side_keys AS (
      SELECT id, sign, 'i' AS kind, unnest(identifiers) AS v FROM sides
      UNION ALL SELECT id, sign, 'p', unnest("packageNames") FROM sides
    ),
    pairs AS (
      SELECT DISTINCT h.id AS neighbour, s.id, s.sign FROM side_keys s JOIN holders h ON h.kind = s.kind AND h.v = s.v
      WHERE h.id <> ALL(${counted}::uuid[])
    ),
    counts AS (
      SELECT neighbour AS id, NULL::int AS fresh, sum(sign)::int AS delta FROM pairs GROUP BY neighbour
      UNION ALL
      SELECT s.id, count(DISTINCT h.id) FILTER (WHERE h.id <> s.id)::int, NULL
      FROM side_keys s LEFT JOIN holders h ON h.kind = s.kind AND h.v = s.v
      WHERE s.sign = 1 GROUP BY s.id
    )
    UPDATE "Issue" AS i SET "crossRefCount" = coalesce(c.fresh, i."crossRefCount" + c.delta)
    FROM counts AS c
    WHERE i.id = c.id AND i."crossRefCount" <> coalesce(c.fresh, i."crossRefCount" + c.delta)`);
}
