// When an issue's content last changed, as a reader of its Atom entry or OSV record should see it:
// the upstream record's `modified` while the content is the upstream's (a native item, which has
// none, counts from its publication), and the time of our own change once this service changed it
// (changedHereAt: signals applied, a new classification). Never the time it was stored here: a
// sample seeded today is not today's news.
import type { SourceRecord } from '../ingest/item.js';

export interface ContentDates {
  source: unknown;
  publishedAt: Date;
  changedHereAt: Date | null;
}

export function contentChangedAt({ source, publishedAt, changedHereAt }: ContentDates): Date {
  const modified = (source as Pick<SourceRecord, 'modified'> | null)?.modified;
  const upstream = modified ? new Date(modified) : publishedAt;
  const at = Number.isNaN(upstream.getTime()) ? publishedAt : upstream;
  return changedHereAt && changedHereAt > at ? changedHereAt : at;
}
