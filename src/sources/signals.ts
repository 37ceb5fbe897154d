// The two exploitation-signal sources. Each file is read and checked whole before anything is
// written, so a malformed file changes nothing.
//   kev:  CISA's Known Exploited Vulnerabilities catalog (JSON): kevDateAdded, exploitMaturity active.
//   epss: FIRST's EPSS scores (CSV, plain or gzip): a first line
//         "#model_version:...,score_date:YYYY-MM-DDT00:00:00+0000", then cve,epss,percentile.
import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
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
 * A day's scores, held compactly (the ids, and the scores in one typed array): a real file has some
 * 300,000 rows, which as one object each (or as the CSV parser's arrays) were a hundred MB and more
 * of heap at the sync's peak. `slice` gives the rows of a range, as an array's slice would.
 */
export interface EpssScores {
  length: number;
  slice(start: number, end: number): EnrichmentRow[];
}

export async function readEpss(path: string): Promise<EpssScores> {
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
  const epssCheckedAt = scoreDate.toISOString();
  const cves: string[] = [];
  let scores = new Float64Array(1 << 16);
  // Row by row: each parsed row is garbage at once; the whole file is checked before anything is written.
  const rows = parse(text.slice(firstBreak + 1), { skip_empty_lines: true, trim: true });
  let line = 1;
  try {
    for await (const row of rows as AsyncIterable<string[]>) {
      line += 1;
      if (line === 2) {
        if (row.join(',') !== 'cve,epss,percentile') throw new SourceError('bad EPSS file: line 2 must be the header cve,epss,percentile');
        continue;
      }
      const [cve, epss] = row;
      const score = Number(epss);
      if (!cveId.safeParse(cve).success || epss === undefined || epss === '' || !(score >= 0 && score <= 1)) {
        throw new SourceError(`bad EPSS file: line ${line}: expected a CVE id and a score from 0 to 1`);
      }
      if (cves.length === scores.length) {
        const grown = new Float64Array(scores.length * 2);
        grown.set(scores);
        scores = grown;
      }
      scores[cves.length] = score;
      cves.push(cve!);
    }
  } catch (err) {
    if (err instanceof SourceError) throw err;
    throw new SourceError(`bad EPSS file: ${(err as Error).message.split('\n')[0]}`);
  }
  if (line < 2) throw new SourceError('bad EPSS file: line 2 must be the header cve,epss,percentile');
  return {
    length: cves.length,
    slice: (start, end) => cves.slice(start, end).map((cve, i) => ({ cveId: cve, epssScore: scores[start + i]!, epssCheckedAt })),
  };
}
