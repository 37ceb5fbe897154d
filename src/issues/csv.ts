// The CSV export of issues: every field of the spec's Issue table as a column, in the table's
// order, values written as the JSON API writes them (timestamps ISO 8601 UTC, cvssScore a decimal
// string), arrays joined with "; ", nulls empty. RFC 4180 quoting and CRLF line ends come from
// csv-stringify, and so does formula neutralising (OWASP "CSV injection"): a cell that starts with
// = + - @, a tab or a CR gets a leading single quote. Rows are read in keyset pages (publishedAt
// desc, id desc) and written one page at a time, so memory stays flat whatever the size.
import { stringify } from 'csv-stringify/sync';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import { issueOrder } from './filters.js';
import { formatCvssScore } from './served.js';

const columns = [
  'id', 'title', 'headline', 'summary', 'sourceUrl', 'publishedAt', 'severity', 'cvssSeverity', 'cvssScore', 'labels',
  'issueType', 'cveId', 'cweIds', 'affectedPackages', 'affectedPackageRefs', 'affectedVendors', 'affectedVendorsRaw',
  'classifierModel', 'classifierPromptVersion', 'solution', 'attackType', 'cvssVector', 'attackVector', 'attackComplexity',
  'privilegesRequired', 'userInteraction', 'exploitMaturity', 'epssScore', 'epssCheckedAt', 'kevDateAdded', 'advisoryAliases',
  'affectedPackagesSource', 'patchAvailable', 'disclosureDate', 'capecIds', 'crossRefCount', 'attackSophistication',
  'impactType', 'aiComponentTargeted', 'llmSpecific', 'classifierConfidence', 'researchCategory', 'atlasIds',
] as const satisfies readonly (keyof Prisma.IssueSelect)[];

export const csvColumns: readonly string[] = columns;

export const ARRAY_SEPARATOR = '; ';

const select = Object.fromEntries(columns.map((c) => [c, true])) as Record<(typeof columns)[number], true>;
type CsvIssue = Prisma.IssueGetPayload<{ select: typeof select }>;

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.join(ARRAY_SEPARATOR);
  return String(value);
}

function toRecord(issue: CsvIssue): string[] {
  return columns.map((column) => (column === 'cvssScore' ? (formatCvssScore(issue.cvssScore) ?? '') : cell(issue[column])));
}

const csvOptions = { record_delimiter: 'windows', escape_formulas: true } as const;

export const csvHeader = (): string => stringify([columns as unknown as string[]], csvOptions);

export const csvRows = (issues: CsvIssue[]): string => stringify(issues.map(toRecord), csvOptions);

export interface CsvExportOptions {
  /** Rows fetched per query. */
  pageSize?: number;
  /** Told about a failure after the response has started (the body is then cut short). */
  onError?: (err: unknown) => void;
}

/** The export as a byte stream: the header row, then one chunk per keyset page of `where`. */
export function issueCsvStream(prisma: PrismaClient, where: Prisma.IssueWhereInput, options: CsvExportOptions = {}): ReadableStream<Uint8Array> {
  const pageSize = options.pageSize ?? 1000;
  const encoder = new TextEncoder();
  let after: { publishedAt: Date; id: string } | undefined;
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
      try {
        const page = await prisma.issue.findMany({
          // The lte bound is implied by the OR, but it is what lets the index scan start at the
          // previous page's end; without it every page rescans all earlier rows (quadratic).
          where: after
            ? {
                AND: [
                  where,
                  { publishedAt: { lte: after.publishedAt } },
                  { OR: [{ publishedAt: { lt: after.publishedAt } }, { publishedAt: after.publishedAt, id: { lt: after.id } }] },
                ],
              }
            : where,
          orderBy: issueOrder,
          take: pageSize,
          select,
        });
        // Cancelled while the page was read: the stream takes nothing more.
        if (done) return;
        if (page.length > 0) {
          const last = page[page.length - 1]!;
          after = { publishedAt: last.publishedAt, id: last.id };
          controller.enqueue(encoder.encode(csvRows(page)));
        }
        if (page.length < pageSize) {
          done = true;
          controller.close();
        }
      } catch (err) {
        done = true;
        options.onError?.(err);
        controller.error(new Error('CSV export failed'));
      }
    },
    cancel() {
      done = true;
    },
  });
}
