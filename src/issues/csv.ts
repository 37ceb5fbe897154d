// The CSV export of issues: every field of the spec's Issue table as a column, in the table's
// order, then the GraphQL-only classification fields (OWASP ids, provenance), values written as the JSON API writes them (timestamps ISO 8601 UTC, cvssScore a decimal
// string), arrays joined with "; ", nulls empty. RFC 4180 quoting and CRLF line ends come from
// csv-stringify, and so does formula neutralising (OWASP "CSV injection"): a cell that starts with
// = + - @, a tab or a CR gets a leading single quote. Rows are read in keyset pages (publishedAt
// desc, id desc) and written one page at a time, so memory stays flat whatever the size.
import { stringify } from 'csv-stringify/sync';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import type { Provenance } from '../ingest/classifier/relevance.js';
import { issuePages } from './keyset.js';
import { formatCvssScore } from './served.js';

const columns = [
  'id', 'title', 'headline', 'summary', 'sourceUrl', 'publishedAt', 'severity', 'cvssSeverity', 'cvssScore', 'labels',
  'issueType', 'cveId', 'cweIds', 'affectedPackages', 'affectedPackageRefs', 'affectedVendors', 'affectedVendorsRaw',
  'classifierModel', 'classifierPromptVersion', 'solution', 'attackType', 'cvssVector', 'attackVector', 'attackComplexity',
  'privilegesRequired', 'userInteraction', 'exploitMaturity', 'epssScore', 'epssCheckedAt', 'kevDateAdded', 'advisoryAliases',
  'affectedPackagesSource', 'patchAvailable', 'disclosureDate', 'capecIds', 'crossRefCount', 'attackSophistication',
  'impactType', 'aiComponentTargeted', 'llmSpecific', 'classifierConfidence', 'researchCategory', 'atlasIds',
  // After the spec's fields: when the issue's served content last changed, and its OWASP ids.
  'modifiedAt', 'owaspIds',
] as const satisfies readonly (keyof Prisma.IssueSelect)[];

/** Columns read out of Issue.classification (GraphQL Issue.classification). */
const provenanceColumns = {
  classificationVersion: (p: Provenance) => p.version,
  classificationProbability: (p: Provenance) => p.probability,
  classificationModelScore: (p: Provenance) => p.modelScore,
  classificationReasons: (p: Provenance) => p.reasons.map((r) => `${r.kind}: ${r.detail} (${r.weight >= 0 ? '+' : ''}${r.weight})`),
};

export const csvColumns: readonly string[] = [...columns, ...Object.keys(provenanceColumns)];

export const ARRAY_SEPARATOR = '; ';

const select = { ...(Object.fromEntries(columns.map((c) => [c, true])) as Record<(typeof columns)[number], true>), classification: true } as const;
type CsvIssue = Prisma.IssueGetPayload<{ select: typeof select }>;

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.join(ARRAY_SEPARATOR);
  return String(value);
}

function toRecord(issue: CsvIssue): string[] {
  const provenance = issue.classification as Provenance | null;
  return [
    ...columns.map((column) => (column === 'cvssScore' ? (formatCvssScore(issue.cvssScore) ?? '') : cell(issue[column]))),
    ...Object.values(provenanceColumns).map((read) => (provenance ? cell(read(provenance)) : '')),
  ];
}

const csvOptions = { record_delimiter: 'windows', escape_formulas: true } as const;

export const csvHeader = (): string => stringify([csvColumns as string[]], csvOptions);

export const csvRows = (issues: CsvIssue[]): string => stringify(issues.map(toRecord), csvOptions);

/**
 * The export as a byte stream: the header row, then one chunk per keyset page of `where`. A failed
 * page errors the stream (see src/http/streamed-body.ts for what the response then does).
 */
export function issueCsvStream(prisma: PrismaClient, where: Prisma.IssueWhereInput, pageSize = 1000): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const pages = issuePages(prisma, where, select, pageSize);
  let headerSent = false;
  let done = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(csvHeader()));
        return;
      }
      if (done) return;
      const next = await pages.next();
      // Cancelled while the page was read: the stream takes nothing more.
      if (done) return;
      if (next.done) {
        done = true;
        controller.close();
      } else {
        controller.enqueue(encoder.encode(csvRows(next.value)));
      }
    },
    cancel() {
      done = true;
      void pages.return(undefined);
    },
  });
}
