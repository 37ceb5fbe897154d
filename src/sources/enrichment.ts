// Exploitation signals (CISA KEV, FIRST EPSS) by CVE. Sources write them to CveEnrichment
// (store.ts, storeEnrichment).
// - KEV is a judgement input: every ingest gives a record the KEV date stored for its CVE before
//   classifying it (withKev), and the classifier alone decides exploitMaturity and the
//   known-exploited severity floor from it. A KEV change therefore answers the issues of its CVEs
//   (storeEnrichment's `rejudge`) for the caller to classify again through reclassify({ ids }).
// - EPSS is a plain copy: applyEnrichment (store.ts) copies it onto the issues of that CVE, by
//   sources and by every ingest, so an issue created after the signal arrived has it too.
// Only rows that differ are written: a re-run over the same data changes nothing, and a new EPSS
// score is an update of the issue, never a new one.
import type { Item } from '../ingest/item.js';

export interface EnrichmentRow {
  cveId: string;
  kevDateAdded?: string;
  epssScore?: number;
  epssCheckedAt?: string;
}

/** The item with the KEV date stored for its CVE (the one it is filed under), unless it carries its own. */
export function withKev(item: Item, kev: ReadonlyMap<string, string>): Item {
  const date = item.cveIds[0] === undefined ? undefined : kev.get(item.cveIds[0]);
  return item.kevDateAdded !== undefined || date === undefined ? item : { ...item, kevDateAdded: date };
}

export interface StoredEnrichment {
  /** CVEs whose signals changed. */
  changed: number;
  /** Served issues whose EPSS fields were updated. */
  updatedIssues: number;
  /** Issues whose CVE's KEV date differs from theirs: to classify again (reclassify({ ids })). */
  rejudge: string[];
}
