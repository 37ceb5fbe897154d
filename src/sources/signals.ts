// The two exploitation-signal sources. Each file is read and checked whole before anything is
// written, so a malformed file changes nothing.
//   kev:  CISA's Known Exploited Vulnerabilities catalog (JSON): kevDateAdded, exploitMaturity active.
//   epss: FIRST's EPSS scores (CSV, plain or gzip): a first line
//         "#model_version:...,score_date:YYYY-MM-DDT00:00:00+0000", then cve,epss,percentile.
import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
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

export async function readEpss(path: string): Promise<EnrichmentRow[]> {
  let bytes = await readFile(path);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = gunzipSync(bytes);
    } catch {
      throw new SourceError('bad EPSS file: corrupt gzip data');
    }
  }
  const text = bytes.toString('utf8');
  const firstBreak = text.indexOf('\n');
  const first = text.slice(0, firstBreak < 0 ? undefined : firstBreak).replace(/\r$/, '');
  const date = epssHeader.exec(first)?.[1];
  // "+0000" is not ISO 8601 enough for Date everywhere: give it its colon.
  const scoreDate = date ? new Date(date.replace(/([+-]\d{2})(\d{2})$/, '$1:$2')) : undefined;
  if (!scoreDate || Number.isNaN(scoreDate.getTime())) {
    throw new SourceError('bad EPSS file: line 1 must be #model_version:...,score_date:YYYY-MM-DDT00:00:00+0000');
  }
  let records: string[][];
  try {
    records = parse(text.slice(firstBreak + 1), { skip_empty_lines: true, trim: true });
  } catch (err) {
    throw new SourceError(`bad EPSS file: ${(err as Error).message.split('\n')[0]}`);
  }
  const [header, ...rows] = records;
  if (header?.join(',') !== 'cve,epss,percentile') throw new SourceError('bad EPSS file: line 2 must be the header cve,epss,percentile');
  const epssCheckedAt = scoreDate.toISOString();
  return rows.map((row, i) => {
    const [cve, epss] = row;
    const score = Number(epss);
    if (!cveId.safeParse(cve).success || epss === undefined || epss === '' || !(score >= 0 && score <= 1)) {
      throw new SourceError(`bad EPSS file: line ${i + 3}: expected a CVE id and a score from 0 to 1`);
    }
    return { cveId: cve!, epssScore: score, epssCheckedAt };
  });
}
