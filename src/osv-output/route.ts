// Bulk OSV, laid out as OSV publishes its own exports: /api/v1/osv/all.zip holds every served
// issue as <id>.json, /api/v1/osv/<ecosystem>/all.zip those affecting one ecosystem, and
// /api/v1/osv/ecosystems.txt names the ecosystems, one a line. Plain routes (a zip is no GraphQL
// value, src/server/plain-routes.ts); each is built page by page into a file once per data
// version (http/export-builds.ts), so memory stays flat and a repeated download costs a file read.
import { Zip, ZipDeflate } from 'fflate';
import type { Services } from '../context.js';
import type { DriverRead } from '../db/driver-read.js';
import type { ExportBuilds } from '../http/export-builds.js';
import { pattern, type PlainCall } from '../http/route-matcher.js';
import { issuePages } from '../issues/reads.js';
import { servedIssueSql } from '../issues/served.js';
import { errorResponse } from '../http/envelope.js';
import { restBasePath } from '../rest/routes.js';
import { osvIssueSelect, osvRecordOf, type OsvRecord } from './record.js';

export const OSV_EXPORT_PATH = `${restBasePath}/osv`;
const PAGE_SIZE = 500;

const ecosystemOf = (affected: OsvRecord['affected'][number]) => affected.package.ecosystem.split(':')[0]!;

async function* osvRecords(read: DriverRead): AsyncGenerator<OsvRecord> {
  for await (const page of issuePages<Parameters<typeof osvRecordOf>[0]>(read, servedIssueSql, Object.keys(osvIssueSelect), PAGE_SIZE))
    yield* page.map(osvRecordOf);
}

/** A zip of `<id>.json` per record that `keep` accepts, produced as the reader pulls. A failed read errors the stream, and with it the build (src/http/export-builds.ts). */
function osvZipStream(records: AsyncGenerator<OsvRecord>, keep: (record: OsvRecord) => boolean): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let chunks: Uint8Array[] = [];
  let finished = false;
  const zip = new Zip((err, chunk, final) => {
    if (err) throw err;
    chunks.push(chunk);
    finished ||= final;
  });
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // Read records until the zip has bytes to hand over (a record may compress to nothing yet).
      while (chunks.length === 0 && !finished) {
        const next = await records.next();
        if (next.done) {
          zip.end();
          break;
        }
        if (!keep(next.value)) continue;
        // The entry's date is the record's own (fflate's default is the time of the build): the
        // same data is then the same bytes on every instance and at every rebuild, as its ETag says.
        const file = new ZipDeflate(`${next.value.id}.json`, { level: 6 });
        file.mtime = next.value.modified;
        zip.add(file);
        file.push(encoder.encode(JSON.stringify(next.value, null, 2)), true);
      }
      for (const chunk of chunks) controller.enqueue(chunk);
      chunks = [];
      if (finished) controller.close();
    },
    cancel() {
      zip.terminate();
      void records.return(undefined);
    },
  });
}

function ecosystemsText(read: DriverRead): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const names = new Set<string>();
      try {
        for await (const record of osvRecords(read)) record.affected.forEach((a) => names.add(ecosystemOf(a)));
      } catch (err) {
        return controller.error(err);
      }
      controller.enqueue(
        new TextEncoder().encode(
          [...names]
            .sort()
            .map((name) => `${name}\n`)
            .join(''),
        ),
      );
      controller.close();
    },
  });
}

/**
 * The export paths: all.zip, ecosystems.txt, <ecosystem>/all.zip; groups: ecosystems.txt, the
 * ecosystem. Any other path under it is the REST surface's 404.
 */
export const OSV_EXPORT_PATTERN = pattern(`${OSV_EXPORT_PATH}/`, new RegExp(`^${OSV_EXPORT_PATH}/(?:(ecosystems\\.txt)|all\\.zip|([^/]+)/all\\.zip)$`));

export function osvExport({ db }: Pick<Services, 'db'>, exports: ExportBuilds) {
  return async ({ request, url, serverContext, match: [, list, ecosystem] }: PlainCall): Promise<Response> => {
    if (list) {
      const headers = { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' };
      return exports.serve(request, serverContext, url.pathname, () => ecosystemsText(db.read), headers);
    }
    let name: string | undefined;
    try {
      name = ecosystem && decodeURIComponent(ecosystem);
    } catch {
      return errorResponse(404, `No route ${request.method} ${url.pathname} (see ${restBasePath}/docs)`);
    }
    const keep = name ? (record: OsvRecord) => record.affected.some((a) => ecosystemOf(a) === name) : () => true;
    const headers = { 'Content-Type': 'application/zip', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };
    return exports.serve(request, serverContext, url.pathname, () => osvZipStream(osvRecords(db.read), keep), headers);
  };
}
