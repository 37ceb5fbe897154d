// Plain-text summary, headline and title from the item's own words.
import removeMarkdown from 'remove-markdown';
import type { Item } from '../item.js';

/** Cuts at a word boundary and marks the cut with an ellipsis. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
}

// The evidence, the model, the rules and the summary each ask for the same item's details in turn:
// remembering the last few answers converts each text once instead of four times.
const recentPlainText = new Map<string, string>();

/** Markdown to one paragraph of plain text: no headings, code blocks, links or emphasis marks. */
export function plainText(markdown: string): string {
  const known = recentPlainText.get(markdown);
  if (known !== undefined) return known;
  const text = convertMarkdown(markdown);
  if (recentPlainText.size >= 8) recentPlainText.delete(recentPlainText.keys().next().value!);
  recentPlainText.set(markdown, text);
  return text;
}

// HTML's entities for the characters Markdown text escapes; remove-markdown leaves them as written.
const entities: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&amp;': '&', '&quot;': '"', '&#39;': "'", '&nbsp;': ' ' };

function convertMarkdown(markdown: string): string {
  const withoutBlocks = markdown
    .replace(/```[\s\S]*?(```|$)/g, ' ')
    // A heading answered by a bare "No" (GitHub's form: "### Workarounds", its italic prompt, "No")
    // says nothing once the heading is gone.
    .replace(/^\s{0,3}#{1,6}\s.*\n(?:\s*_[^_\n]+_\s*\n)?\s*(?:no|none|n\/a)\.?\s*$/gim, ' ')
    .replace(/^\s{0,3}#{1,6}\s.*$/gm, ' ')
    .replace(/^\s*(Summary|Impact|Details|Description|Patches|Workarounds|References|PoC|Proof of Concept)\s*:?\s*$/gim, ' ')
    // A line of nothing but links or badges ("[localhost](http://localhost:8888)" above the first
    // heading) is no sentence: flattened, its link text would open the summary.
    .replace(/^\s*(?:!?\[[^\]\n]*\]\([^)\s]*\)\s*)+$/gm, ' ');
  return removeMarkdown(withoutBlocks, { gfm: true, useImgAltText: false })
    .replace(/&(?:lt|gt|amp|quot|#39|nbsp);/g, (entity) => entities[entity]!)
    .replace(/\s+/g, ' ')
    .trim();
}

// Sentences by ICU's rules (Intl.Segmenter): a full stop inside a number, a version, a file or
// domain name or "e.g." ends nothing. V8 applies none of CLDR's abbreviation suppressions, so a
// break after a title or an initialism ("Mr. Smith", "the U.S. Department") is undone here: a
// summary may then hold one sentence fewer, never end on an abbreviation.
const sentenceSegmenter = new Intl.Segmenter('en', { granularity: 'sentence' });
const endsInAbbreviation =
  /(?:\b(?:[A-Z]\.){2,}|\b(?:Mr|Mrs|Ms|Dr|Prof|Sr|Jr|St|Gen|Gov|Sen|Rep|Inc|Corp|Ltd|Co|No|Nos|Fig|Figs|Vol|vs|cf|al|approx|ca|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.)\s*$/;

/** The text's sentences, each with its trailing space, in order; only as far as the caller reads. */
export function* sentencesOf(text: string): Generator<string> {
  let pending = '';
  for (const { segment } of sentenceSegmenter.segment(text)) {
    pending += segment;
    if (!endsInAbbreviation.test(pending)) {
      yield pending;
      pending = '';
    }
  }
  if (pending) yield pending;
}

/** The first whole sentences of the text, up to `max` characters. */
export function summarise(text: string, max = 600): string {
  if (text.length <= max) return text;
  let out = '';
  for (const sentence of sentencesOf(text)) {
    if (out.length + sentence.length > max) break;
    out += sentence;
  }
  return out.trim() || truncate(text, max);
}

// GitHub's repository-advisory form pre-fills these prompts; many advisories keep them.
const templatePrompts = [
  'What kind of vulnerability is it?',
  'Who is impacted?',
  'Has the problem been patched?',
  'What versions should users upgrade to?',
  'Is there a way for users to fix or remediate the vulnerability without upgrading?',
  'Are there any links users can visit to find out more?',
  'If you have any questions or comments about this advisory:',
  'Open an issue in example link to repo',
  'Email us at example email address',
];
const templatePrompt = new RegExp(templatePrompts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+')).join('|'), 'gi');

/** Plain text without the advisory form's template prompts. */
export function withoutTemplates(text: string): string {
  return text.replace(templatePrompt, ' ').replace(/\s+/g, ' ').trim();
}

export function titleOf(item: Item): string {
  return truncate(item.title.replace(/\s+/g, ' ').trim(), 300);
}

export function summaryOf(item: Item): string {
  if (item.summary) return summarise(withoutTemplates(plainText(item.summary)), 1200);
  const details = withoutTemplates(plainText(item.details));
  return details ? summarise(details) : titleOf(item);
}

const headlineMax = 120;

/** Whether the title names the package: its name, its last path segment or its first word. */
function names(title: string, pkg: string): boolean {
  const lower = title.toLowerCase().replace(/[_\s]+/g, '-');
  const last = pkg.toLowerCase().split('/').at(-1)!;
  const first = last.split(/[-_.]/)[0]!;
  return [pkg.toLowerCase(), last, ...(first.length >= 4 ? [first] : [])].some((n) => lower.includes(n.replace(/[_\s]+/g, '-')));
}

// A title that says nothing but that there is a problem: the weakness says more.
const emptyTitle = /^(?:[\w./-]+\s+)?(?:security\s+)?(?:vulnerability|issue|bug|flaw|advisory)?$/i;

/**
 * A short title that never says less than the source's: advisories keep their own title,
 * prefixed with the package when it does not name it and followed by the CVE (or advisory id)
 * when room allows; the CWE's short name stands in only for a title that names no problem at all
 * ("GHSA-...", "langchain vulnerability"). Other items: the source's headline, else the title.
 */
export function headlineOf(item: Item, packages: string[], weakness: string | undefined): string {
  if (item.headline) return truncate(item.headline, headlineMax);
  const title = titleOf(item);
  if (item.format !== 'osv' || packages.length === 0) return truncate(title, headlineMax);
  const id = item.cveIds[0] ?? item.sourceId;
  const pkgs = packages.length > 2 ? `${packages.slice(0, 2).join(', ')} and others` : packages.join(', ');
  const generic = title === item.sourceId || emptyTitle.test(title);
  const described = generic && weakness ? weakness : title;
  const prefixed = generic || !packages.some((p) => names(title, p)) ? `${pkgs}: ${described}` : described;
  const candidates = described.includes(id) ? [prefixed, described] : [`${prefixed} (${id})`, prefixed, described];
  return candidates.find((c) => c.length <= headlineMax) ?? truncate(described, headlineMax);
}
