// Webhook and subscription filters: the list route's rules and messages for severity, issueType
// and vendor (src/issues/filters.ts), plus llmSpecific. Stored in one canonical JSON form (absent
// keys omitted, fixed key order) so equal filters are equal jsonb values and share a dispatch group.
import type { Prisma } from '../generated/prisma/client.js';
import { parseIssueFilters, type IssueFilters as ListFilters } from '../issues/filters.js';
import { boolean, isAbsent } from '../params.js';

export type IssueFilters = Pick<ListFilters, 'severity' | 'issueType' | 'vendor' | 'llmSpecific'>;

/** What GraphQL hands over: every key may be missing or null. */
export type IssueFiltersInput = { [K in keyof IssueFilters]?: IssueFilters[K] | null };

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
