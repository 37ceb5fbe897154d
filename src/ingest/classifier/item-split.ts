// The frozen test split of the labelled text items (issue 38), fixed before any tuning: whole
// publishers, one whole year and one whole arXiv listing that no rule, feature or setting may be
// chosen from. Tuning uses the folds of the rest (items.ts); `npm run eval` reports this split
// first. The rule, not a list, is frozen, so items added later fall on the side it puts them.
import { createHash } from 'node:crypto';

/** Every item published in this year is held out, whoever published it. */
export const testYear = '2024';
/** A whole arXiv listing held out: research from a source the model never learned from. */
export const testListing = 'arxiv-security-keyword';
/** One press publisher in this many is held out with all its items, by a hash of its name. */
const publisherShare = 5;

/** The publisher behind a press source: `news:The Hacker News` and `feed:The Hacker News` are one. */
export function publisherOf(source: string): string {
  return source
    .slice(source.indexOf(':') + 1)
    .toLowerCase()
    .replace(/\s+[–-]\s+.*$/, '')
    .replace(/^https?:\/\/(www\.)?/, '')
    .trim();
}

export const isPress = (source: string) => !source.startsWith('arxiv-');

/** Structural, not items.ts's LabelledItem: items.ts imports this module. */
export function inTestSplit(l: { source: string; publishedAt: string }): boolean {
  if (l.publishedAt.startsWith(testYear) || l.source === testListing) return true;
  if (!isPress(l.source)) return false;
  const h = createHash('sha256')
    .update(`secwire-test-split:${publisherOf(l.source)}`)
    .digest('hex');
  return Number.parseInt(h.slice(0, 8), 16) % publisherShare === 0;
}
