// What the CLI's commands print about their work: counts in words a person reads ("1 issue"), and
// after an ingest, whether each issue is served and, when it is not, why.
import { prismaRead } from '../db/driver-read.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Provenance } from '../ingest/classifier/relevance.js';
import type { IngestResult } from '../ingest/ingest.js';
import { readIssueStates } from '../issues/reads.js';
import { isServed } from '../issues/served.js';

/** `1 issue`, `2 issues`. */
export const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** A rate over a handful of records says nothing (a single record is "0 records/s"): from this many on it is shown. */
const RATE_FROM_RECORDS = 100;

/** The ingest's summary line. */
export function ingestSummary(result: IngestResult, seconds: number, database: string): string {
  const rate = result.received >= RATE_FROM_RECORDS ? ` (${Math.round(result.received / seconds)} records/s)` : '';
  return (
    `received ${plural(result.received, 'record')}: created ${result.created}, updated ${result.updated}, unchanged ${result.unchanged}, ` +
    `rejected ${result.rejected.length} in ${seconds.toFixed(2)} s${rate} on ${database}`
  );
}

/** Issues listed one by one after an ingest; more are only counted. */
const LISTED_ISSUES = 10;

interface IssueState {
  id: string;
  title: string;
  relevant: boolean;
  processed: boolean;
  withdrawn: boolean;
  classification: unknown;
}

/** Why an issue is not served, in the terms of docs/curation.md. */
function whyNotServed(issue: IssueState): string {
  if (issue.withdrawn) return 'withdrawn by its source';
  if (!issue.processed) return 'not classified yet';
  const decision = issue.classification as Provenance | null;
  if (!decision) return 'judged not about the security of AI software';
  const strongest = decision.reasons[0];
  return (
    `judged not about the security of AI software (probability ${decision.probability.toFixed(2)}` +
    `${strongest ? `; strongest evidence: ${strongest.kind}: ${strongest.detail}` : ''})`
  );
}

/**
 * Lines saying which of the ingested issues the API serves: a count, then each issue with its
 * reason when there are few (a load of thousands is only counted).
 */
export async function servedReport(prisma: PrismaClient, ids: readonly string[]): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const issues: IssueState[] = await readIssueStates(prismaRead(prisma), unique);
  const served = issues.filter((i) => isServed(i));
  const lines = [`served: ${served.length} of ${plural(issues.length, 'issue')} (how items are judged: docs/curation.md)`];
  if (issues.length > LISTED_ISSUES) return lines;
  const byId = new Map(issues.map((i) => [i.id, i]));
  for (const issue of unique.map((id) => byId.get(id)).filter((i) => i !== undefined)) {
    lines.push(isServed(issue) ? `  served      ${issue.id}  ${issue.title}` : `  not served  ${issue.id}  ${issue.title}: ${whyNotServed(issue)}`);
  }
  return lines;
}
