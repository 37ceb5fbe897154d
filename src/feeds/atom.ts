// Atom 1.0 documents (RFC 4287) of issues and of daily digests, written by the `feed` library.
// Every text it is given is escaped first: it puts titles and summaries into type="html"
// elements, where an issue title such as "<script>" must stay text. A digest's Markdown is
// rendered to HTML by markdown-it, which escapes any HTML in the text and refuses javascript: and
// similar link targets, so a reader shows wrapped paragraphs and clickable links.
import { Feed } from 'feed';
import MarkdownIt from 'markdown-it';
import { digestPath, digestsPath, issuesPath } from '../api-paths.js';
import type { Digest, Prisma } from '../generated/prisma/client.js';
import { contentChangedAt } from '../issues/content-changed.js';
import { DATA_LICENSE } from '../data-license.js';

export const ATOM_MEDIA_TYPE = 'application/atom+xml; charset=utf-8';

/** Entries per feed document: `limit`, 50 by default, at most 100. */
export const FEED_LIMIT = { defaultLimit: 50, maxLimit: 100 };

/** Fields an issue entry shows. */
export const atomIssueSelect = {
  id: true,
  title: true,
  headline: true,
  summary: true,
  sourceUrl: true,
  publishedAt: true,
  source: true,
  changedHereAt: true,
  severity: true,
  issueType: true,
  labels: true,
} satisfies Prisma.IssueSelect;

export type AtomIssue = Prisma.IssueGetPayload<{ select: typeof atomIssueSelect }>;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The feed's own time: its newest entry's, or the epoch for an empty feed (never "now", so it is stable). */
const newest = (dates: Date[]) => new Date(Math.max(0, ...dates.map((d) => d.getTime())));

function feedOf(title: string, selfUrl: string, siteUrl: string, updated: Date): Feed {
  return new Feed({
    id: selfUrl,
    title,
    link: siteUrl,
    feedLinks: { atom: selfUrl },
    updated,
    generator: 'secwire',
    copyright: `CC BY 4.0 (${DATA_LICENSE.url})`,
  });
}

export function issuesAtom(issues: AtomIssue[], { selfUrl, origin }: { selfUrl: string; origin: string }, title = 'secwire: AI-security issues'): string {
  const updated = issues.map(contentChangedAt);
  const feed = feedOf(title, selfUrl, `${origin}${issuesPath}`, newest(updated));
  for (const [index, issue] of issues.entries()) {
    feed.addItem({
      id: `urn:uuid:${issue.id}`,
      title: escapeHtml(issue.headline ?? issue.title),
      link: issue.sourceUrl,
      date: updated[index]!,
      published: issue.publishedAt,
      description: issue.summary ? escapeHtml(issue.summary) : undefined,
      category: [`severity:${issue.severity}`, `issueType:${issue.issueType}`, ...issue.labels].map((term) => ({ term, name: term })),
    });
  }
  return feed.atom1();
}

const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

/** A digest's Markdown as the HTML of its Atom entry. */
export const digestHtml = (content: string) => markdown.render(content);

export function digestsAtom(digests: Digest[], { selfUrl, origin }: { selfUrl: string; origin: string }): string {
  const feed = feedOf('secwire: daily digests', selfUrl, `${origin}${digestsPath}`, newest(digests.map((d) => d.generatedAt)));
  for (const digest of digests) {
    feed.addItem({
      id: `${origin}${digestPath(digest.date)}`,
      title: `secwire daily digest: ${digest.date} (${digest.issueCount} ${digest.issueCount === 1 ? 'issue' : 'issues'})`,
      link: `${origin}${digestPath(digest.date)}`,
      date: digest.generatedAt,
      content: digestHtml(digest.content),
    });
  }
  return feed.atom1();
}
