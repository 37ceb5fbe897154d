// An Issue row from an item, its facts and its classification, with the internal columns that
// make ingest idempotent (naturalKey, identifiers, contentHash) and queries cheap.
import { hash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { Prisma } from '../generated/prisma/client.js';
import type { Classification, Classifier, Facts } from './classifier/index.js';
import { titleOf } from './classifier/text.js';
import { vendorKeys } from './classifier/vendors.js';
import type { Item, SourceRecord } from './item.js';

export type IssueRow = Omit<Prisma.IssueCreateManyInput, 'id' | 'crossRefCount' | 'firstSeenAt' | 'updatedAt'> & {
  naturalKey: string;
  identifiers: string[];
  contentHash: string;
  packageNames: string[];
};

/** An article's canonical URL; else CVE, else GHSA, else the OSV id, else the canonical URL. */
export function naturalKeyOf(item: Item): string {
  if (item.article) return item.url;
  return item.cveIds[0] ?? item.otherIds.find((id) => id.startsWith('GHSA-')) ?? (item.format === 'osv' ? item.sourceId : item.url);
}

/** Every identifier the item is known by; an existing issue sharing any of them is the same issue. */
export function identifiersOf(item: Item): string[] {
  const ids = [...item.cveIds, ...item.otherIds, item.format === 'osv' ? item.sourceId : item.url];
  return [...new Set(ids)];
}

/**
 * A source's JSON text around the canonical record its content hash serialised, and that hash:
 * the batch writes send the text as it is rather than serialise the record again (that second pass
 * cost a few percent of a sync's CPU). The column is jsonb, which keeps no key order of its own.
 */
export interface CanonicalSource {
  /** Undefined when the record has no JSON form. */
  text: string | undefined;
  hash: string;
}

const canonicalSources = new WeakMap<object, CanonicalSource>();

/** `objectJson` (an object's JSON text) with one more member, whose value is JSON text already. */
export const withMember = (objectJson: string, key: string, valueJson: string) =>
  `${objectJson === '{}' ? '{' : `${objectJson.slice(0, -1)},`}${JSON.stringify(key)}:${valueJson}}`;

/** The source's text and hash (sha256 of the record's canonical JSON, RFC 8785: key order never makes a change), computed once. */
export function canonicalSource(source: SourceRecord): CanonicalSource {
  let known = canonicalSources.get(source);
  if (!known) {
    const canonical = canonicalize(source.record);
    const { record: _record, ...rest } = source;
    known = { text: canonical === undefined ? undefined : withMember(JSON.stringify(rest), 'record', canonical), hash: hash('sha256', canonical ?? '') };
    canonicalSources.set(source, known);
  }
  return known;
}

/**
 * Gives a source the text and hash computed from its whole record elsewhere (a record parsed in a
 * worker thread comes back with only what classifying it needs: see src/sources/record-worker.ts).
 */
export function adoptCanonicalSource(source: SourceRecord, canonical: CanonicalSource): void {
  canonicalSources.set(source, canonical);
}

export function sourceTextOf(source: object): string | undefined {
  return canonicalSources.get(source)?.text;
}

export function contentHashOf(item: Item): string {
  return canonicalSource(item.source).hash;
}

export function issueRow(item: Item, facts: Facts, c: Classification, classifier: Classifier): IssueRow {
  const title = titleOf(item);
  const aliases = facts.advisoryAliases;
  return {
    title,
    headline: c.headline,
    summary: c.summary,
    sourceUrl: item.url,
    publishedAt: item.publishedAt,
    severity: c.severity,
    cvssSeverity: facts.cvss?.band ?? null,
    cvssScore: facts.cvss ? facts.cvss.score.toFixed(1) : null,
    labels: c.labels,
    issueType: c.issueType,
    cveId: facts.cveId,
    cweIds: facts.cweIds,
    affectedPackages: facts.packages.affectedPackages,
    affectedPackageRefs: facts.packages.affectedPackageRefs,
    affectedVendors: c.affectedVendors,
    affectedVendorsRaw: facts.vendors.raw,
    classifierModel: classifier.model,
    classifierPromptVersion: classifier.promptVersion,
    solution: c.solution,
    attackType: c.attackType,
    cvssVector: facts.cvss?.vector ?? null,
    attackVector: facts.cvss?.attackVector ?? null,
    attackComplexity: facts.cvss?.attackComplexity ?? null,
    privilegesRequired: facts.cvss?.privilegesRequired ?? null,
    userInteraction: facts.cvss?.userInteraction ?? null,
    exploitMaturity: c.exploitMaturity,
    epssScore: null,
    epssCheckedAt: null,
    kevDateAdded: item.kevDateAdded ?? null,
    advisoryAliases: aliases,
    affectedPackagesSource: facts.affectedPackagesSource,
    patchAvailable: facts.packages.patchAvailable,
    disclosureDate: item.disclosedAt,
    capecIds: facts.capecIds,
    attackSophistication: c.attackSophistication,
    impactType: c.impactType,
    aiComponentTargeted: c.aiComponentTargeted,
    llmSpecific: c.llmSpecific,
    classifierConfidence: c.classifierConfidence,
    researchCategory: c.researchCategory,
    atlasIds: c.atlasIds,
    owaspIds: c.owaspIds,
    classification: c.provenance as unknown as Prisma.InputJsonValue,
    naturalKey: naturalKeyOf(item),
    identifiers: identifiersOf(item),
    contentHash: contentHashOf(item),
    relevant: c.relevant,
    processed: true,
    withdrawn: item.withdrawn,
    packageNames: facts.packages.packageNames,
    vendorKeys: vendorKeys({ raw: facts.vendors.raw, normalised: c.affectedVendors }),
    searchText: [title, c.headline, c.summary, facts.cveId ?? '', ...aliases].join('\n').toLowerCase(),
    source: item.source as unknown as Prisma.InputJsonValue,
  };
}
