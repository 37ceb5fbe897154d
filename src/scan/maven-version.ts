// Maven version ordering, as org.apache.maven.artifact.versioning.ComparableVersion (Maven 3.x)
// defines it. No maintained npm package implements it (the one candidate has a single release and
// no source repository), so this is a small re-statement of that algorithm, checked against the
// orderings in Maven's own ComparableVersionTest (test/domain/scan-matching.test.ts).
//
// A version is parsed into a list of items. '.' separates items; '-' and every switch between
// digits and letters open a nested sub-list. Numbers compare numerically; known qualifiers compare
// alpha < beta < milestone < rc < snapshot < "" (release, also ga/final) < sp; unknown qualifiers
// come after those, case-insensitively and lexically. Trailing "null" items (0, "", empty lists)
// are dropped, so 1 == 1.0 == 1-0 == 1.0.0-ga.

type Item = { kind: 'int'; value: bigint } | { kind: 'string'; value: string } | { kind: 'list'; items: Item[] };

const QUALIFIERS = ['alpha', 'beta', 'milestone', 'rc', 'snapshot', '', 'sp'];
const ALIASES: Record<string, string> = { ga: '', final: '', release: '', cr: 'rc' };
const RELEASE_INDEX = String(QUALIFIERS.indexOf(''));

function stringItem(raw: string, followedByDigit: boolean): Item {
  let value = raw;
  // a1, b2, m3 are shorthand for alpha-1, beta-2, milestone-3 (only when a digit follows)
  if (followedByDigit && value.length === 1) value = ({ a: 'alpha', b: 'beta', m: 'milestone' } as Record<string, string>)[value] ?? value;
  return { kind: 'string', value: ALIASES[value] ?? value };
}

function parseItem(isDigit: boolean, text: string): Item {
  return isDigit ? { kind: 'int', value: BigInt(text) } : stringItem(text, false);
}

/** A string that orders qualifiers correctly under plain string comparison. */
function comparableQualifier(value: string): string {
  const i = QUALIFIERS.indexOf(value);
  return i === -1 ? `${QUALIFIERS.length}-${value}` : String(i);
}

function isNull(item: Item): boolean {
  if (item.kind === 'int') return item.value === 0n;
  if (item.kind === 'string') return comparableQualifier(item.value) === RELEASE_INDEX;
  return item.items.length === 0;
}

function normalize(list: Item[]): void {
  for (let i = list.length - 1; i >= 0; i--) {
    const item = list[i]!;
    if (isNull(item)) list.splice(i, 1);
    else if (item.kind !== 'list') break;
  }
}

function sign(n: number): number {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Compares an item with another item, or with "nothing" (the shorter side of a list). */
function compareItems(a: Item, b: Item | undefined): number {
  if (a.kind === 'int') {
    if (!b) return a.value === 0n ? 0 : 1;
    if (b.kind === 'int') return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
    return 1; // 1.1 > 1-sp and 1.1 > 1-1
  }
  if (a.kind === 'string') {
    if (!b) return sign(compareStrings(comparableQualifier(a.value), RELEASE_INDEX)); // 1-rc < 1 < 1-sp
    if (b.kind === 'string') return sign(compareStrings(comparableQualifier(a.value), comparableQualifier(b.value)));
    return -1; // 1.any < 1.1 and 1.any < 1-1
  }
  if (!b) return a.items.length === 0 ? 0 : compareItems(a.items[0]!, undefined);
  if (b.kind === 'int') return -1; // 1-1 < 1.0.x
  if (b.kind === 'string') return 1; // 1-1 > 1-sp
  const length = Math.max(a.items.length, b.items.length);
  for (let i = 0; i < length; i++) {
    const l = a.items[i];
    const r = b.items[i];
    const result = l ? compareItems(l, r) : r ? -compareItems(r, undefined) : 0;
    if (result !== 0) return result;
  }
  return 0;
}

function parse(version: string): Item {
  const text = version.toLowerCase();
  const root: Item[] = [];
  let list = root;
  const stack: Item[][] = [root];
  const openSubList = () => {
    const sub: Item[] = [];
    list.push({ kind: 'list', items: sub });
    list = sub;
    stack.push(sub);
  };
  let isDigit = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '.' || c === '-') {
      list.push(i === start ? { kind: 'int', value: 0n } : parseItem(isDigit, text.slice(start, i)));
      start = i + 1;
      if (c === '-') openSubList();
    } else if (c >= '0' && c <= '9') {
      if (!isDigit && i > start) {
        list.push(stringItem(text.slice(start, i), true));
        start = i;
        openSubList();
      }
      isDigit = true;
    } else {
      if (isDigit && i > start) {
        list.push(parseItem(true, text.slice(start, i)));
        start = i;
        openSubList();
      }
      isDigit = false;
    }
  }
  if (text.length > start) list.push(parseItem(isDigit, text.slice(start)));
  for (let sub = stack.pop(); sub; sub = stack.pop()) normalize(sub);
  return { kind: 'list', items: root };
}

/** Maven's order of two version strings: negative, zero or positive. Every string is a version. */
export function compareMavenVersions(a: string, b: string): number {
  return compareItems(parse(a), parse(b));
}
