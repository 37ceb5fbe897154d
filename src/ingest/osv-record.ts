// OSV records (https://ossf.github.io/osv-schema/), as GitHub publishes its advisories. Only what
// classification needs is checked strictly; everything else is kept as given.
import { z } from 'zod';
import { DATE_RANGE_TEXT, inDateRange } from '../dates.js';
import type { Item, OsvAffected, Severity } from './item.js';

const timestamp = z.iso
  .datetime({ offset: true, message: 'must be an RFC 3339 timestamp' })
  .refine((value) => inDateRange(new Date(value)), `must be ${DATE_RANGE_TEXT}`);

const event = z
  .object({ introduced: z.string(), fixed: z.string(), last_affected: z.string(), limit: z.string() })
  .partial()
  .refine((e) => Object.keys(e).length === 1, 'each range event has exactly one of introduced, fixed, last_affected, limit');

const affected = z.looseObject({
  package: z.looseObject({ ecosystem: z.string().min(1), name: z.string().min(1), purl: z.string().optional() }),
  ranges: z.array(z.looseObject({ type: z.string(), repo: z.string().optional(), events: z.array(event).min(1) })).optional(),
  versions: z.array(z.string()).optional(),
});

export const osvRecord = z.looseObject({
  schema_version: z.string().optional(),
  id: z.string().regex(/^[A-Za-z][A-Za-z0-9.:_-]*-[A-Za-z0-9.:_-]+$/, 'must be an OSV id such as GHSA-xxxx-xxxx-xxxx'),
  modified: timestamp,
  published: timestamp.optional(),
  withdrawn: timestamp.optional(),
  aliases: z.array(z.string()).optional(),
  related: z.array(z.string()).optional(),
  summary: z.string().max(1000).optional(),
  details: z.string().max(200_000).optional(),
  severity: z.array(z.looseObject({ type: z.string(), score: z.string() })).optional(),
  affected: z.array(affected).optional(),
  references: z.array(z.looseObject({ type: z.string(), url: z.string() })).optional(),
  database_specific: z
    .looseObject({
      cwe_ids: z.array(z.string()).optional(),
      severity: z.string().optional(),
    })
    .optional(),
});

export type OsvRecord = z.infer<typeof osvRecord>;

/** True when a value looks like an OSV record rather than a native item. */
export function looksLikeOsv(value: Record<string, unknown>): boolean {
  return 'schema_version' in value || ('id' in value && 'modified' in value && !('title' in value));
}

const githubSeverity: Record<string, Severity> = { CRITICAL: 'critical', HIGH: 'high', MODERATE: 'medium', MEDIUM: 'medium', LOW: 'low' };

/** Advisory ids that the references name (PyPA's PYSEC files, for instance) are aliases too. */
function idsInReferences(urls: string[]): string[] {
  const ids = new Set<string>();
  for (const url of urls) {
    const pysec = /\/(PYSEC-\d{4}-\d+)\.yaml$/i.exec(url);
    if (pysec?.[1]) ids.add(pysec[1].toUpperCase());
  }
  return [...ids];
}

function sourceUrlOf(record: OsvRecord): string {
  if (record.id.startsWith('GHSA-')) return `https://github.com/advisories/${record.id}`;
  return `https://osv.dev/vulnerability/${encodeURIComponent(record.id)}`;
}

export function osvToItem(record: OsvRecord): Item {
  const ids = [record.id, ...(record.aliases ?? [])];
  const references = (record.references ?? []).map((r) => r.url);
  const cveIds = [...new Set(ids.filter((id) => /^CVE-\d{4}-\d{4,}$/.test(id)))];
  const otherIds = [...new Set([...ids.filter((id) => !cveIds.includes(id)), ...idsInReferences(references)])];
  const modifiedAt = new Date(record.modified);
  const stated = record.database_specific?.severity?.toUpperCase();
  return {
    format: 'osv',
    sourceId: record.id,
    title: record.summary?.trim() || record.id,
    details: record.details ?? '',
    url: sourceUrlOf(record),
    publishedAt: new Date(record.published ?? record.modified),
    modifiedAt,
    disclosedAt: record.published ? new Date(record.published) : null,
    withdrawn: record.withdrawn !== undefined,
    typeHint: 'vulnerability',
    statedSeverity: stated ? githubSeverity[stated] : undefined,
    cveIds,
    otherIds,
    cweIds: [...new Set((record.database_specific?.cwe_ids ?? []).filter((id) => /^CWE-\d+$/.test(id)))],
    cvssVectors: (record.severity ?? []).filter((s) => /^CVSS_V[234]$/.test(s.type)).map((s) => s.score),
    affected: (record.affected ?? []) as OsvAffected[],
    references,
    vendorHints: [],
    atlasHints: [],
    knownExploited: false,
    source: {
      format: 'osv',
      id: record.id,
      modified: modifiedAt.toISOString(),
      affected: (record.affected ?? []) as OsvAffected[],
      record,
    },
  };
}
