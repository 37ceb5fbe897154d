// Webhook and subscription filters: validated, stored in one canonical JSON form (absent keys
// omitted) so equal filters are equal jsonb values, and turned into a Prisma where.
import type { IssueType, Prisma, Severity } from '../generated/prisma/client.js';
import { badRequest } from '../errors.js';

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

/** Canonical filters: keys in a fixed order, absent or null keys dropped, vendor trimmed. */
export function normaliseFilters(input: IssueFiltersInput | null | undefined): IssueFilters {
  const filters: IssueFilters = {};
  if (!input) return filters;
  if (input.severity != null) filters.severity = input.severity;
  if (input.issueType != null) filters.issueType = input.issueType;
  if (input.vendor != null) {
    const vendor = input.vendor.trim();
    if (!vendor || vendor.length > 200) throw badRequest('filters.vendor must be a non-empty string of at most 200 characters');
    filters.vendor = vendor;
  }
  if (input.llmSpecific != null) filters.llmSpecific = input.llmSpecific;
  return filters;
}

/** Reads filters back from a Webhook row's JSON column. */
export function storedFilters(value: Prisma.JsonValue): IssueFilters {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as IssueFilters) : {};
}

/** The Prisma where for issues matching the filters (same semantics as the list route). */
export function filtersWhere(filters: IssueFilters): Prisma.IssueWhereInput {
  return {
    ...(filters.severity ? { severity: filters.severity } : {}),
    ...(filters.issueType ? { issueType: filters.issueType } : {}),
    // vendorKeys holds the lower-cased normalised and raw vendor names.
    ...(filters.vendor ? { vendorKeys: { has: filters.vendor.toLowerCase() } } : {}),
    ...(filters.llmSpecific !== undefined ? { llmSpecific: filters.llmSpecific } : {}),
  };
}

/** A stable string for grouping webhooks with equal filters. */
export function filtersSignature(filters: IssueFilters): string {
  return JSON.stringify(normaliseFilters(filters));
}
