// Stack scan: which served issues affect a list of packages and vendors. One statement narrows the
// candidates through the GIN indexes on the lower-cased packageNames and vendorKeys columns and
// reads them with the filters and the order; versions are then checked in memory against each
// candidate's OSV ranges.
import type { DriverRead } from '../db/driver-read.js';
import type { Severity } from '../generated/prisma/enums.js';
import { severities } from '../issues/severities.js';
import { readScanCandidates, type CandidateRow } from '../issues/reads.js';
import { affectedEntries, type AffectedVersions } from './affected-versions.js';
import { describesPackage, type PackageQuery, type Stack } from './stack.js';
import { VersionSet, versionsNotRuledOut } from './version-set.js';

export type SeverityCounts = Record<Severity, number>;

export interface ScanMatch {
  id: string;
  title: string;
  severity: Severity;
  cveId: string | null;
  matchedPackages: string[];
  matchedVendors: string[];
}

export interface ScanResult {
  data: ScanMatch[];
  meta: { total: number; bySeverity: SeverityCounts };
}

export interface ScanFilters {
  /** Only issues at least this severe (critical > high > medium > low > info). */
  severityMin?: Severity;
  /** Only issues published strictly after this instant. */
  since?: Date;
}

export type { CandidateRow } from '../issues/reads.js';

/**
 * Entries naming the same package (the same name, and the same purl ecosystem or none): an issue's
 * OSV entries decide for all of them at once, each distinct version checked once per issue.
 */
interface PackageGroup {
  /** The name and ecosystem the entries share. */
  query: PackageQuery;
  /** The query without its ecosystem: what names the package in any ecosystem. */
  anyEcosystem: PackageQuery;
  unversioned: PackageQuery[];
  byVersion: Map<string, PackageQuery[]>;
  versions: VersionSet;
}

function groupPackages(queries: PackageQuery[]): PackageGroup[] {
  const groups = new Map<string, Omit<PackageGroup, 'versions'>>();
  for (const query of queries) {
    const id = `${query.ecosystem ?? ''}\u0000${query.name.toLowerCase()}`;
    let group = groups.get(id);
    if (!group) groups.set(id, (group = { query, anyEcosystem: { ...query, ecosystem: undefined }, unversioned: [], byVersion: new Map() }));
    if (!query.version) group.unversioned.push(query);
    else group.byVersion.set(query.version, [...(group.byVersion.get(query.version) ?? []), query]);
  }
  return [...groups.values()].map((group) => ({ ...group, versions: new VersionSet([...group.byVersion.keys()]) }));
}

/**
 * The group's entries that match an issue whose packageNames already contain one of their keys.
 * Without a version or ecosystem the name decides. Otherwise the OSV entries for that
 * package decide; when the issue carries no entry naming the package at all, nothing contradicts
 * the name match and it stands (conservative: a scanner should not hide an issue it cannot rule
 * out). A purl whose ecosystem differs from every entry naming the package does not match.
 */
function groupMatches(group: PackageGroup, affected: AffectedVersions[], out: Set<PackageQuery>): void {
  const { query, anyEcosystem } = group;
  if (!query.ecosystem) for (const q of group.unversioned) out.add(q);
  const named = affected.length ? affected.filter((entry) => describesPackage(anyEcosystem, entry)) : affected;
  if (named.length === 0) {
    for (const q of group.unversioned) out.add(q);
    for (const queries of group.byVersion.values()) for (const q of queries) out.add(q);
    return;
  }
  const relevant = named.filter((entry) => describesPackage(query, entry));
  if (relevant.length === 0) return;
  for (const q of group.unversioned) out.add(q);
  if (group.byVersion.size === 0) return;
  for (const entry of relevant) {
    for (const version of versionsNotRuledOut(entry, group.versions)) for (const q of group.byVersion.get(version)!) out.add(q);
  }
}

/** The longest the scan's statement may run (PostgreSQL; PGlite runs statements to the end). */
export const scanStatementTimeoutMs = 5_000;

/**
 * Up to this many package and vendor keys, the scan's statement runs without the settings below:
 * on 100,000 issues the planner prices 10 of the most common names at 43,000 and 50 at 88,000,
 * against the default jit_above_cost of 100,000.
 */
export const smallStackKeys = 20;

export function emptyCounts(): SeverityCounts {
  return Object.fromEntries(severities.map((s) => [s, 0])) as SeverityCounts;
}

/** How a stack's package entries are looked up: by each key of Issue.packageNames they may be stored under. */
export interface StackIndex {
  byKey: Map<string, PackageGroup[]>;
  vendorsByKey: Map<string, string[]>;
  /** AI components by their product's key (PackageQuery.namedBy), looked up in Issue.vendorKeys. */
  productsByKey: Map<string, PackageQuery[]>;
  needsRanges: boolean;
  order: Map<PackageQuery, number>;
  stack: Stack;
}

export function indexStack(stack: Stack): StackIndex {
  const byKey = new Map<string, PackageGroup[]>();
  for (const group of groupPackages(stack.packages)) {
    for (const key of group.query.keys) byKey.set(key, [...(byKey.get(key) ?? []), group]);
  }
  const vendorsByKey = new Map<string, string[]>();
  for (const vendor of stack.vendors) vendorsByKey.set(vendor.key, [...(vendorsByKey.get(vendor.key) ?? []), vendor.input]);
  const productsByKey = new Map<string, PackageQuery[]>();
  for (const q of stack.packages) if (q.namedBy) productsByKey.set(q.namedBy.product, [...(productsByKey.get(q.namedBy.product) ?? []), q]);
  const needsRanges = stack.packages.some((q) => q.version || q.ecosystem);
  return { byKey, vendorsByKey, productsByKey, needsRanges, order: new Map(stack.packages.map((q, i) => [q, i])), stack };
}

/**
 * The scan's verdict on candidate issues (rows naming one of the stack's keys), in the rows'
 * order: what a scan reports and what a watched stack is notified of (src/stacks) are this one
 * decision. `affected` is the row's source->'affected' (null when no entry has a version or ecosystem).
 */
export function matchCandidates(index: StackIndex, rows: CandidateRow[]): ScanMatch[] {
  const { byKey, vendorsByKey, productsByKey, needsRanges, order, stack } = index;
  const data: ScanMatch[] = [];
  // Thousands of candidates per scan: nothing is allocated for a name, vendor or range that cannot match.
  const noRanges: AffectedVersions[] = [];
  for (const row of rows) {
    let affected: AffectedVersions[] | undefined;
    const matched = new Set<PackageQuery>();
    let seen: Set<PackageGroup> | undefined;
    for (const name of row.packageNames) {
      const groups = byKey.get(name);
      if (!groups) continue;
      for (const group of groups) {
        if (seen?.has(group)) continue;
        (seen ??= new Set()).add(group);
        affected ??= needsRanges ? affectedEntries(row.affected) : noRanges;
        groupMatches(group, affected, matched);
      }
    }
    // An AI component named by vendor and product: both among the vendor names. Versions
    // are not compared (free-text names carry no ranges), as for a package without ranges.
    if (productsByKey.size) {
      for (const key of row.vendorKeys) for (const q of productsByKey.get(key) ?? []) if (row.vendorKeys.includes(q.namedBy!.vendor)) matched.add(q);
    }
    const vendorHits = vendorsByKey.size ? new Set(row.vendorKeys.flatMap((key) => vendorsByKey.get(key) ?? [])) : undefined;
    const matchedVendors = vendorHits?.size ? stack.vendors.filter((v) => vendorHits.has(v.input)).map((v) => v.input) : [];
    if (matched.size === 0 && matchedVendors.length === 0) continue;
    const matchedPackages =
      matched.size === 1 ? [matched.values().next().value!.input] : [...matched].sort((a, b) => order.get(a)! - order.get(b)!).map((q) => q.input);
    data.push({ id: row.id, title: row.title, severity: row.severity, cveId: row.cveId, matchedPackages, matchedVendors });
  }
  return data;
}

export async function scanStack(read: DriverRead, stack: Stack, filters: ScanFilters = {}): Promise<ScanResult> {
  const index = indexStack(stack);
  const { byKey, vendorsByKey, productsByKey, needsRanges } = index;
  const vendorProbes = [...new Set([...vendorsByKey.keys(), ...productsByKey.keys()])];

  // Candidates by one index probe per key, in one statement (issues/reads.ts readScanCandidates);
  // a large stack's statement runs with JIT off and a time limit of its own.
  const keyCount = byKey.size + vendorProbes.length;
  const rows = await readScanCandidates(read, {
    packageKeys: [...byKey.keys()],
    vendorKeys: vendorProbes,
    needsRanges,
    severityMin: filters.severityMin,
    since: filters.since,
    settings: keyCount > smallStackKeys ? { jit: 'off', statement_timeout: String(scanStatementTimeoutMs) } : undefined,
  });

  const data = matchCandidates(index, rows);
  const bySeverity = emptyCounts();
  for (const match of data) bySeverity[match.severity] += 1;
  return { data, meta: { total: data.length, bySeverity } };
}
