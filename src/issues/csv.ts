// The CSV export of issues: a column per field of the GraphQL Issue type (the caller names them,
// from the schema: the spec's Issue table in its order, then modifiedAt and the OWASP ids), with
// Issue.classification spread over provenance columns. Values are written as the JSON API writes
// them (timestamps ISO 8601 UTC, cvssScore a decimal string), arrays joined with "; ", nulls empty. RFC 4180 quoting and CRLF line ends come from
// csv-stringify, and so does formula neutralising (OWASP "CSV injection"): a cell that starts with
// = + - @, a tab or a CR gets a leading single quote. Rows are read in keyset pages (publishedAt
// desc, id desc) and written one page at a time, so memory stays flat whatever the size.
import { stringify } from 'csv-stringify/sync';
import type { DriverRead } from '../db/driver-read.js';
import type { Prisma } from '../generated/prisma/client.js';
import type { Provenance } from '../ingest/classifier/relevance.js';
import { issuePages } from './reads.js';
import { formatCvssScore } from './served.js';

/** Columns read out of Issue.classification (GraphQL Issue.classification). */
const provenanceColumns = {
  classificationVersion: (p: Provenance) => p.version,
  classificationProbability: (p: Provenance) => p.probability,
  classificationModelScore: (p: Provenance) => p.modelScore,
  classificationReasons: (p: Provenance) => p.reasons.map((r) => `${r.kind}: ${r.detail} (${r.weight >= 0 ? '+' : ''}${r.weight})`),
};

/** Every column: the Issue fields given (Prisma columns of the same name), then the provenance ones. */
export const csvColumnsFor = (fields: readonly string[]): string[] => [...fields, ...Object.keys(provenanceColumns)];

export const ARRAY_SEPARATOR = '; ';

type CsvIssue = Record<string, unknown> & { classification: Prisma.JsonValue };

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.join(ARRAY_SEPARATOR);
  return String(value);
}

function toRecord(issue: CsvIssue, fields: readonly string[]): string[] {
  const provenance = issue.classification as Provenance | null;
  return [
    ...fields.map((field) => (field === 'cvssScore' ? (formatCvssScore(issue.cvssScore as Prisma.Decimal | null) ?? '') : cell(issue[field]))),
    ...Object.values(provenanceColumns).map((read) => (provenance ? cell(read(provenance)) : '')),
  ];
}

const csvOptions = { record_delimiter: 'windows', escape_formulas: true } as const;

export const csvHeaderFor = (fields: readonly string[]): string => stringify([csvColumnsFor(fields)], csvOptions);

const csvRows = (issues: CsvIssue[], fields: readonly string[]): string =>
  stringify(
    issues.map((issue) => toRecord(issue, fields)),
    csvOptions,
  );

/**
 * The export as a byte stream: the header row, then one chunk per keyset page of `where` (SQL over
 * "Issue"). A failed page errors the stream, and with it the build (src/http/export-builds.ts).
 */
export function issueCsvStream(read: DriverRead, where: Prisma.Sql, fields: readonly string[], pageSize = 1000): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const pages = issuePages<CsvIssue>(read, where, [...fields, 'classification'], pageSize);
  let headerSent = false;
  let done = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(csvHeaderFor(fields)));
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
        controller.enqueue(encoder.encode(csvRows(next.value, fields)));
      }
    },
    cancel() {
      done = true;
      void pages.return(undefined);
    },
  });
}
