// KEV entries that no advisory covers become issues of their own. A CVE in CISA's catalog is
// exploited now; when the feed has no advisory for it (a product outside the OSV ecosystems, or an
// advisory not yet synced), the entry itself is the record: a native vulnerability item built
// from its vendor, product, name, description, required action, CWEs, dates and links, classified
// like any record (so only AI software is served). It is filed under its CVE, so an advisory for
// that CVE arriving later takes the same issue over in place (an OSV advisory ranks above a native
// item), and a KEV entry whose CVE an advisory already covers only enriches that issue.
import { createHash } from 'node:crypto';
import { prismaRead } from '../db/driver-read.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { parseEntry } from '../ingest/parse.js';
import { readCvesWithAdvisories } from '../issues/reads.js';
import type { SourceRecordEntry } from './records.js';
import type { KevEntry } from './signals.js';

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const clean = (text: string | undefined) => text?.replace(/\s+/g, ' ').trim() || undefined;

/** The native item a KEV entry stands for. */
export function kevItem(entry: KevEntry): Record<string, unknown> {
  const vendor = clean(entry.vendorProject);
  const product = clean(entry.product);
  const name = clean(entry.vulnerabilityName) ?? [vendor, product, 'vulnerability'].filter(Boolean).join(' ');
  const description = clean(entry.shortDescription);
  const action = clean(entry.requiredAction);
  const references = [...new Set((entry.notes ?? '').match(/https?:\/\/[^\s;]+/g) ?? [])].filter((url) => URL.canParse(url)).slice(0, 50);
  return {
    title: clip(`${name} (${entry.cveID})`, 500),
    url: `https://nvd.nist.gov/vuln/detail/${entry.cveID}`,
    publishedAt: entry.dateAdded,
    type: 'vulnerability',
    cve: entry.cveID,
    summary: clip([description, `CISA added it to the Known Exploited Vulnerabilities catalog on ${entry.dateAdded}.`].filter(Boolean).join(' '), 5000),
    vendors: [...new Set([vendor, product].filter((v): v is string => !!v).map((v) => clip(v, 200)))],
    cweIds: [...new Set((entry.cwes ?? []).filter((id) => /^CWE-\d+$/.test(id)))].slice(0, 50),
    ...(action ? { solution: clip(action, 2000) } : {}),
    knownExploited: true,
    kevDateAdded: entry.dateAdded,
    references,
  };
}

/** The entries whose CVE no stored advisory (an issue built from an OSV record) covers, as source records. */
export async function uncoveredKevRecords(prisma: PrismaClient, entries: KevEntry[]): Promise<SourceRecordEntry[]> {
  const cves = [...new Set(entries.map((e) => e.cveID))];
  const covered = await readCvesWithAdvisories(prismaRead(prisma), cves);
  return entries
    .filter((e) => !covered.has(e.cveID))
    .map((entry) => {
      const item = kevItem(entry);
      return {
        key: entry.cveID,
        fingerprint: createHash('sha256').update(JSON.stringify(item)).digest('hex'),
        read: async () => parseEntry(item),
      };
    });
}
