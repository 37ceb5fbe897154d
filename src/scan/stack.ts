// A scan request's stack: package entries (a name, name@version or a purl) and vendor names,
// validated and put in the forms the database columns hold.
import { PackageURL } from 'packageurl-js';
import { badRequest } from '../errors.js';
import { canonicalName, ecosystemKey, nameKeys, pep503, purlTypeToEcosystem } from './ecosystems.js';
import type { AffectedVersions } from './affected-versions.js';

export const MAX_ENTRIES = 1000;
export const MAX_ENTRY_LENGTH = 200;

export interface PackageQuery {
  /** The entry exactly as the client wrote it (echoed in matchedPackages). */
  input: string;
  name: string;
  /** OSV ecosystem key when the entry is a purl; undefined for a bare name. */
  ecosystem?: string;
  version?: string;
  /** Lower-cased spellings to look up in Issue.packageNames. */
  keys: string[];
  /**
   * An AI component outside the package registries (a Hugging Face model, a generic purl such as
   * an agent tool): it also matches an issue whose vendor names hold both its vendor and its
   * product (lower-cased; Issue.vendorKeys).
   */
  namedBy?: { vendor: string; product: string };
}

export interface VendorQuery {
  input: string;
  key: string;
}

export interface Stack {
  packages: PackageQuery[];
  vendors: VendorQuery[];
}

/** Joins a purl's namespace and name the way OSV spells that ecosystem's package names. */
function purlPackageName(purl: PackageURL): string {
  if (!purl.namespace) return purl.name;
  return purl.type === 'maven' ? `${purl.namespace}:${purl.name}` : `${purl.namespace}/${purl.name}`;
}

/** purl types whose components name a vendor and a product rather than a registry package. */
const productPurlTypes = new Set(['huggingface', 'generic']);

/** The ecosystems a purl may name in a watched stack: a stack in any other would never be notified. */
export const knownEcosystems = new Set([...Object.values(purlTypeToEcosystem), ...productPurlTypes]);

export function parsePackageEntry(input: string, label: string, { knownOnly = false } = {}): PackageQuery {
  const text = input.trim();
  let name: string;
  let version: string | undefined;
  let ecosystem: string | undefined;
  let namedBy: PackageQuery['namedBy'];
  if (/^pkg:/i.test(text)) {
    let purl: PackageURL;
    try {
      purl = PackageURL.fromString(text);
    } catch {
      throw badRequest(`${label} is not a valid package URL (pkg:<type>/<name>@<version>)`);
    }
    name = purlPackageName(purl);
    version = purl.version ?? undefined;
    ecosystem = purlTypeToEcosystem[purl.type] ?? purl.type;
    if (knownOnly && !knownEcosystems.has(ecosystem)) {
      throw badRequest(`${label} names the unknown package type "${purl.type}"; known: ${[...knownEcosystems].sort().join(', ')}`);
    }
    // A model without an organisation (pkg:huggingface/gpt2) names no vendor: only its package name matches.
    if (productPurlTypes.has(purl.type) && purl.namespace) namedBy = { vendor: purl.namespace.toLowerCase(), product: purl.name.toLowerCase() };
  } else {
    // The last "@" after the first character splits off the version, so "@scope/pkg@1.0" works.
    const at = text.lastIndexOf('@');
    if (at > 0) {
      name = text.slice(0, at).trim();
      version = text.slice(at + 1).trim();
      if (!version) throw badRequest(`${label} has an empty version after "@"`);
    } else {
      name = text;
    }
  }
  if (!name) throw badRequest(`${label} has no package name`);
  // A purl's percent-encoding (%00) carries a NUL past the check of the raw entry (checkList).
  if ([name, version, ecosystem].some((part) => part?.includes('\u0000'))) throw badRequest(`${label} must not contain NUL characters`);
  const keys = ecosystem && ecosystem !== 'pypi' ? [canonicalName(name, ecosystem)] : nameKeys(name);
  return { input, name, ecosystem, version, keys, ...(namedBy ? { namedBy } : {}) };
}

/** Whether an OSV entry describes the package this query names (its ecosystem too, for a purl). */
export function describesPackage(query: PackageQuery, entry: AffectedVersions): boolean {
  const entryEcosystem = ecosystemKey(entry.ecosystem);
  if (query.ecosystem && query.ecosystem !== entryEcosystem) return false;
  return entryEcosystem === 'pypi' ? pep503(entry.name) === pep503(query.name) : entry.name.toLowerCase() === query.name.toLowerCase();
}

function checkList(list: unknown, field: string): string[] {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw badRequest(`${field} must be an array of strings`);
  if (list.length > MAX_ENTRIES) throw badRequest(`${field} has ${list.length} entries; at most ${MAX_ENTRIES} are allowed`);
  list.forEach((entry, i) => {
    if (typeof entry !== 'string') throw badRequest(`${field}[${i}] must be a string`);
    if (!entry.trim()) throw badRequest(`${field}[${i}] is empty`);
    // PostgreSQL text cannot hold NUL: it would answer with an error (a 500) instead of no match.
    if (entry.includes('\u0000')) throw badRequest(`${field}[${i}] must not contain NUL characters`);
    if (entry.length > MAX_ENTRY_LENGTH) throw badRequest(`${field}[${i}] is longer than ${MAX_ENTRY_LENGTH} characters`);
  });
  return list as string[];
}

/**
 * Validates a stack; both lists absent or empty is a bad request. `knownOnly` (a watched stack)
 * refuses purls of types no issue can name.
 */
export function parseStack(packages: unknown, vendors: unknown, options: { knownOnly?: boolean } = {}): Stack {
  const packageList = checkList(packages, 'packages');
  const vendorList = checkList(vendors, 'vendors');
  if (packageList.length === 0 && vendorList.length === 0) {
    throw badRequest('Give at least one entry in packages or vendors');
  }
  const packageQueries = new Map<string, PackageQuery>();
  packageList.forEach((entry, i) => packageQueries.set(entry, packageQueries.get(entry) ?? parsePackageEntry(entry, `packages[${i}]`, options)));
  return {
    packages: [...packageQueries.values()],
    vendors: [...new Set(vendorList)].map((input) => ({ input, key: input.trim().toLowerCase() })),
  };
}
