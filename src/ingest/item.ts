// The shape every input format is normalised to before classification, and the `source` column
// that keeps the raw record (documented in docs/ingestion.md, "The stored source record").
import type { IssueType, Severity } from '../generated/prisma/enums.js';
import type { IssueLabel } from '../sources/definition.js';

/** An OSV `affected[]` entry, kept intact: scan checks versions against its ranges. */
export interface OsvAffected {
  package: { ecosystem: string; name: string; purl?: string };
  ranges?: { type: string; repo?: string; events: Record<string, string>[] }[];
  versions?: string[];
  [key: string]: unknown;
}

/** Stored as Issue.source: what the issue was built from. */
export interface SourceRecord {
  format: 'osv' | 'native';
  /** GHSA/OSV id, or the native item's canonical URL. */
  id: string;
  /** When the source last changed it (OSV `modified`), if known. */
  modified: string | null;
  /** OSV `affected[]` (native `packages` converted to the same shape). */
  affected: OsvAffected[];
  /** The validated input record as received. */
  record: unknown;
}

export type { IssueType, Severity };

/**
 * What a source's definition says of all its entries (an arXiv listing is research): defaults the
 * classifier weighs below the item's own fields (src/sources/definition.ts).
 */
export interface SourceHints {
  issueType?: IssueType;
  labels?: IssueLabel[];
}

/** A record after parsing, in one shape whatever its format. */
export interface Item {
  format: 'osv' | 'native';
  /** GHSA/OSV id or canonical URL. */
  sourceId: string;
  title: string;
  /** Long text as given (OSV details are Markdown). */
  details: string;
  /** A summary the source wrote, used as is when present. */
  summary?: string;
  headline?: string;
  url: string;
  publishedAt: Date;
  modifiedAt: Date | null;
  disclosedAt: Date | null;
  withdrawn: boolean;
  typeHint?: IssueType;
  /** Defaults from the source that listed the item (a feed's definition), if it gave any. */
  sourceHints?: SourceHints;
  /** Severity the source itself assigned (GitHub's review, a native hint). */
  statedSeverity?: Severity;
  cveIds: string[];
  /**
   * A page about an event rather than its record (news naming a CVE, say): its own issue, keyed
   * by its URL, counted as a cross-reference by the issues of the ids it names (native.ts).
   */
  article?: boolean;
  /** Every other identifier the source gives (GHSA, PYSEC, ATLAS case study, ...). */
  otherIds: string[];
  cweIds: string[];
  cvssVectors: string[];
  affected: OsvAffected[];
  references: string[];
  vendorHints: string[];
  atlasHints: string[];
  solutionHint?: string;
  knownExploited: boolean;
  kevDateAdded?: string;
  researchCategory?: string;
  source: SourceRecord;
}

/**
 * One spelling per URL, so the same item found twice is the same issue: lower-case scheme and
 * host, no fragment, no tracking parameters, no trailing slash, sorted query.
 */
export function canonicalUrl(raw: string): string {
  const url = new URL(raw);
  url.hash = '';
  for (const key of [...url.searchParams.keys()]) {
    if (/^(utm_|fbclid$|gclid$|mc_|ref$|ref_src$)/i.test(key)) url.searchParams.delete(key);
  }
  url.searchParams.sort();
  if (url.pathname.length > 1 && url.pathname.endsWith('/')) url.pathname = url.pathname.replace(/\/+$/, '');
  return url.toString();
}
