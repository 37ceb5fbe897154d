// The issue list filters: parsed and validated once, then turned into one SQL condition. GraphQL
// arguments arrive typed, REST and CSV query strings arrive as text; both go through here, so the
// rules and the messages are the same on every surface.
import { z } from 'zod';
import { DATE_RANGE_TEXT, inDateRange, isCalendarDate } from '../dates.js';
import { badRequest } from '../errors.js';
import { Prisma } from '../generated/prisma/client.js';
import { IssueType, type Severity } from '../generated/prisma/enums.js';
import { boolean, integer, isAbsent, number, oneOf, queryParam, single, text } from '../params.js';
import { nameKeys } from '../scan/ecosystems.js';
import { servedIssueSql } from './served.js';
import { severities } from './severities.js';

export const issueTypes = Object.values(IssueType);

export const SEARCH_MAX_LENGTH = 200;
const NAME_MAX_LENGTH = 200;
const MAX_LABELS = 20;
const ALIAS_MAX_LENGTH = 100;

/**
 * Identifiers are stored as their sources spell them: GHSA ids with a lower-case body
 * (GHSA-2jxw-4hm4-6w87), everything else (CVE, PYSEC, AML.CS0000) upper-case.
 */
export function normaliseAlias(alias: string): string {
  return /^ghsa-/i.test(alias) ? `GHSA-${alias.slice(5).toLowerCase()}` : alias.toUpperCase();
}

/** Validated filters; every key is optional. */
export interface IssueFilters {
  search?: string;
  labels?: string[];
  severity?: Severity;
  issueType?: IssueType;
  vendor?: string;
  package?: string;
  since?: Date;
  confidenceMin?: number;
  alias?: string;
  modifiedSince?: Date;
  knownExploited?: boolean;
  /** Not a list parameter: only webhook and subscription filters (webhooks/filters.ts) set it. */
  llmSpecific?: boolean;
}

export interface Page {
  limit: number;
  offset: number;
}

/** Raw input keyed by the spec's parameter names; values are text, typed values or arrays of text. */
export type RawIssueFilters = Partial<Record<keyof typeof filterDescriptions, unknown>>;

/** The spec's parameter names with the descriptions GraphQL and OpenAPI show. */
export const filterDescriptions = {
  search: `Case-insensitive search of the title, headline, summary, CVE id and advisory aliases (at most ${SEARCH_MAX_LENGTH} characters). Words match in any order and form (injection finds injections); "quoted words" match as a phrase, or accepts either side, a leading - excludes a word. A single identifier (a term with a digit or one of - _ . / @ : %, e.g. CVE-2025-1111, llama_index) matches as a substring.`,
  label: 'Only issues carrying this label (e.g. security, privacy, research, safety); repeat it to accept any of several.',
  severity: `Only issues of this severity: ${severities.join(', ')}.`,
  issueType: `Only issues of this type: ${issueTypes.join(', ')}.`,
  vendor: 'Only issues affecting this vendor, product or component (case-insensitive, normalised or as written in the item).',
  package:
    'Only issues affecting this package name (case-insensitive, e.g. langchain; PyPI spellings compare after PEP 503 normalisation, so llama_index finds llama-index).',
  since:
    'Only issues published strictly after this moment: a date (2025-01-31, meaning its start, UTC) or an ISO 8601 date-time (2025-01-31T12:00:00Z; no offset means UTC).',
  confidenceMin: 'Only issues whose classifierConfidence is at least this value, from 0 to 1.',
  alias: 'Only the issue known by this identifier: a CVE, GHSA, PYSEC or other advisory id, or an ATLAS case study id (AML.CS0000); case-insensitive.',
  knownExploited:
    'true: only issues known to be exploited (exploitMaturity active: listed in CISA KEV, or stated to be exploited in the wild); false: only the others. Not a spec parameter: absent, the list is as the spec says.',
  modifiedSince:
    'Only issues whose content changed strictly after this moment (a date or date-time, as for since), in the order they changed (oldest change first, then id), so a mirror can page through the changes and poll again from the last one it saw (GraphQL: modifiedAt, and issueChanges for withdrawals).',
} as const;

/** The filters of a query string (REST's CSV export and Atom feed): repeated names form a list, as they do for the list route. */
export const queryFilters = (query: URLSearchParams): RawIssueFilters =>
  Object.fromEntries(Object.keys(filterDescriptions).map((name) => [name, queryParam(query, name)]));

export const pageDescriptions = {
  limit: (defaultLimit: number, maxLimit: number) =>
    `Page size: an integer of at least 1; default ${defaultLimit}; larger values are treated as ${maxLimit} (meta.limit says so).`,
  offset: 'Number of issues to skip: an integer of at least 0; default 0.',
};

const isoDateTime = z.iso.datetime({ offset: true, local: true });

/** A date (YYYY-MM-DD, its start in UTC) or an ISO 8601 date-time (UTC when it has no offset). */
export function parseSince(name: string, value: unknown): Date {
  const message = `${name} must be a date (YYYY-MM-DD) or an ISO 8601 date-time (e.g. 2025-01-31T12:00:00Z)`;
  if (typeof value !== 'string') throw badRequest(message);
  if (isCalendarDate(value)) return inRange(name, new Date(`${value}T00:00:00.000Z`), message);
  // zod checks the shape; the calendar (no 31 February) is checked on the date part.
  if (!isoDateTime.safeParse(value).success || !isCalendarDate(value.slice(0, 10))) throw badRequest(message);
  const hasOffset = /(Z|[+-]\d{2}:?\d{2})$/i.test(value);
  return inRange(name, new Date(hasOffset ? value : `${value}Z`), message);
}

function inRange(name: string, date: Date, message: string): Date {
  if (Number.isNaN(date.getTime())) throw badRequest(message);
  if (!inDateRange(date)) throw badRequest(`${name} must be ${DATE_RANGE_TEXT}`);
  return date;
}

/** Text filters are trimmed; blank means not given. */
function trimmed(name: string, value: unknown, maxLength: number): string | undefined {
  if (isAbsent(value)) return undefined;
  const result = text(name, single(name, value), maxLength).trim();
  return result === '' ? undefined : result;
}

/** Parses and validates the filters; throws a 400 (BAD_REQUEST) error naming the parameter. */
export function parseIssueFilters(raw: RawIssueFilters): IssueFilters {
  const filters: IssueFilters = {};

  filters.search = trimmed('search', raw.search, SEARCH_MAX_LENGTH);
  filters.vendor = trimmed('vendor', raw.vendor, NAME_MAX_LENGTH);
  filters.package = trimmed('package', raw.package, NAME_MAX_LENGTH);

  if (!isAbsent(raw.label)) {
    const labels = (Array.isArray(raw.label) ? raw.label : [raw.label]).filter((l) => !isAbsent(l));
    if (labels.length > MAX_LABELS) throw badRequest(`label must be given at most ${MAX_LABELS} times`);
    filters.labels = [...new Set(labels.map((l) => text('label', l, NAME_MAX_LENGTH).trim().toLowerCase()).filter(Boolean))];
  }

  if (!isAbsent(raw.severity)) filters.severity = oneOf('severity', severities, single('severity', raw.severity));
  if (!isAbsent(raw.issueType)) filters.issueType = oneOf('issueType', issueTypes, single('issueType', raw.issueType));
  if (!isAbsent(raw.since)) filters.since = parseSince('since', single('since', raw.since));
  if (!isAbsent(raw.modifiedSince)) filters.modifiedSince = parseSince('modifiedSince', single('modifiedSince', raw.modifiedSince));

  if (!isAbsent(raw.knownExploited)) filters.knownExploited = boolean('knownExploited', single('knownExploited', raw.knownExploited));

  const alias = trimmed('alias', raw.alias, ALIAS_MAX_LENGTH);
  if (alias) filters.alias = normaliseAlias(alias);

  if (!isAbsent(raw.confidenceMin)) {
    const min = number('confidenceMin', single('confidenceMin', raw.confidenceMin));
    if (min < 0 || min > 1) throw badRequest('confidenceMin must be between 0 and 1');
    filters.confidenceMin = min;
  }
  return filters;
}

/** limit/offset: limit defaults to `defaultLimit` and is clamped to `maxLimit`; below 1 or not an integer is a 400. */
export function parsePage(raw: { limit?: unknown; offset?: unknown }, { defaultLimit = 20, maxLimit = 100 } = {}): Page {
  let limit = defaultLimit;
  if (!isAbsent(raw.limit)) {
    limit = integer('limit', single('limit', raw.limit));
    if (limit < 1) throw badRequest('limit must be at least 1');
    limit = Math.min(limit, maxLimit);
  }
  let offset = 0;
  if (!isAbsent(raw.offset)) {
    offset = integer('offset', single('offset', raw.offset));
    if (offset < 0) throw badRequest('offset must be at least 0');
  }
  return { limit, offset };
}

/**
 * A term that names something rather than says something: it has a digit or one of - _ . / @ : %
 * (CVE-2025-1111, GHSA-..., llama_index, @scope/pkg, 100%). Full-text parsing would split it into
 * pieces (cve, -2025, -1111), so it is matched as a substring of searchText instead, through the
 * trigram index.
 */
const identifierLike = /^[^\s"]*[\d\-_./@:%][^\s"]*$/;

/** LIKE's wildcards (and its escape character, the backslash) in a term match themselves. */
function likeLiteral(value: string): string {
  return value.replace(/[\\%_]/g, '\\$&');
}

/**
 * The SQL condition over "Issue" (unaliased) for validated filters, always restricted to served
 * issues; every value is a bound parameter. The list, its count (and the stats' total), the alias
 * lookup, STIX, the CSV export, the feeds and Subscription.newIssues (with the webhook filters)
 * all read through it.
 */
export function issueFilterSql(filters: IssueFilters): Prisma.Sql {
  const where: Prisma.Sql[] = [servedIssueSql];
  // searchText, vendorKeys and packageNames are stored lower-cased (and indexed) for exactly this.
  // Words: full-text search (stemmed, any order, "quoted phrases", or, -excluded) on the generated
  // searchVector's GIN index, with the configuration the column is generated with (migration
  // full_text_search), and any text a user types is a valid websearch query; a single identifier:
  // a substring of searchText, through its trigram index.
  if (filters.search) {
    where.push(
      identifierLike.test(filters.search)
        ? Prisma.sql`"searchText" LIKE ('%' || ${likeLiteral(filters.search.toLowerCase())} || '%')`
        : Prisma.sql`"searchVector" @@ websearch_to_tsquery('english', ${filters.search})`,
    );
  }
  if (filters.labels?.length) where.push(Prisma.sql`"labels" && ${filters.labels}::text[]`);
  if (filters.severity) where.push(Prisma.sql`"severity" = ${filters.severity}::"Severity"`);
  if (filters.issueType) where.push(Prisma.sql`"issueType" = ${filters.issueType}::"IssueType"`);
  if (filters.vendor) where.push(Prisma.sql`"vendorKeys" @> ARRAY[${filters.vendor.toLowerCase()}]::text[]`);
  // As the scan matches names: PyPI's spellings (llama_index, Llama.Index) find llama-index.
  if (filters.package) where.push(Prisma.sql`"packageNames" && ${nameKeys(filters.package)}::text[]`);
  if (filters.since) where.push(Prisma.sql`"publishedAt" > ${filters.since}`);
  if (filters.alias) where.push(Prisma.sql`"identifiers" @> ARRAY[${filters.alias}]::text[]`);
  if (filters.modifiedSince) where.push(Prisma.sql`"modifiedAt" > ${filters.modifiedSince}`);
  if (filters.confidenceMin !== undefined) where.push(Prisma.sql`"classifierConfidence" >= ${filters.confidenceMin}`);
  if (filters.knownExploited !== undefined) where.push(filters.knownExploited ? knownExploitedSql : Prisma.sql`NOT ${knownExploitedSql}`);
  if (filters.llmSpecific !== undefined) where.push(Prisma.raw(filters.llmSpecific ? '"llmSpecific"' : 'NOT "llmSpecific"'));
  return Prisma.join(where, ' AND ');
}

/**
 * Known exploited, as the classifier decides it (ingest/classifier/exploitation.ts, isKnownExploited):
 * exploitation is under way. The one SQL spelling of it.
 */
export const knownExploitedSql = Prisma.sql`coalesce("exploitMaturity" = 'active', false)`;

/** The guaranteed order: newest first, ties broken by id, so pages never overlap or skip. */
export const issueOrderSql = Prisma.sql`"publishedAt" DESC, "id" DESC`;

/**
 * The order of changes, oldest first: a change made while a mirror pages gets a later modifiedAt
 * than any it has seen, so it lands after the pages already read instead of shifting them.
 */
export const changeOrderSql = Prisma.sql`"modifiedAt" ASC, "id" ASC`;

export const issueOrderSqlFor = (filters: IssueFilters) => (filters.modifiedSince ? changeOrderSql : issueOrderSql);
