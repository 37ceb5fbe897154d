// The versions one scan asks about for one package, checked against an OSV entry all at once. A
// stack may list the same package at a thousand versions, and a package may have thousands of
// issues: checking every version against every issue one by one costs issues x versions x events
// comparisons (57 s for 1,000 versions against 2,000 issues). Here the versions are sorted once per
// version scheme; a range then costs a binary search per event, and only the versions it holds are
// visited. The verdicts are versionVerdict's exactly (test/domain/scan-matching.test.ts compares both).
import { semverRangeScheme, versionScheme, type VersionScheme } from './ecosystems.js';
import { ZERO, type AffectedVersions, type OsvRange } from './affected-versions.js';

interface Sorted {
  /** Parseable versions in ascending order, with their parsed form. */
  parsed: { text: string; at: unknown }[];
  /** Versions the scheme cannot order: every range says "unknown" about them. */
  unparseable: string[];
}

export class VersionSet {
  private readonly byScheme = new Map<VersionScheme, Sorted>();

  constructor(readonly texts: readonly string[]) {}

  sorted(scheme: VersionScheme): Sorted {
    let sorted = this.byScheme.get(scheme);
    if (!sorted) {
      sorted = { parsed: [], unparseable: [] };
      for (const text of this.texts) {
        const at = scheme.parse(text);
        if (at === undefined) sorted.unparseable.push(text);
        else sorted.parsed.push({ text, at });
      }
      sorted.parsed.sort((a, b) => scheme.compare(a.at, b.at));
      this.byScheme.set(scheme, sorted);
    }
    return sorted;
  }
}

/** First index whose version is >= at (or > at when `after`). */
function boundary(parsed: Sorted['parsed'], at: unknown, scheme: VersionScheme, after: boolean): number {
  if (at === ZERO) return 0;
  let lo = 0;
  let hi = parsed.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const cmp = scheme.compare(parsed[mid]!.at, at);
    if (cmp < 0 || (after && cmp === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Adds to `out` the versions one range holds. Each event applies from an index on (`introduced`,
 * `fixed` and `limit` from their version, `last_affected` from just after it); between two such
 * indices the same events apply, so the range's verdict is worked out once per stretch, in the
 * events' order as versionVerdict does. Returns false when the range cannot be evaluated.
 */
function addRange(range: OsvRange, scheme: VersionScheme | undefined, set: VersionSet, out: Set<string>): boolean {
  if (!scheme) return false;
  const events: { kind: OsvRange['events'][number]['kind']; at: unknown }[] = [];
  for (const event of range.events) {
    if (event.kind === 'introduced' && event.version === '0') {
      events.push({ kind: 'introduced', at: ZERO });
      continue;
    }
    if (event.kind === 'limit' && event.version === '*') continue;
    const at = scheme.parse(event.version);
    if (at === undefined) return false;
    events.push({ kind: event.kind, at });
  }
  const order = (a: unknown, b: unknown) => (a === ZERO ? (b === ZERO ? 0 : -1) : b === ZERO ? 1 : scheme.compare(a, b));
  events.sort((a, b) => order(a.at, b.at));
  const { parsed, unparseable } = set.sorted(scheme);
  for (const text of unparseable) out.add(text);
  const starts = events.map((e) => boundary(parsed, e.at, scheme, e.kind === 'last_affected'));
  const cuts = [...new Set([...starts, parsed.length])].sort((a, b) => a - b);
  for (let c = 0; c < cuts.length - 1; c++) {
    const from = cuts[c]!;
    let affected = false;
    let limited = false;
    events.forEach((event, i) => {
      if (starts[i]! > from) return;
      if (event.kind === 'limit') limited = true;
      else affected = event.kind === 'introduced';
    });
    if (affected && !limited) for (let k = from; k < cuts[c + 1]!; k++) out.add(parsed[k]!.text);
  }
  return true;
}

/** The versions of `set` that `entry` does not rule out (versionVerdict is not "not-affected"). */
export function versionsNotRuledOut(entry: AffectedVersions, set: VersionSet): Set<string> {
  const out = new Set<string>();
  const scheme = versionScheme(entry.ecosystem);
  const listed = new Set(entry.versions);
  for (const text of set.texts) if (listed.has(text)) out.add(text);
  if (scheme) {
    const { parsed } = set.sorted(scheme);
    for (const version of entry.versions) {
      const at = scheme.parse(version);
      if (at === undefined) continue;
      for (let k = boundary(parsed, at, scheme, false); k < parsed.length && scheme.compare(parsed[k]!.at, at) === 0; k++) out.add(parsed[k]!.text);
    }
  }
  const ranges = entry.ranges.filter((r) => r.type === 'SEMVER' || r.type === 'ECOSYSTEM');
  if (ranges.length === 0) return entry.versions.length > 0 ? out : new Set(set.texts);
  for (const range of ranges) {
    if (!addRange(range, range.type === 'SEMVER' ? semverRangeScheme : scheme, set, out)) return new Set(set.texts);
  }
  return out;
}
