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

function convertMarkdown(markdown: string): string {
  const withoutBlocks = markdown
    .replace(/```[\s\S]*?(```|$)/g, ' ')
    .replace(/^\s{0,3}#{1,6}\s.*$/gm, ' ')
    .replace(/^\s*(Summary|Impact|Details|Description|Patches|Workarounds|References|PoC|Proof of Concept)\s*:?\s*$/gim, ' ');
  return removeMarkdown(withoutBlocks, { gfm: true, useImgAltText: false }).replace(/\s+/g, ' ').trim();
}

/** The first sentences of the text, up to about `max` characters. */
export function summarise(text: string, max = 600): string {
  if (text.length <= max) return text;
  // Sentence by sentence, only as far as needed: matching every sentence of a long text first
  // cost more than the rest of the summary.
  const sentences = /[^.!?]+[.!?]+(\s|$)/g;
  let out = '';
  for (let found = sentences.exec(text); found; found = sentences.exec(text)) {
    if (out.length + found[0].length > max) break;
    out += found[0];
  }
  return out.trim() || truncate(text, max);
}

export function titleOf(item: Item): string {
  return truncate(item.title.replace(/\s+/g, ' ').trim(), 300);
}

export function summaryOf(item: Item): string {
  if (item.summary) return summarise(plainText(item.summary), 1200);
  const details = plainText(item.details);
  return details ? summarise(details) : titleOf(item);
}

/**
 * A short rewritten title. Advisories: "<package>: <weakness> (<CVE>)", from the CWE's short
 * name; otherwise the source's headline or the title cut to 90 characters.
 */
export function headlineOf(item: Item, packages: string[], weakness: string | undefined): string {
  if (item.headline) return truncate(item.headline, 120);
  if (item.format === 'osv' && packages.length > 0 && weakness) {
    const names = packages.length > 2 ? `${packages.slice(0, 2).join(', ')} and others` : packages.join(', ');
    const id = item.cveIds[0] ?? item.sourceId;
    return truncate(`${names}: ${weakness} (${id})`, 120);
  }
  return truncate(titleOf(item), 90);
}
