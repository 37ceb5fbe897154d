// Idempotent upsert of one batch, in one transaction: issues, their cross-reference counts and
// the IssueEvent row naming the batch's newly served issues commit together or not at all.
import { randomUUID } from 'node:crypto';
import { utcDay } from '../digest/generate.js';
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import { applyEnrichment } from '../sources/enrichment.js';
import { lockForChanges, recordChangeEvents } from './changes.js';
import type { SourceRecord } from './item.js';
import type { IssueRow } from './row.js';

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
  withdrawn: boolean;
  announcedAt: Date | string | null;
  source: SourceRecord;
}

const existingSelect = {
  id: true,
  naturalKey: true,
  identifiers: true,
  packageNames: true,
  contentHash: true,
  classifierModel: true,
  classifierPromptVersion: true,
  relevant: true,
  withdrawn: true,
  announcedAt: true,
  publishedAt: true,
  source: true,
} as const;

/** OSV advisories are the authority on a vulnerability; a native item about the same CVE is not. */
const rankOf = (source: SourceRecord) => (source.format === 'osv' ? 2 : 1);

/** Whether the incoming record should replace what the issue was built from. */
function supersedes(incoming: SourceRecord, current: SourceRecord): boolean {
  if (incoming.id === current.id && incoming.format === current.format) return true;
  if (rankOf(incoming) !== rankOf(current)) return rankOf(incoming) > rankOf(current);
  return (incoming.modified ?? '') > (current.modified ?? '');
}

const served = (row: { relevant: boolean; withdrawn?: boolean | null }) => row.relevant && !row.withdrawn;
const union = (a: string[], b: string[]) => [...new Set([...a, ...b])];

export async function storeBatch(prisma: PrismaClient, items: PreparedItem[]): Promise<StoredBatch> {
  return prisma.$transaction(
    async (tx) => {
      const modifiedAt = await lockForChanges(tx);
      const allIds = [...new Set(items.flatMap((i) => i.row.identifiers))];
      const known: Existing[] = allIds.length
        ? ((await tx.issue.findMany({ where: { identifiers: { hasSome: allIds } }, select: existingSelect })) as unknown as Existing[])
        : [];
      const creates = new Map<string, Prisma.IssueCreateManyInput>();
      const updates = new Map<string, Prisma.IssueUpdateInput>();
      const touchedKeys = { identifiers: new Set<string>(), packages: new Set<string>() };
      const outcomes: StoredBatch['outcomes'] = [];
      const newIssueIds = new Set<string>();
      const updatedIssueIds = new Set<string>();
      const withdrawnIssueIds = new Set<string>();
      const days = new Set<string>();
      const now = new Date();

      // Cross-references change only around issues that are created or changed: their keys
      // before and after.
      const touch = (keys: { identifiers: string[]; packageNames: string[] }) => {
        keys.identifiers.forEach((id) => touchedKeys.identifiers.add(id));
        keys.packageNames.forEach((p) => touchedKeys.packages.add(p));
      };
      for (const { row, source } of items) {
        const matches = known.filter((k) => k.identifiers.some((id) => row.identifiers.includes(id)));
        const match = matches.find((k) => k.naturalKey === row.naturalKey) ?? matches[0];

        if (!match) {
          const id = randomUUID();
          touch(row);
          // Every created row carries the key: the batch insert takes its columns from the first row.
          const announcedAt = served(row) ? now : null;
          creates.set(id, { ...row, id, modifiedAt, announcedAt });
          known.push({ ...row, id, source, withdrawn: row.withdrawn ?? false, announcedAt } as Existing);
          outcomes.push({ id, outcome: 'created' });
          days.add(utcDay(new Date(row.publishedAt)));
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
            identifiers.length === match.identifiers.length;
          if (!same) {
            // Keep the old key when another issue already holds the new one (aliases not yet merged).
            const keyTaken = known.some((k) => k !== match && k.naturalKey === row.naturalKey);
            change = { ...row, identifiers, naturalKey: keyTaken ? match.naturalKey : row.naturalKey, modifiedAt };
          }
        } else if (identifiers.length > match.identifiers.length) {
          change = { identifiers, modifiedAt };
        }

        if (!change) {
          outcomes.push({ id: match.id, outcome: 'unchanged' });
          continue;
        }
        const wasServed = served(match);
        touch(match);
        touch(row);
        days.add(utcDay(new Date(match.publishedAt)));
        Object.assign(match, change);
        days.add(utcDay(new Date(match.publishedAt)));
        if (change.source) match.source = source;
        // An issue is news once: one that leaves the feed and comes back is not announced again.
        if (!wasServed && served(match) && !match.announcedAt) {
          newIssueIds.add(match.id);
          change.announcedAt = match.announcedAt = now;
        } else if (served(match)) updatedIssueIds.add(match.id);
        else if (wasServed && match.withdrawn) withdrawnIssueIds.add(match.id);
        const pending = creates.get(match.id);
        if (pending) Object.assign(pending, change);
        else updates.set(match.id, { ...(updates.get(match.id) ?? {}), ...(change as Prisma.IssueUpdateInput) });
        outcomes.push({ id: match.id, outcome: 'updated' });
      }

      if (creates.size) await insertIssues(tx, [...creates.values()]);
      for (const [id, data] of updates) await tx.issue.update({ where: { id }, data });
      // A record written again comes without the KEV and EPSS signals: they come back from their store.
      const written = [...creates.values(), ...updates.values()].map((row) => row.cveId);
      await applyEnrichment(tx, [...new Set(written.filter((id): id is string => typeof id === 'string'))], modifiedAt);
      await refreshCrossRefs(tx, [...touchedKeys.identifiers], [...touchedKeys.packages]);

      let eventId: string | null = null;
      if (newIssueIds.size) {
        const event = await tx.issueEvent.create({ data: { issueIds: [...newIssueIds] }, select: { id: true } });
        eventId = event.id;
      }
      // Served issues whose content changed, and served issues withdrawn: each kind its own event row.
      await recordChangeEvents(tx, { issues_updated: [...updatedIssueIds], issues_withdrawn: [...withdrawnIssueIds] });
      return { outcomes, newIssueIds: [...newIssueIds], days: [...days], eventId };
    },
    { maxWait: 30_000, timeout: 300_000 },
  );
}

/**
 * Inserts new issues in one statement with one parameter (a JSON array the database turns into
 * rows): about ten times faster than createMany's thousands of bound parameters. Columns not in
 * the rows keep their database defaults.
 */
async function insertIssues(tx: Prisma.TransactionClient, rows: Prisma.IssueCreateManyInput[]): Promise<void> {
  const updatedAt = new Date();
  const data = rows.map((row) => ({ ...row, updatedAt }));
  const columns = Prisma.join(Object.keys(data[0]!).map((c) => Prisma.raw(`"${c.replace(/"/g, '')}"`)));
  await tx.$executeRaw`
    INSERT INTO "Issue" (${columns})
    SELECT ${columns} FROM jsonb_populate_recordset(NULL::"Issue", ${JSON.stringify(data)}::jsonb)`;
}

/**
 * Recounts crossRefCount for every issue sharing an identifier or a package with the batch,
 * before or after it changed: the number of other served issues it shares a CVE, alias or
 * package with. Pairs come from a hash join on (kind, key) rows rather than array overlap tests
 * between every two issues, so the cost follows the number of related pairs.
 */
async function refreshCrossRefs(tx: Prisma.TransactionClient, identifiers: string[], packages: string[]): Promise<void> {
  if (identifiers.length === 0 && packages.length === 0) return;
  await tx.$executeRaw`
    WITH targets AS (
      SELECT id, identifiers, "packageNames" FROM "Issue"
      WHERE identifiers && ${identifiers}::text[] OR "packageNames" && ${packages}::text[]
    ),
    target_keys AS (
      SELECT id, 'i:' || k AS key FROM targets, unnest(identifiers) AS k
      UNION SELECT id, 'p:' || k FROM targets, unnest("packageNames") AS k
    ),
    related_keys AS (
      SELECT o.id, 'i:' || k AS key FROM "Issue" o, unnest(o.identifiers) AS k
      WHERE o.relevant AND NOT o.withdrawn
        AND o.identifiers && (SELECT coalesce(array_agg(x), '{}') FROM targets, unnest(identifiers) AS x)
      UNION SELECT o.id, 'p:' || k FROM "Issue" o, unnest(o."packageNames") AS k
      WHERE o.relevant AND NOT o.withdrawn
        AND o."packageNames" && (SELECT coalesce(array_agg(x), '{}') FROM targets, unnest("packageNames") AS x)
    ),
    counted AS (
      SELECT t.id, count(DISTINCT r.id) FILTER (WHERE r.id <> t.id)::int AS n
      FROM targets t
      LEFT JOIN target_keys tk ON tk.id = t.id
      LEFT JOIN related_keys r ON r.key = tk.key
      GROUP BY t.id
    )
    UPDATE "Issue" AS i SET "crossRefCount" = counted.n
    FROM counted
    WHERE i.id = counted.id AND i."crossRefCount" <> counted.n`;
}
