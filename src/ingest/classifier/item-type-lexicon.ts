// The press typer's own features (item-typer.ts): finer families of the two things
// docs/curation.md's issueType rule names, a regulator's, government's or court's act and a
// concrete event, each family a feature of its own in the title and in the summary. The words come
// from the policy's own wording (its "Fields for served items" and ambiguous-group rows) and from
// maintained public vocabularies named beside each family, never from the labelled items. The
// relevance model does not see these (the `y` prefixes are the typer's alone).
import type { Item } from '../item.js';
import { summaryChars } from './item-features.js';
import { plainText } from './text.js';

export const typeLexicon = {
  /** Laws and bills: the policy's "a law", "bill", "act"; EUR-Lex's act types (regulation, directive); the Federal Register's presidential documents (executive order). */
  law: /\b(laws?|bills?|acts?|legislat\w*|lawmakers?|regulations?|directives?|statutes?|treat(y|ies)|executive orders?)\b/i,
  /** A body's enforcement: the policy's "a ban, an investigation, a fine", "orders to staff", "a ruling", "a probe", "vetoes", "passes". */
  enforce:
    /\b(bans?|banned|banning|fines?|fined|penalt(y|ies)|probes?|probing|investigat\w*|inquir(y|ies)|orders?|ordered|rul(ing|ed)|vetoe?s?|vetoed|pass(es|ed)|enact\w*|adopt(s|ed)|sign(s|ed) into law)\b/i,
  /** Guidance: the policy's "published guidance, top-10 lists and frameworks", "a standard, a taxonomy"; EUR-Lex's recommendations. */
  guide: /\b(guidance|guidelines?|frameworks?|standards?|recommendations?|taxonom(y|ies)|top 10|best practices)\b/i,
  /** Who acts: the policy's "regulator, government, court or standards body", "AI safety institutes". */
  body: /\b(regulators?|watchdogs?|governments?|ministr(y|ies)|commission|parliament|congress|senate|lawmakers?|courts?|judges?|attorneys? general|authorit(y|ies)|agenc(y|ies)|safety institutes?)\b/i,
  /** A suit or complaint by a party: the policy makes a suit over a harm an `incident`, a complaint to a regulator in scope. */
  suit: /\b(sues?|sued|suing|lawsuits?|complaints?|class action)\b/i,
  /** Data disclosed: VERIS's confidentiality attribute (data disclosure), the policy's "leaked", "exposed", "chat histories indexed". */
  breach: /\b(breach(es|ed)?|leak(s|ed|ing)?|expos(ed|es|ing)|stolen|stole|hacked|compromised|indexed)\b/i,
  /** Fraud: VERIS's social action (phishing, pretexting) and the policy's "scammed", "voice clones and deepfakes in fraud". */
  fraud: /\b(scams?|scammed|scammers?|fraud\w*|swindl\w*|extort\w*|impersonat\w*|phish\w*)\b/i,
  /** Harm to a person: the policy's "harmed someone", "wrongful arrest", "a probe after a crash"; the AI Incident Database's harm to people. */
  harm: /\b(arrest(s|ed)?|killed|kills|died|deaths?|dead|injur\w*|crash(es|ed)?|suicide|wrongful(ly)?|victims?)\b/i,
  /** An AI service abused or attacked in a real event: the policy's "exploited", "hijacked", "banned accounts"; VERIS's misuse action. */
  abuse: /\b(exploited|hijacked|abused|misused|weaponi[sz]ed|accounts)\b/i,
} as const;

type TypeFamily = keyof typeof typeLexicon;
const families = Object.keys(typeLexicon) as TypeFamily[];

export const isLexiconFeature = (feature: string) => /^ys?:/.test(feature);

/** The typer's lexicon features: `y:` a family in the title, `ys:` in the summary's opening only (as item-features.ts cuts it). */
export function typeLexiconFeatures(item: Item): string[] {
  const summary = plainText(item.details).slice(0, summaryChars);
  const out: string[] = [];
  for (const f of families) {
    if (typeLexicon[f].test(item.title)) out.push(`y:${f}`);
    else if (typeLexicon[f].test(summary)) out.push(`ys:${f}`);
  }
  return out;
}
