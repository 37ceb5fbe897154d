// feed: an RSS 2.0 or Atom news feed, parsed by feedsmith. Each entry becomes a native item (title,
// link, date, plain-text summary) and goes through the classifier like any other item, which
// decides whether it is news, research or regulation, and whether it is about AI at all.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { parseFeed } from 'feedsmith';
import { plainText, truncate } from '../ingest/classifier/text.js';
import { SourceError } from './fetch.js';
import type { SourceHints } from '../ingest/item.js';
import { parseEntry } from '../ingest/parse.js';
import type { SourceRecordEntry } from './records.js';

type Text = string | { value?: string } | undefined;
const textOf = (value: Text) => (typeof value === 'string' ? value : (value?.value ?? '')).trim();
const withoutTags = (html: string) => plainText(html.replace(/<[^>]*>/g, ' ').replace(/&nbsp;/g, ' '));
// arXiv's listings open every summary with "arXiv:<id>v<n> Announce Type: new Abstract:": listing
// bookkeeping, not the abstract a reader (or the classifier) should see.
const arxivAnnouncement = /^arXiv:\S+ Announce Type: \S+\s+Abstract:\s*/;

interface Entry {
  title?: Text;
  link?: string;
  links?: { href?: string; rel?: string }[];
  guid?: Text;
  id?: string;
  pubDate?: string;
  published?: string;
  updated?: string;
  description?: Text;
  summary?: Text;
  content?: Text;
}

/** A native item for one entry, or undefined when it has no title, link or date to stand on. */
function nativeItemOf(entry: Entry, hints: SourceHints | undefined, summaries: boolean): Record<string, unknown> | undefined {
  const title = withoutTags(textOf(entry.title));
  const link = entry.link ?? entry.links?.find((l) => !l.rel || l.rel === 'alternate')?.href;
  const date = new Date(entry.pubDate ?? entry.published ?? entry.updated ?? '');
  if (!title || !link || Number.isNaN(date.getTime())) return undefined;
  const summary =
    summaries && truncate(withoutTags(textOf(entry.description) || textOf(entry.summary) || textOf(entry.content)).replace(arxivAnnouncement, ''), 5000);
  // The hints go into the record itself: a reclassify judges the stored record again, and a
  // changed hint changes every entry's fingerprint, so the next sync reads them again.
  return { title: truncate(title, 500), url: link, publishedAt: date.toISOString(), ...(summary ? { summary } : {}), ...(hints ? { sourceHints: hints } : {}) };
}

/**
 * `hints`: the source definition's defaults for its entries (issueType, labels); `summaries: false`
 * keeps no summary text (title, link and date only).
 */
export async function readFeed(
  path: string,
  hints?: SourceHints,
  { summaries = true }: { summaries?: boolean } = {},
): Promise<{ total: number; entries: AsyncIterable<SourceRecordEntry> }> {
  let parsed: ReturnType<typeof parseFeed>;
  // Loaded on the first feed read: its parsers are 3 MB of heap that a server without feed
  // sources would hold for nothing.
  const feedsmith = await import('feedsmith');
  try {
    parsed = feedsmith.parseFeed(await readFile(path, 'utf8'));
  } catch (err) {
    throw new SourceError(`not a readable RSS or Atom feed: ${(err as Error).message}`);
  }
  const feed = parsed.feed as { items?: Entry[]; entries?: Entry[] };
  const entries = feed.items ?? feed.entries ?? [];
  const records: SourceRecordEntry[] = entries.map((entry, index) => {
    const item = nativeItemOf(entry, hints, summaries);
    const key = textOf(entry.guid) || entry.id || entry.link || `#${index}`;
    return {
      key,
      fingerprint: createHash('sha256')
        .update(JSON.stringify(item ?? null))
        .digest('hex'),
      read: async () => {
        if (!item) throw new Error('entry has no title, link or date');
        return parseEntry(item);
      },
    };
  });
  return {
    total: records.length,
    entries: (async function* () {
      yield* records;
    })(),
  };
}
