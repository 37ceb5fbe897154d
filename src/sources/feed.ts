// feed: an RSS 2.0 or Atom news feed, parsed by feedsmith. Each entry becomes a native item (title,
// link, date, plain-text summary) and goes through the classifier like any other item, which
// decides whether it is news, research or regulation, and whether it is about AI at all.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { parseFeed } from 'feedsmith';
import { plainText, truncate } from '../ingest/classifier/text.js';
import { SourceError } from './fetch.js';
import type { SourceRecordEntry } from './records.js';

type Text = string | { value?: string } | undefined;
const textOf = (value: Text) => (typeof value === 'string' ? value : (value?.value ?? '')).trim();
const withoutTags = (html: string) => plainText(html.replace(/<[^>]*>/g, ' ').replace(/&nbsp;/g, ' '));

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
function nativeItemOf(entry: Entry): Record<string, unknown> | undefined {
  const title = withoutTags(textOf(entry.title));
  const link = entry.link ?? entry.links?.find((l) => !l.rel || l.rel === 'alternate')?.href;
  const date = new Date(entry.pubDate ?? entry.published ?? entry.updated ?? '');
  if (!title || !link || Number.isNaN(date.getTime())) return undefined;
  const summary = truncate(withoutTags(textOf(entry.description) || textOf(entry.summary) || textOf(entry.content)), 5000);
  return { title: truncate(title, 500), url: link, publishedAt: date.toISOString(), ...(summary ? { summary } : {}) };
}

export async function readFeed(path: string): Promise<{ total: number; entries: AsyncIterable<SourceRecordEntry> }> {
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
    const item = nativeItemOf(entry);
    const key = textOf(entry.guid) || entry.id || entry.link || `#${index}`;
    return {
      key,
      fingerprint: createHash('sha256').update(JSON.stringify(item ?? null)).digest('hex'),
      read: async () => {
        if (!item) throw new Error('entry has no title, link or date');
        return item;
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
