// Reads the OSV `affected` entries kept in an issue's `source` and decides whether one version of a
// package lies inside them, following the OSV schema's evaluation of ranges
// (https://ossf.github.io/osv-schema/#evaluation): events sorted by version, `introduced` opens a
// range, `fixed` closes it before that version, `last_affected` closes it after that version.
import { semverRangeScheme, versionScheme, type VersionScheme } from './ecosystems.js';

export interface OsvRange {
  type: string;
  events: { kind: 'introduced' | 'fixed' | 'last_affected' | 'limit'; version: string }[];
}

/** One package's affected versions as scan reads them from an OSV `affected` entry (ingest/item.ts's OsvAffected, checked). */
export interface AffectedVersions {
  ecosystem: string;
  name: string;
  ranges: OsvRange[];
  versions: string[];
}

/** affected: the version is inside a range; unknown: the data or the version cannot be ordered. */
export type Verdict = 'affected' | 'not-affected' | 'unknown';

const eventKinds = ['introduced', 'fixed', 'last_affected', 'limit'] as const;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

/**
 * The `affected` entries of a stored source record (an OSV record, or its `affected` array
 * itself). Malformed parts are dropped rather than trusted; an issue without any entry gets [].
 */
export function affectedEntries(source: unknown): AffectedVersions[] {
  const list = Array.isArray(source) ? source : isRecord(source) ? source.affected : undefined;
  if (!Array.isArray(list)) return [];
  const entries: AffectedVersions[] = [];
  for (const raw of list) {
    if (!isRecord(raw) || !isRecord(raw.package)) continue;
    const { ecosystem, name } = raw.package;
    if (typeof ecosystem !== 'string' || typeof name !== 'string' || !name) continue;
    const ranges: OsvRange[] = [];
    for (const range of Array.isArray(raw.ranges) ? raw.ranges : []) {
      if (!isRecord(range) || typeof range.type !== 'string' || !Array.isArray(range.events)) continue;
      const events: OsvRange['events'] = [];
      for (const event of range.events) {
        if (!isRecord(event)) continue;
        const kind = eventKinds.find((k) => typeof event[k] === 'string');
        if (kind) events.push({ kind, version: event[kind] as string });
      }
      ranges.push({ type: range.type.toUpperCase(), events });
    }
    entries.push({ ecosystem, name, ranges, versions: strings(raw.versions) });
  }
  return entries;
}

/** The version before every other (an `introduced: "0"` event). */
export const ZERO = Symbol('before every version');

function rangeVerdict(version: string, range: OsvRange, scheme: VersionScheme | undefined): Verdict {
  if (!scheme) return 'unknown';
  const v = scheme.parse(version);
  if (v === undefined) return 'unknown';
  const events: { kind: OsvRange['events'][number]['kind']; at: unknown }[] = [];
  for (const event of range.events) {
    if (event.kind === 'introduced' && event.version === '0') {
      events.push({ kind: 'introduced', at: ZERO });
      continue;
    }
    if (event.kind === 'limit' && event.version === '*') continue; // no upper limit
    const at = scheme.parse(event.version);
    if (at === undefined) return 'unknown';
    events.push({ kind: event.kind, at });
  }
  const order = (a: unknown, b: unknown) => (a === ZERO ? (b === ZERO ? 0 : -1) : b === ZERO ? 1 : scheme.compare(a, b));
  events.sort((a, b) => order(a.at, b.at));
  let affected = false;
  let limited = false;
  for (const { kind, at } of events) {
    const cmp = order(v, at);
    if (kind === 'introduced' && cmp >= 0) affected = true;
    else if (kind === 'fixed' && cmp >= 0) affected = false;
    else if (kind === 'last_affected' && cmp > 0) affected = false;
    else if (kind === 'limit' && cmp >= 0) limited = true;
  }
  return affected && !limited ? 'affected' : 'not-affected';
}

/**
 * Whether `version` of the package is affected according to one OSV entry. A version listed in
 * `versions` is affected. Otherwise the SEMVER and ECOSYSTEM ranges decide (GIT ranges name
 * commits, not versions): affected when any range holds it, unknown when a range cannot be
 * evaluated (unsupported ecosystem, unparseable version) and none holds it, else not affected.
 * An entry with neither usable ranges nor a version list says nothing: unknown.
 */
export function versionVerdict(version: string, entry: AffectedVersions): Verdict {
  const scheme = versionScheme(entry.ecosystem);
  const equal = (listed: string) => {
    if (listed === version) return true;
    const a = scheme?.parse(listed);
    const b = scheme?.parse(version);
    return a !== undefined && b !== undefined && scheme!.compare(a, b) === 0;
  };
  if (entry.versions.some(equal)) return 'affected';
  const ranges = entry.ranges.filter((r) => r.type === 'SEMVER' || r.type === 'ECOSYSTEM');
  if (ranges.length === 0) return entry.versions.length > 0 ? 'not-affected' : 'unknown';
  let verdict: Verdict = 'not-affected';
  for (const range of ranges) {
    const result = rangeVerdict(version, range, range.type === 'SEMVER' ? semverRangeScheme : scheme);
    if (result === 'affected') return 'affected';
    if (result === 'unknown') verdict = 'unknown';
  }
  return verdict;
}
