// The text items' features (issue 38), built to carry to publishers the model never saw: the
// title's and the summary's words and word pairs apart (a headline's "leak" is not an abstract's),
// character 4-grams of the title's words (GPT-5.2, DeepSeek-R1, "jailbreaking" share pieces with
// names and forms the training set lacks), and an AI-system gazetteer built from maintained public
// lists and the policy's own names of AI systems (data/catalogue/gazetteer.json,
// scripts/curation/build-gazetteer.py): a never-seen model family or assistant still lights the
// gazetteer's feature; and a concern lexicon (item-lexicon.ts), alone and beside an AI system. Nothing here is learned from the
// labelled set; the publisher (the item's own host) is left out so no feed is learned by name.
import { readFileSync } from 'node:fs';
import type { Item } from '../item.js';
import { concernFamilies } from './item-lexicon.js';
import { toolOrBait } from './tables.js';
import { plainText } from './text.js';

export const gazetteerUrl = new URL('../../../data/catalogue/gazetteer.json', import.meta.url);
const categories = ['assistants', 'modelFamilies', 'companies', 'libraries', 'applications'] as const;
type Category = (typeof categories)[number];

interface Gazetteer {
  /** One-word names, and names of several words by their first word (matched on the normalised text). */
  words: Map<string, Category>;
  phrases: Map<string, [string[], Category][]>;
}

let gazetteer: Gazetteer | undefined;
function loadGazetteer(): Gazetteer {
  if (gazetteer) return gazetteer;
  const data = JSON.parse(readFileSync(gazetteerUrl, 'utf8')) as Record<Category, string[]>;
  const g: Gazetteer = { words: new Map(), phrases: new Map() };
  for (const category of categories)
    for (const name of data[category]) {
      const [first, ...rest] = name.split(/\s+/) as [string, ...string[]];
      if (rest.length === 0) {
        if (!g.words.has(name)) g.words.set(name, category);
      } else g.phrases.set(first, [...(g.phrases.get(first) ?? []), [rest, category]]);
    }
  gazetteer = g;
  return g;
}

/** The gazetteer categories a text names. */
export function gazetteerHits(text: string): Set<Category> {
  const g = loadGazetteer();
  const lower = ` ${text
    .toLowerCase()
    .replace(/[^a-z0-9.+&·\-_ ]+/g, ' ')
    .replace(/\s+/g, ' ')} `;
  const hits = new Set<Category>();
  const tokens = lower.split(' ');
  tokens.forEach((token, at) => {
    const found = g.words.get(token) ?? g.words.get(token.replace(/[.\-_]+$/, ''));
    if (found) hits.add(found);
    for (const [rest, category] of g.phrases.get(token) ?? []) if (rest.every((word, i) => tokens[at + 1 + i] === word)) hits.add(category);
  });
  return hits;
}

const stopwords = new Set(
  'the and for with that this from are was were has have had not but its can all any may via into when which who will would than then there their been being such also only other more most some these those use used uses using our out you your one two new get set to of in on an at by as or is it be we us if so no do up than into over under about between through'.split(
    ' ',
  ),
);

const wordsOf = (text: string) => (text.toLowerCase().match(/[a-z][a-z0-9+]{1,29}/g) ?? []).filter((w) => w.length > 2 && !stopwords.has(w));

function wordsAndPairs(prefix: string, text: string, out: Set<string>): void {
  const words = wordsOf(text);
  for (const w of words) out.add(`${prefix}:${w}`);
  for (let i = 1; i < words.length; i++) out.add(`${prefix}b:${words[i - 1]} ${words[i]}`);
}

/** Summaries are cut to their opening: an abstract's tenth sentence says little of its subject. */
export const summaryChars = 600;

export function itemFeatures(item: Item): string[] {
  const out = new Set<string>();
  const summary = plainText(item.details).slice(0, summaryChars);
  wordsAndPairs('t', item.title, out);
  wordsAndPairs('s', summary, out);
  for (const word of item.title.toLowerCase().match(/[a-z0-9][a-z0-9.+-]{2,}/g) ?? []) {
    const padded = `_${word}_`;
    for (let i = 0; i + 4 <= padded.length; i++) out.add(`c:${padded.slice(i, i + 4)}`);
  }
  const inTitle = gazetteerHits(item.title);
  for (const c of inTitle) out.add(`g:${c}`);
  const inSummary = gazetteerHits(summary);
  for (const c of inSummary) if (!inTitle.has(c)) out.add(`gs:${c}`);
  // The policy's conjunction (docs/curation.md): a concern (item-lexicon.ts) beside an AI system,
  // in the title, or anywhere; a headline says "AI" where a gazetteer has no name.
  const concernT = concernFamilies(item.title);
  const concernS = concernFamilies(summary);
  for (const f of concernT) out.add(`k:${f}`);
  for (const f of concernS) if (!concernT.includes(f)) out.add(`ks:${f}`);
  // A defender's tool or a lure names a concern beside an AI system that is not its object.
  const usedAsTool = !toolOrBait.againstTheModel.test(item.title) && (toolOrBait.defence.test(item.title) || toolOrBait.lure.test(item.title));
  const aiT = !usedAsTool && (inTitle.size > 0 || /\bai\b/i.test(item.title));
  const aiS = !usedAsTool && (aiT || inSummary.size > 0 || /\bai\b/i.test(summary));
  if (aiT) for (const f of concernT) out.add(`x:${f}`);
  if (aiS) for (const f of new Set([...concernT, ...concernS])) out.add(`xs:${f}`);
  if (aiT && concernT.length > 0) out.add('x:any');
  if (aiS && concernT.length + concernS.length > 0) out.add('xs:any');
  return [...out].sort();
}
