// RFC 8288 Link headers with rel="next" and rel="prev" on the list routes, beside the spec's
// `meta` (which stays as it is). The issue list's next link carries the opaque cursor of its last
// issue, so a client following links is not shifted by issues added meanwhile; prev steps back
// by offset. Added after the licence link, never in place of it (http/finish.ts).
import { encodeCursor } from '../issues/cursor.js';
import { edgeOf } from '../http/edge.js';
import { restBasePath } from '../rest/routes.js';

export interface ListBody {
  data: { id: string; publishedAt?: string }[];
  meta: { total: number; limit: number; offset: number };
}

/** The list paths, and whether their next link uses a cursor. */
const lists: Record<string, { cursor: boolean }> = {
  [`${restBasePath}/issues`]: { cursor: true },
  [`${restBasePath}/digests`]: { cursor: false },
};

function link(url: URL, changes: Record<string, string | undefined>, rel: string): string {
  const target = new URL(url);
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) target.searchParams.delete(name);
    else target.searchParams.set(name, value);
  }
  return `<${target.pathname}${target.search}>; rel="${rel}"`;
}

/** The next and prev links of a list answer at this URL (none for other paths). */
export function pagingLinks(url: URL, answer: ListBody): string[] {
  const list = lists[url.pathname];
  if (!list) return [];
  const { data, meta } = answer;
  const fromCursor = url.searchParams.has('cursor');
  const links: string[] = [];
  // After a cursor the remaining count is unknown: a full page may have a next one.
  const more = fromCursor ? data.length === meta.limit : meta.offset + data.length < meta.total;
  const last = data[data.length - 1];
  if (more && last) {
    links.push(
      list.cursor && last.publishedAt
        ? link(url, { cursor: encodeCursor({ publishedAt: last.publishedAt, id: last.id }), offset: undefined }, 'next')
        : link(url, { offset: String(meta.offset + meta.limit) }, 'next'),
    );
  }
  if (!fromCursor && meta.offset > 0) links.push(link(url, { offset: String(Math.max(0, meta.offset - meta.limit)) }, 'prev'));
  return links;
}

/** The paging links of a route's answer to this request at `url` (finish() adds them after the licence link). */
export function answerPagingLinks(url: URL, request: Request, response: Response): string[] {
  if (!lists[url.pathname] || request.method !== 'GET' || response.status !== 200) return [];
  // The route's answer as execution built it (a cached answer carries its links already).
  const answer = edgeOf(request).rest?.answer as ListBody | undefined;
  return answer ? pagingLinks(url, answer) : [];
}
