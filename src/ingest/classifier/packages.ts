// Package facts from OSV `affected[]`: the spec's package strings, the refs, the lower-cased
// names scan and the package filter search, whether a fix exists, and the remediation text.
import { compare as comparePep440 } from '@renovatebot/pep440';
import semver from 'semver';
import type { OsvAffected } from '../item.js';

export const noRemediation = 'N/A: no patch or mitigation has been published.';

interface Interval {
  introduced?: string;
  fixed?: string;
  lastAffected?: string;
  limit?: string;
}

/** Splits a range's events into intervals (OSV allows several introduced/fixed pairs). */
function intervals(events: Record<string, string>[]): Interval[] {
  const out: Interval[] = [];
  let current: Interval | undefined;
  for (const event of events) {
    if (event.introduced !== undefined) {
      if (current) out.push(current);
      current = { introduced: event.introduced };
      continue;
    }
    current ??= {};
    if (event.fixed !== undefined) current.fixed = event.fixed;
    if (event.last_affected !== undefined) current.lastAffected = event.last_affected;
    if (event.limit !== undefined) current.limit = event.limit;
    out.push(current);
    current = undefined;
  }
  if (current) out.push(current);
  return out;
}

function rangeText(i: Interval): string {
  const lower = i.introduced && i.introduced !== '0' ? `>=${i.introduced}` : '';
  const upper = i.fixed ? `<${i.fixed}` : i.lastAffected ? `<=${i.lastAffected}` : i.limit ? `<${i.limit}` : '';
  return [lower, upper].filter(Boolean).join(',') || '*';
}

/** PyPI names compare after PEP 503 normalisation (Llama_Index == llama-index). */
export function packageKey(ecosystem: string, name: string): string {
  const lower = name.toLowerCase();
  return ecosystem.toLowerCase() === 'pypi' ? lower.replace(/[-_.]+/g, '-') : lower;
}

/** The versions of a package without ranges that its facts name: the first this many of its list. */
export const factVersions = 50;

/** Version ranges only: GIT ranges name commits, not releases. */
const versionRanges = (a: OsvAffected) => (a.ranges ?? []).filter((r) => r.type === 'ECOSYSTEM' || r.type === 'SEMVER');

export interface PackageFacts {
  affectedPackages: string[];
  affectedPackageRefs: string[];
  packageNames: string[];
  patchAvailable: boolean | null;
  /** Fixed versions per package name, in the order the source lists them. */
  fixes: Map<string, { ecosystem: string; fixed: string[]; unfixed: boolean }>;
}

export function packageFacts(affected: OsvAffected[]): PackageFacts {
  const strings = new Set<string>();
  const refs = new Set<string>();
  const names = new Set<string>();
  const fixes: PackageFacts['fixes'] = new Map();
  for (const entry of affected) {
    const { ecosystem, name } = entry.package;
    refs.add(`${ecosystem}:${name}`);
    names.add(name.toLowerCase());
    names.add(packageKey(ecosystem, name));
    const fix = fixes.get(name) ?? { ecosystem, fixed: [], unfixed: false };
    fixes.set(name, fix);
    const ranges = versionRanges(entry).flatMap((r) => intervals(r.events));
    for (const interval of ranges) {
      strings.add(`${name}@${rangeText(interval)} (fixed: ${interval.fixed ?? 'none'})`);
      if (interval.fixed) {
        if (!fix.fixed.includes(interval.fixed)) fix.fixed.push(interval.fixed);
      } else fix.unfixed = true;
    }
    if (ranges.length === 0) {
      for (const version of (entry.versions ?? []).slice(0, factVersions)) strings.add(`${name}@==${version} (fixed: none)`);
      fix.unfixed = true;
    }
  }
  const anyFixed = [...fixes.values()].some((f) => f.fixed.length > 0);
  return {
    affectedPackages: [...strings],
    affectedPackageRefs: [...refs],
    packageNames: [...names],
    patchAvailable: fixes.size === 0 ? null : anyFixed,
    fixes,
  };
}

function newestFirst(ecosystem: string, versions: string[]): string[] {
  const compare = (a: string, b: string): number => {
    if (ecosystem.toLowerCase() === 'pypi') {
      try {
        return comparePep440(b, a);
      } catch {
        /* not PEP 440: fall through */
      }
    }
    const [va, vb] = [semver.coerce(a), semver.coerce(b)];
    return va && vb ? semver.rcompare(va, vb) : b.localeCompare(a, 'en', { numeric: true });
  };
  return [...versions].sort(compare);
}

function list(words: string[]): string {
  return words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

/** A real remediation from the fixed versions; the fixed N/A sentence when there is none. */
export function remediation(facts: PackageFacts): string {
  const sentences: string[] = [];
  const unfixed: string[] = [];
  for (const [name, fix] of facts.fixes) {
    if (fix.fixed.length === 0) {
      unfixed.push(name);
      continue;
    }
    const versions = newestFirst(fix.ecosystem, fix.fixed);
    sentences.push(
      versions.length === 1
        ? `Upgrade ${name} to ${versions[0]} or later.`
        : `Upgrade ${name} to ${list(versions)} or later, whichever matches your release line.`,
    );
    if (fix.unfixed) sentences.push(`Some ${name} releases have no fixed version yet.`);
  }
  if (sentences.length === 0) return noRemediation;
  if (unfixed.length) sentences.push(`No fixed release of ${list(unfixed)} has been published.`);
  return sentences.join(' ');
}
