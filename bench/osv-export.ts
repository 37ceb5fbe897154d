// A realistic OSV ecosystem export (all.zip) for the sync benches: records cloned under new ids
// from real advisories at their real sizes, `aiShare` of them from the sample's AI/ML advisories
// (data/advisories), the rest from the labelled general-software ones (data/relevance/negative),
// as in a real export where most records are not AI-related. Streamed entry by entry.
import { createWriteStream, readdirSync, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import { readSampleRecords } from '../src/server/seed.js';

const negativesDir = new URL('../data/relevance/negative/', import.meta.url);

export interface OsvExportOptions {
  records: number;
  aiShare: number;
  /** Added to every record number: exports built with different offsets share no id or CVE. */
  firstId?: number;
  /**
   * Of the records, this share are OpenSSF malicious-package reports (MAL-*) in their real shape:
   * a short summary, one package, every version from `introduced: 0`. One in 200 names AI
   * software, as the typosquats of AI packages do.
   */
  malShare?: number;
  /** The reports' package ecosystem (npm, PyPI, ...). */
  ecosystem?: string;
}

/** Record `i` is a malicious-package report when it falls in the first malShare of each thousand. */
const isReport = (i: number, malShare = 0) => i % 1000 < Math.round(malShare * 1000);

/** A MAL-* report as OpenSSF publishes it, its package made up (one in 200 named like AI software). */
function malReport(n: number, ecosystem: string): { name: string; body: Buffer } {
  const id = `MAL-2025-${n}`;
  const name = n % 200 === 7 ? `openai-sdk-helper-${n}` : `pkg-${(n * 2654435761) % 4294967296}`;
  const record = {
    modified: '2025-11-12T08:00:00Z',
    published: '2025-11-10T08:00:00Z',
    schema_version: '1.5.0',
    id,
    summary: `Malicious code in ${name} (${ecosystem})`,
    details:
      '\n---\n_-= Per source details. Do not edit below this line.=-_\n\n## Source: amazon-inspector (abc123)\nThe package runs a script at install time that sends environment variables to a remote host.\n',
    affected: [
      {
        package: { ecosystem, name },
        ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }] }],
        database_specific: { cwes: [{ cweId: 'CWE-506', name: 'Embedded Malicious Code' }] },
      },
    ],
    credits: [{ name: 'Amazon Inspector', type: 'FINDER' }],
    database_specific: { 'malicious-packages-origins': [{ source: 'amazon-inspector', sha256: 'e3b0c442', import_time: '2025-11-12T07:55:00Z' }] },
  };
  return { name: `${id}.json`, body: Buffer.from(JSON.stringify(record, null, 2)) };
}

/** A GHSA-shaped id from a number (in GHSA's own 20-letter alphabet): unique per record. */
function ghsaId(n: number): string {
  const alphabet = '23456789cfghjmpqrvwx';
  let s = '';
  for (let rest = n; s.length < 12; rest = Math.floor(rest / 20)) s = alphabet[rest % 20]! + s;
  return `GHSA-${s.slice(0, 4)}-${s.slice(4, 8)}-${s.slice(8, 12)}`;
}

/**
 * A real advisory made into a JSON template once, so each of the 250,000 records is one string
 * fill rather than a clone and a stringify. Placeholders: @@ID@@, @@CVE@@ and @@ROUND@@ (the
 * package-name suffix of the round through the templates). Each round renames the packages
 * (`langchain-7`), so a package has as few advisories as in a real export instead of one per round.
 */
function template(base: Record<string, any>): string {
  const r = structuredClone(base);
  r.id = '@@ID@@';
  r.aliases = ['@@CVE@@'];
  // PYSEC references would merge the clones back into one issue.
  r.references = (r.references ?? []).filter((ref: { url: string }) => !/PYSEC-/i.test(ref.url));
  r.affected = (r.affected ?? []).map((a: Record<string, any>) => {
    const { purl: _purl, ...pkg } = a.package as Record<string, string>;
    return { ...a, package: { ...pkg, name: `${pkg.name}@@ROUND@@` } };
  });
  return JSON.stringify(r, null, 2);
}

/** Record `i` of the export, filled in from its sample's template. */
function fill(templates: { ai: string[]; general: string[] }, i: number, { aiShare, firstId = 0 }: OsvExportOptions): Buffer {
  const step = Math.round(1 / aiShare);
  const ai = i % step === 0;
  const from = ai ? templates.ai : templates.general;
  // The record's place among those of its kind picks its template and round.
  const k = ai ? i / step : i - Math.floor(i / step) - 1;
  const round = Math.floor(k / from.length);
  const text = from[k % from.length]!.replace(/@@(ID|CVE|ROUND)@@/g, (_, name: string) => {
    if (name === 'ID') return ghsaId(firstId + i);
    if (name === 'CVE') return `CVE-2099-${String(100000 + firstId + i)}`;
    return round ? `-${round}` : '';
  });
  return Buffer.from(text);
}

export async function buildOsvZip(path: string, options: OsvExportOptions): Promise<void> {
  const samples = (await readSampleRecords()).filter((r) => String((r as { id?: string }).id).startsWith('GHSA-')) as Record<string, any>[];
  const negatives = readdirSync(negativesDir).map((f) => JSON.parse(readFileSync(new URL(f, negativesDir), 'utf8')) as Record<string, any>);
  const templates = { ai: samples.map(template), general: negatives.map(template) };
  const zip = new yazl.ZipFile();
  const written = pipeline(zip.outputStream, createWriteStream(path));
  // Lazy entries: each record is made when the zip reaches it, so memory holds one at a time
  // (addBuffer would hold every record until the end).
  for (let i = 0; i < options.records; i++) {
    if (isReport(i, options.malShare)) {
      const report = malReport((options.firstId ?? 0) + i, options.ecosystem ?? 'npm');
      zip.addReadStreamLazy(report.name, (done) => done(null, Readable.from([report.body])));
    } else zip.addReadStreamLazy(`${ghsaId((options.firstId ?? 0) + i)}.json`, (done) => done(null, Readable.from([fill(templates, i, options)])));
  }
  zip.end();
  await written;
}
