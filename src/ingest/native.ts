// secwire's native item format, for news, incidents, research and regulatory items (and
// vulnerabilities that have no OSV record). Documented in docs/ingestion.md, "Native items";
// unknown keys are rejected so a misspelt field is an error, not silently lost data.
import { z } from 'zod';
import { DATE_RANGE_TEXT, inDateRange } from '../dates.js';
import { IssueType, Severity } from '../generated/prisma/enums.js';
import { isAtlasTechnique } from './classifier/atlas.js';
import { isValidCvssVector } from './classifier/cvss.js';
import { issueLabels } from '../sources/definition.js';
import { advisoryIdsIn, advisoryPageIds } from './advisory-page.js';
import { canonicalUrl, type Item, type OsvAffected } from './item.js';

const inRange = <T extends z.ZodType<string>>(schema: T) => schema.refine((value) => inDateRange(new Date(value)), `must be ${DATE_RANGE_TEXT}`);
const dateOrTimestamp = inRange(z.union([z.iso.date(), z.iso.datetime({ offset: true })], { message: 'must be a date (YYYY-MM-DD) or an RFC 3339 timestamp' }));
const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' });
const text = (max: number) => z.string().trim().min(1).max(max);

const nativePackage = z.strictObject({
  ecosystem: text(50),
  name: text(214),
  /** First affected version; absent means every version before the fix. */
  introduced: text(100).optional(),
  fixed: text(100).optional(),
  lastAffected: text(100).optional(),
});

export const nativeItem = z.strictObject({
  id: text(100).optional(),
  title: text(500),
  url: httpUrl,
  publishedAt: dateOrTimestamp,
  summary: text(5000).optional(),
  type: z.enum(IssueType).optional(),
  headline: text(200).optional(),
  severity: z.enum(Severity).optional(),
  cve: z
    .string()
    .regex(/^CVE-\d{4}-\d{4,}$/, 'must look like CVE-2024-12345')
    .optional(),
  aliases: z.array(text(100)).max(50).optional(),
  cweIds: z
    .array(z.string().regex(/^CWE-\d+$/, 'must look like CWE-79'))
    .max(50)
    .optional(),
  cvssVector: z.string().refine(isValidCvssVector, 'must be a complete CVSS 3.0, 3.1 or 4.0 base vector').optional(),
  vendors: z.array(text(200)).max(50).optional(),
  packages: z.array(nativePackage).max(200).optional(),
  atlasIds: z.array(z.string().refine(isAtlasTechnique, 'must be an ATLAS technique id such as AML.T0051')).max(50).optional(),
  solution: text(2000).optional(),
  knownExploited: z.boolean().optional(),
  kevDateAdded: inRange(z.iso.date()).optional(),
  researchCategory: z
    .string()
    .regex(/^[a-z_]{1,40}$/, 'must be a lowercase tag such as peer_reviewed')
    .optional(),
  disclosedAt: dateOrTimestamp.optional(),
  references: z.array(httpUrl).max(50).optional(),
  withdrawn: z.boolean().optional(),
  /** Defaults the source gives all its entries (a feed source's issueType and labels). */
  sourceHints: z
    .strictObject({
      issueType: z.enum(IssueType).optional(),
      labels: z.array(z.enum(issueLabels)).max(issueLabels.length).optional(),
    })
    .optional(),
});

export type NativeItem = z.infer<typeof nativeItem>;

function toAffected(pkg: z.infer<typeof nativePackage>): OsvAffected {
  const events: Record<string, string>[] = [{ introduced: pkg.introduced ?? '0' }];
  if (pkg.fixed) events.push({ fixed: pkg.fixed });
  else if (pkg.lastAffected) events.push({ last_affected: pkg.lastAffected });
  return { package: { ecosystem: pkg.ecosystem, name: pkg.name }, ranges: [{ type: 'ECOSYSTEM', events }] };
}

/**
 * The CVEs and other ids an item is filed under, and whether it is an article. An advisory page
 * (advisory-page.ts) or an item typed `vulnerability` is the record of its vulnerability; any
 * other item is an article, which names the CVEs it is about (its `cve`, else those its title and
 * summary name) without being their record.
 */
function identityOf(record: NativeItem, url: string): { cveIds: string[]; otherIds: string[]; article: boolean } {
  const own = [...(record.id ? [record.id] : []), ...(record.aliases ?? [])];
  const page = advisoryPageIds(url, record.title);
  const article = page === undefined && record.type !== 'vulnerability';
  const named = record.cve
    ? [record.cve]
    : article
      ? advisoryIdsIn(`${record.title}\n${record.summary ?? ''}`)
          .filter(isCve)
          .slice(0, maxNamedCves)
      : [];
  const cveIds = [...new Set([...named, ...(page ?? []).filter(isCve)])];
  const otherIds = [...new Set([...own, ...(page ?? [])].filter((id) => !cveIds.includes(id)))];
  return { cveIds, otherIds, article };
}

const isCve = (id: string) => id.startsWith('CVE-');
/** An article naming more CVEs than this is a round-up: it is about the first few. */
const maxNamedCves = 5;

export function nativeToItem(record: NativeItem): Item {
  const url = canonicalUrl(record.url);
  const affected = (record.packages ?? []).map(toAffected);
  const { cveIds, otherIds, article } = identityOf(record, url);
  return {
    format: 'native',
    sourceId: url,
    title: record.title,
    details: record.summary ?? '',
    summary: record.summary,
    headline: record.headline,
    url,
    publishedAt: new Date(record.publishedAt),
    modifiedAt: null,
    disclosedAt: record.disclosedAt ? new Date(record.disclosedAt) : null,
    withdrawn: record.withdrawn ?? false,
    typeHint: record.type,
    ...(record.sourceHints ? { sourceHints: record.sourceHints } : {}),
    statedSeverity: record.severity,
    cveIds,
    otherIds,
    ...(article ? { article } : {}),
    cweIds: [...new Set(record.cweIds ?? [])],
    cvssVectors: record.cvssVector ? [record.cvssVector] : [],
    affected,
    references: record.references ?? [],
    vendorHints: record.vendors ?? [],
    atlasHints: [...new Set(record.atlasIds ?? [])],
    solutionHint: record.solution,
    knownExploited: record.knownExploited ?? false,
    kevDateAdded: record.kevDateAdded,
    researchCategory: record.researchCategory,
    source: { format: 'native', id: url, modified: null, affected, record },
  };
}
