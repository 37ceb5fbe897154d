// Webhook and subscription filters: the list route's rules and messages for severity, issueType
// and vendor (src/issues/filters.ts), plus llmSpecific. Stored in one canonical JSON form (absent
// keys omitted, fixed key order) so equal filters are equal jsonb values and share a dispatch group.
import type { IssueType, Prisma, Severity } from '../generated/prisma/client.js';
import { parseIssueFilters } from '../issues/filters.js';
import { servedIssue } from '../issues/served.js';
import { boolean, isAbsent } from '../params.js';

export interface IssueFilters {
  severity?: Severity;
  issueType?: IssueType;
  vendor?: string;
  llmSpecific?: boolean;
}

/** What GraphQL hands over: every key may be missing or null. */
export interface IssueFiltersInput {
  severity?: Severity | null;
  issueType?: IssueType | null;
  vendor?: string | null;
  llmSpecific?: boolean | null;
}

/** Validates and canonicalises; throws a 400 naming the bad key. */
export function normaliseFilters(input: IssueFiltersInput | null | undefined): IssueFilters {
  if (!input) return {};
  const parsed = parseIssueFilters({ severity: input.severity, issueType: input.issueType, vendor: input.vendor });
  const filters: IssueFilters = {};
  if (parsed.severity) filters.severity = parsed.severity;
  if (parsed.issueType) filters.issueType = parsed.issueType;
  if (parsed.vendor) filters.vendor = parsed.vendor;
  if (!isAbsent(input.llmSpecific)) filters.llmSpecific = boolean('llmSpecific', input.llmSpecific);
  return filters;
}

/** Reads filters back from a Webhook row's JSON column. */
export function storedFilters(value: Prisma.JsonValue): IssueFilters {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as IssueFilters) : {};
}

/**
 * Served issues matching the filters, with the list route's semantics for the shared keys, as a
 * Prisma `where`: Subscription.newIssues reads through Prisma's client (one query per distinct
 * filter and batch, test/subscription-limits.test.ts counts them). issueFilterSql writes the same
 * keys in SQL for the list: change the two together.
 */
export function filtersWhere(filters: IssueFilters): Prisma.IssueWhereInput {
  const where: Prisma.IssueWhereInput = { ...servedIssue };
  if (filters.severity) where.severity = filters.severity;
  if (filters.issueType) where.issueType = filters.issueType;
  if (filters.vendor) where.vendorKeys = { has: filters.vendor.toLowerCase() };
  if (filters.llmSpecific !== undefined) where.llmSpecific = filters.llmSpecific;
  return where;
}
