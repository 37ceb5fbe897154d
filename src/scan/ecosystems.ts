// Per-ecosystem rules for scan: how package names compare and how versions order. Ecosystem names
// are OSV's (https://ossf.github.io/osv-schema/#affectedpackage-field).
import * as pep440 from '@renovatebot/pep440';
import semver from 'semver';
import { compareMavenVersions } from './maven-version.js';

/** Orders two versions; `parse` returns undefined for a string that is not a version here. */
export interface VersionScheme<V = unknown> {
  parse(version: string): V | undefined;
  compare(a: V, b: V): number;
}

const semverScheme: VersionScheme<semver.SemVer> = {
  // loose: also "v1.2.3" and "=1.2.3"; partial versions ("1.2") are not versions and stay unknown
  parse: (v) => semver.parse(v, { loose: true }) ?? undefined,
  compare: (a, b) => semver.compare(a, b),
};

/** Go module versions are semver with a leading "v" (OSV records usually drop it). */
const goScheme: VersionScheme<semver.SemVer> = {
  parse: (v) => semver.parse(v.replace(/^v/, '')) ?? undefined,
  compare: (a, b) => semver.compare(a, b),
};

/**
 * The answers of `answer` by key, kept until `size` of them are (then forgotten all at once, so the
 * memory stays bounded whatever the versions asked about).
 */
function remembered<T>(size: number, answer: (key: string) => T): (key: string) => T {
  const answers = new Map<string, T>();
  return (key) => {
    let known = answers.get(key);
    if (known === undefined && !answers.has(key)) {
      if (answers.size >= size) answers.clear();
      known = answer(key);
      answers.set(key, known);
    }
    return known as T;
  };
}

// pep440's valid() and compare() run its version regular expression on each string every call, and
// a scan asks about the same few hundred range boundaries and stack versions again and again (a
// version list is sorted and binary-searched per range), so the answers are kept.
const pep440Valid = remembered(10_000, (v) => pep440.valid(v) !== null);
// A valid PEP 440 version holds no space, so the pair's key is unambiguous.
const pep440Order = remembered(50_000, (pair) => {
  const at = pair.indexOf(' ');
  return pep440.compare(pair.slice(0, at), pair.slice(at + 1));
});

const pep440Scheme: VersionScheme<string> = {
  parse: (v) => (pep440Valid(v) ? v : undefined),
  compare: (a, b) => (a === b ? 0 : pep440Order(`${a} ${b}`)),
};

const mavenScheme: VersionScheme<string> = {
  // Maven orders any string; an empty one says nothing
  parse: (v) => (v.trim() ? v.trim() : undefined),
  compare: compareMavenVersions,
};

/** The OSV ecosystems whose versions scan can order; any other stays "unknown" (conservative). */
const schemes: Record<string, VersionScheme> = {
  npm: semverScheme,
  'crates.io': semverScheme,
  go: goScheme,
  pypi: pep440Scheme,
  maven: mavenScheme,
} as Record<string, VersionScheme>;

/** OSV range type SEMVER always means SemVer 2.0, whatever the ecosystem. */
export const semverRangeScheme = semverScheme as VersionScheme;

/** "PyPI", "Debian:11" -> "pypi", "debian": ecosystems compare case-insensitively, without release suffixes. */
export function ecosystemKey(ecosystem: string): string {
  return (ecosystem.split(':')[0] ?? '').trim().toLowerCase();
}

export function versionScheme(ecosystem: string): VersionScheme | undefined {
  return schemes[ecosystemKey(ecosystem)];
}

/** purl type -> OSV ecosystem key (https://github.com/package-url/purl-spec, PURL-TYPES). */
export const purlTypeToEcosystem: Record<string, string> = {
  npm: 'npm',
  pypi: 'pypi',
  golang: 'go',
  maven: 'maven',
  cargo: 'crates.io',
  gem: 'rubygems',
  nuget: 'nuget',
  composer: 'packagist',
  hex: 'hex',
  pub: 'pub',
  swift: 'swifturl',
  cocoapods: 'cocoapods',
  conan: 'conancenter',
  hackage: 'hackage',
  cran: 'cran',
};

/** PEP 503: PyPI names compare lower-cased with runs of "-", "_" and "." as one "-". */
export function pep503(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/**
 * The stored-name keys a package name without an ecosystem may be found under: stored names are
 * lower-cased, not PEP 503-normalised, so a name that may be PyPI's tries both.
 */
export function nameKeys(name: string): string[] {
  return [...new Set([name.toLowerCase(), pep503(name)])];
}

/** The canonical form of a package name within an ecosystem (undefined: the ecosystem is unknown). */
export function canonicalName(name: string, ecosystem: string | undefined): string {
  const key = ecosystem === undefined ? undefined : ecosystemKey(ecosystem);
  return key === 'pypi' ? pep503(name) : name.trim().toLowerCase();
}
