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

const pep440Scheme: VersionScheme<string> = {
  parse: (v) => (pep440.valid(v) ? v : undefined),
  compare: (a, b) => pep440.compare(a, b),
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
