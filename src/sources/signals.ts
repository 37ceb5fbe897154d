// The two exploitation-signal sources. Each file is read and checked whole before anything is
// written, so a malformed file changes nothing.
//   kev:  CISA's Known Exploited Vulnerabilities catalog (JSON): kevDateAdded, exploitMaturity active.
//   epss: FIRST's EPSS scores (CSV, plain or gzip): a first line
//         "#model_version:...,score_date:YYYY-MM-DDT00:00:00+0000", then cve,epss,percentile.
import { createReadStream } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { PassThrough, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { parse } from 'csv-parse';
import { z } from 'zod';
import type { EnrichmentRow } from './enrichment.js';
import { SourceError } from './fetch.js';

const cveId = z.string().regex(/^CVE-\d{4}-\d{4,}$/);

const kevEntry = z.looseObject({
  cveID: cveId,
  dateAdded: z.iso.date(),
  vendorProject: z.string().optional(),
  product: z.string().optional(),
  vulnerabilityName: z.string().optional(),
  shortDescription: z.string().optional(),
  requiredAction: z.string().optional(),
  notes: z.string().optional(),
  cwes: z.array(z.string()).optional(),
});
export type KevEntry = z.infer<typeof kevEntry>;

const kevCatalog = z.object({ vulnerabilities: z.array(kevEntry) });

/** The catalog's entries, and the signal each gives its CVE. */
export async function readKev(path: string): Promise<{ rows: EnrichmentRow[]; entries: KevEntry[] }> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch {
    throw new SourceError('not a KEV catalog: the file is not valid JSON');
  }
  const result = kevCatalog.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new SourceError(`not a KEV catalog: ${issue.path.join('.') || 'file'}: ${issue.message}`);
  }
  const entries = result.data.vulnerabilities;
  return { rows: entries.map((v) => ({ cveId: v.cveID, kevDateAdded: v.dateAdded })), entries };
}

const epssHeader = /^#model_version:[^,]*,score_date:(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:Z|[+-]\d{2}:?\d{2}))\s*$/;

/**
 * A day's scores, read from the file in chunks as they are stored: a real file has some 300,000
 * rows, and holding them all (as one object each, the CSV parser's arrays, or even one id string
 * each) was the heap's peak of a first sync. The file is read twice: once whole to check it (so a
 * malformed file changes nothing), then chunk by chunk.
 */
export interface EpssScores {
  length: number;
  chunks(size: number): AsyncIterable<EnrichmentRow[]>;
}

/** The file's records, decompressed and parsed as they are read (FIRST serves it gzipped), each with its line number. */
async function* fileRecords(path: string, gzipped: boolean): AsyncIterable<{ fields: string[]; line: number }> {
  // The model line has two fields, the rest three.
  const records = parse({ skip_empty_lines: true, trim: true, relax_column_count: true, info: true });
  pipeline(createReadStream(path), gzipped ? createGunzip() : new PassThrough(), records, () => {});
  try {
    for await (const { record, info } of records as AsyncIterable<{ record: string[]; info: { lines: number } }>) yield { fields: record, line: info.lines };
  } catch (err) {
    if (err instanceof SourceError) throw err;
    if ((err as { code?: string }).code?.startsWith('Z_')) throw new SourceError('bad EPSS file: corrupt gzip data');
    throw new SourceError(`bad EPSS file: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** Each score row of the file, checked; the header lines are checked and skipped. */
async function* scoreRows(path: string, gzipped: boolean, onScoreDate?: (date: Date) => void): AsyncIterable<{ cve: string; score: number }> {
  let records = 0;
  for await (const { fields, line } of fileRecords(path, gzipped)) {
    records += 1;
    if (records === 1) {
      const date = line === 1 ? epssHeader.exec(fields.join(','))?.[1] : undefined;
      // "+0000" is not ISO 8601 enough for Date everywhere: give it its colon.
      const scoreDate = date ? new Date(date.replace(/([+-]\d{2})(\d{2})$/, '$1:$2')) : undefined;
      if (!scoreDate || Number.isNaN(scoreDate.getTime())) {
        throw new SourceError('bad EPSS file: line 1 must be #model_version:...,score_date:YYYY-MM-DDT00:00:00+0000');
      }
      onScoreDate?.(scoreDate);
      continue;
    }
    if (records === 2) {
      if (fields.join(',') !== 'cve,epss,percentile') throw new SourceError(`bad EPSS file: line ${line} must be the header cve,epss,percentile`);
      continue;
    }
    const [cve, epss] = fields;
    const score = Number(epss);
    if (!cveId.safeParse(cve).success || epss === undefined || epss === '' || !(score >= 0 && score <= 1)) {
      throw new SourceError(`bad EPSS file: line ${line}: expected a CVE id and a score from 0 to 1`);
    }
    yield { cve: cve!, score };
  }
  if (records === 0) throw new SourceError('bad EPSS file: line 1 must be #model_version:...,score_date:YYYY-MM-DDT00:00:00+0000');
  if (records === 1) throw new SourceError('bad EPSS file: line 2 must be the header cve,epss,percentile');
}

export async function readEpss(path: string): Promise<EpssScores> {
  const head = Buffer.alloc(2);
  const handle = await open(path);
  try {
    await handle.read(head, 0, 2, 0);
  } finally {
    await handle.close();
  }
  const gzipped = head[0] === 0x1f && head[1] === 0x8b;
  let epssCheckedAt = '';
  let length = 0;
  for await (const _ of scoreRows(path, gzipped, (date) => (epssCheckedAt = date.toISOString()))) length += 1;
  return {
    length,
    async *chunks(size) {
      let chunk: EnrichmentRow[] = [];
      for await (const { cve, score } of scoreRows(path, gzipped)) {
        chunk.push({ cveId: cve, epssScore: score, epssCheckedAt });
        if (chunk.length === size) {
          yield chunk;
          chunk = [];
        }
      }
      if (chunk.length) yield chunk;
    },
  };
}
