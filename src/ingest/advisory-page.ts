// Which links are advisory pages: the record of one vulnerability (GitHub's advisory database or a
// repository's advisory, NVD, OSV, CVE's own pages, a vendor's advisory that names a CVE or GHSA
// id). A feed entry linking one is that advisory, not news about it: it carries the advisory's
// ids, so the store files it under the advisory's issue (store.ts). Any other page that names a
// CVE is an article about it: its own issue, keyed by its URL (row.ts).

const cvePattern = /\bCVE-\d{4}-\d{4,}\b/gi;
const ghsaPattern = /\bGHSA(?:-[23456789cfghjmpqrvwx]{4}){3}\b/gi;

/** One spelling per id, as the databases write them: CVE-2024-1234, GHSA-2jxw-4hm4-6w87. */
function spelled(id: string): string {
  if (/^cve-/i.test(id)) return id.toUpperCase();
  if (/^ghsa-/i.test(id)) return `GHSA-${id.slice(5).toLowerCase()}`;
  return id;
}
const unique = (ids: Iterable<string>) => [...new Set([...ids].map(spelled))];

/** CVE and GHSA ids a text names, in order of appearance. */
export const advisoryIdsIn = (text: string): string[] =>
  unique([...text.matchAll(cvePattern), ...text.matchAll(ghsaPattern)].sort((a, b) => a.index - b.index).map((m) => m[0]));

/** Pages that are one advisory, by host, and where in the URL its id sits. */
const databasePages: { host: RegExp; id: (url: URL) => string | undefined }[] = [
  { host: /^github\.com$/, id: (u) => /^\/(?:advisories|[^/]+\/[^/]+\/security\/advisories)\/(GHSA-[\w-]+)\/?$/i.exec(u.pathname)?.[1] },
  { host: /^nvd\.nist\.gov$/, id: (u) => /^\/vuln\/detail\/(CVE-\d{4}-\d{4,})\/?$/i.exec(u.pathname)?.[1] },
  { host: /^osv\.dev$/, id: (u) => /^\/vulnerability\/([^/]+)\/?$/.exec(u.pathname)?.[1] },
  { host: /^(www\.)?cve\.org$/, id: (u) => (/^\/CVERecord\/?$/i.test(u.pathname) ? (u.searchParams.get('id') ?? undefined) : undefined) },
  { host: /^cve\.mitre\.org$/, id: (u) => u.searchParams.get('name') ?? undefined },
];

// A vendor's advisory: a security-advisory path or host, and an id in the URL or the title.
const vendorAdvisoryPath = /\/(security[-_]?)?advisor(y|ies)\b|\/security[-_]bulletins?\b|\/psirt\b|\/security\/(cve|vulnerabilit(y|ies))\b/i;
const vendorAdvisoryHost = /^(security|psirt|msrc|advisories)\./i;

/**
 * The ids of the advisory a page is, or undefined when it is no advisory page. `title` is the
 * entry's title: a vendor advisory often names its CVE there rather than in its URL.
 */
export function advisoryPageIds(link: string, title: string): string[] | undefined {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return undefined;
  }
  const host = url.hostname.toLowerCase();
  const database = databasePages.find((p) => p.host.test(host));
  if (database) {
    const id = database.id(url);
    return id ? unique([id, ...advisoryIdsIn(title)]) : undefined;
  }
  if (!vendorAdvisoryPath.test(url.pathname) && !vendorAdvisoryHost.test(host)) return undefined;
  const ids = unique([...advisoryIdsIn(`${url.pathname}${url.search}`), ...advisoryIdsIn(title)]);
  return ids.length > 0 ? ids : undefined;
}
