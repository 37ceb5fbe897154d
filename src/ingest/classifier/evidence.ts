// Evidence that an item is about AI/ML software, each piece with its weight in log-odds: the
// catalogue (packages, repositories, organisations, hosts), the package names' own words, AI
// vocabulary in the title and details, ATLAS techniques and AI-first vendors. The learned model
// adds its score beside these (relevance.ts).
import type { Item } from '../item.js';
import { findPackage, inRegistryList, lookedUpSummary, repoOwner, type Catalogue, type CatalogueEntry } from './catalogue.js';
import { aiNameTokens, aiTerms, evidenceWeights, vendorAliases } from './tables.js';
import { plainText } from './text.js';

export type EvidenceKind =
  | 'catalogue-package'
  | 'registry-summary'
  | 'catalogue-repository'
  | 'catalogue-organisation'
  | 'listed-repository'
  | 'listed-organisation'
  | 'reference-host'
  | 'package-name'
  | 'repository-name'
  | 'term'
  | 'domain-term'
  | 'atlas'
  | 'ai-vendor'
  | 'model'
  /** Text items: a word of security, privacy or safety (items.ts). */
  | 'concern-term'
  /** Text items: AI as a defender's tool or a lure's bait, which counts against serving. */
  | 'tool-or-bait'
  /** Text items: a kind of evidence the decision needs and did not find. */
  | 'missing';

export interface Evidence {
  kind: EvidenceKind;
  /** What was found, as a person would check it ("PyPI:langchain (LangChain)"). */
  detail: string;
  weight: number;
}

export interface ItemEvidence {
  evidence: Evidence[];
  /** Catalogue entries the item's packages and repositories matched, best first. */
  entries: CatalogueEntry[];
}

// The evidence (twice) and the text model each ask for an item's repositories and hosts: found
// once per item (URL parsing was a tenth of the classifier's time).
const reposFound = new WeakMap<Item, { lower: string[]; asWritten: string[] }>();
const hostsFound = new WeakMap<Item, string[]>();

/** owner/name of GitHub repositories the item points at: references, Go module paths, OSV range repos. */
export function githubRepos(item: Item, lowerCase = true): string[] {
  let found = reposFound.get(item);
  if (!found) {
    const urls = [
      ...item.references,
      ...item.affected.map((a) => `https://${a.package.name}`),
      ...item.affected.flatMap((a) => (a.ranges ?? []).map((r) => r.repo ?? '')),
    ];
    const lower = new Set<string>();
    const asWritten = new Set<string>();
    for (const url of urls) {
      const match = /^(?:https?:\/\/)?(?:www\.)?github\.com\/([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)/i.exec(url);
      if (!match || match[1]!.toLowerCase() === 'advisories') continue;
      const repo = `${match[1]}/${match[2]!.replace(/\.git$/i, '')}`;
      asWritten.add(repo);
      lower.add(repo.toLowerCase());
    }
    found = { lower: [...lower], asWritten: [...asWritten] };
    reposFound.set(item, found);
  }
  return lowerCase ? found.lower : found.asWritten;
}

// huntr's bug bounty has been about AI/ML software (and the libraries it builds on) since August
// 2023. Before, as huntr.dev and then briefly huntr.com, it took all open source (a notes app's
// stored XSS in January 2023), so a huntr.com link on an older advisory says what huntr.dev says.
const huntrAiOnlySince = Date.UTC(2023, 7, 1);

export function referenceHosts(item: Item): string[] {
  let found = hostsFound.get(item);
  if (!found) {
    const hosts = new Set<string>();
    for (const url of item.references) {
      try {
        const host = new URL(url).hostname.toLowerCase().replace(/^www\./, '');
        hosts.add(host === 'huntr.com' && item.publishedAt.getTime() < huntrAiOnlySince ? 'huntr.dev' : host);
      } catch {
        /* not a URL: nothing to learn from it */
      }
    }
    found = [...hosts];
    hostsFound.set(item, found);
  }
  return found;
}

/**
 * Lower-case words of a package or repository name, split at separators and case changes:
 * "edu.stanford.nlp:stanford-corenlp" -> edu, stanford, nlp, corenlp; "FlowiseAI" -> flowise, ai.
 */
export const nameTokens = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

function aiNameToken(token: string): boolean {
  return aiNameTokens.exact.has(token) || aiNameTokens.affix.test(token);
}

/** The AI words among a name's tokens, single ("llm") or as an adjacent pair ("machine learning"). */
function aiNameWords(tokens: string[]): string[] {
  const words = tokens.filter((t, i) => aiNameToken(t) && !aiNameTokens.notBefore[t]?.has(tokens[i + 1] ?? ''));
  for (const [a, b] of aiNameTokens.pairs) {
    if (tokens.some((t, i) => t === a && tokens[i + 1]?.startsWith(b))) words.push(`${a} ${b}`);
  }
  return words;
}

const aiVendors = new Set(vendorAliases.filter((v) => v.ai).map((v) => v.vendor));

export function collectEvidence(item: Item, catalogue: Catalogue, vendors: string[]): ItemEvidence {
  const evidence: Evidence[] = [];
  const entries: CatalogueEntry[] = [];
  const w = evidenceWeights;

  for (const { package: pkg } of item.affected) {
    const entry = findPackage(catalogue, pkg.ecosystem, pkg.name);
    if (entry) {
      entries.push(entry);
      evidence.push({ kind: 'catalogue-package', detail: `${pkg.ecosystem}:${pkg.name} (${entry.vendor}; ${entry.group})`, weight: w.cataloguePackage });
    } else if (inRegistryList(catalogue, pkg.ecosystem, pkg.name)) {
      evidence.push({ kind: 'registry-summary', detail: `${pkg.ecosystem}:${pkg.name}`, weight: w.registrySummary });
    } else {
      // The same evidence from a summary the service looked up, since no list had the package.
      const summary = lookedUpSummary(catalogue, pkg.ecosystem, pkg.name);
      if (summary)
        evidence.push({ kind: 'registry-summary', detail: `${pkg.ecosystem}:${pkg.name} (looked up: ${summary.slice(0, 120)})`, weight: w.registrySummary });
    }
  }
  const repos = githubRepos(item);
  for (const repo of repos) {
    const entry = catalogue.repos.get(repo);
    if (!entry) continue;
    entries.push(entry);
    evidence.push({ kind: 'catalogue-repository', detail: `github.com/${repo} (${entry.vendor})`, weight: w.catalogueRepository });
  }
  // Curated lists speak only where the hand catalogue is silent, so one project is not counted twice.
  const listed = repos.filter((repo) => !catalogue.repos.has(repo) && catalogue.listedRepos.has(repo));
  if (listed.length > 0)
    evidence.push({
      kind: 'listed-repository',
      detail: listed
        .slice(0, 3)
        .map((r) => `github.com/${r}`)
        .join(', '),
      weight: w.listedRepository,
    });
  for (const owner of new Set(repos.map(repoOwner))) {
    const org = catalogue.orgs.get(owner);
    if (org) {
      evidence.push({ kind: 'catalogue-organisation', detail: `github.com/${owner} (${org.vendor})`, weight: w.catalogueOrganisation });
      continue;
    }
    const project = catalogue.listedOrgs.get(owner);
    if (project && listed.length === 0)
      evidence.push({ kind: 'listed-organisation', detail: `github.com/${owner} (owner of ${project})`, weight: w.listedOrganisation });
  }
  for (const host of referenceHosts(item)) {
    const known = catalogue.hosts.get(host);
    if (known) evidence.push({ kind: 'reference-host', detail: host, weight: known.weight });
  }

  const tokens = new Set(item.affected.flatMap((a) => aiNameWords(nameTokens(a.package.name))));
  if (tokens.size > 0) evidence.push({ kind: 'package-name', detail: [...tokens].join(', '), weight: w.packageName });
  // The same words in the GitHub owner or repository name ("FlowiseAI/Flowise", "guardrails-ai/guardrails").
  // Case matters here: "FlowiseAI" says "AI", "flowiseai" does not.
  const aiRepos = githubRepos(item, false).filter((repo) => repo.split('/').some((part) => aiNameWords(nameTokens(part)).length > 0));
  if (aiRepos.length > 0) evidence.push({ kind: 'repository-name', detail: aiRepos.slice(0, 3).join(', '), weight: w.packageName });

  const text = `${item.title}\n${plainText(item.details)}`;
  const terms = [...new Set((text.match(new RegExp(aiTerms.strong.source, 'gi')) ?? []).map((t) => t.toLowerCase()))];
  if (terms.length > 0) {
    evidence.push({ kind: 'term', detail: terms.slice(0, 5).join(', '), weight: Math.min(w.termFirst + w.termMore * (terms.length - 1), w.termMax) });
  }
  // Addresses are the references' business (hosts, repositories): "huntr.ai" in a link is no word of the text.
  const prose = text.replace(/\b(https?:\/\/|www\.)\S+/gi, ' ').replace(/\b[\w-]+(\.[\w-]+)+\/\S*/g, ' ');
  const domainWords = (prose.match(new RegExp(aiTerms.domain.source, 'gi')) ?? []).map((t) => t.toLowerCase().replace(/\s+/g, ' '));
  // Product names written in camel case carry the field's words too: "KubeAI", "PyTorch", "vLLM".
  const products = (prose.match(/\b[A-Za-z0-9]*[a-z0-9][A-Z][A-Za-z0-9]*\b/g) ?? []).filter((word) => aiNameWords(nameTokens(word)).length > 0);
  const domain = [...new Set([...domainWords, ...products.map((p) => p.toLowerCase())])].filter((t) => !terms.includes(t));
  if (domain.length > 0) {
    evidence.push({
      kind: 'domain-term',
      detail: domain.slice(0, 5).join(', '),
      weight: Math.min(w.domainFirst + w.domainMore * (domain.length - 1), w.domainMax),
    });
  }
  if (item.atlasHints.length > 0) evidence.push({ kind: 'atlas', detail: item.atlasHints.join(', '), weight: w.atlas });
  // Vendors speak for native items only: an advisory's packages say more, and vendor spellings
  // are product names the catalogue already holds.
  if (item.format === 'native') {
    const ai = vendors.filter((v) => aiVendors.has(v));
    if (ai.length > 0) evidence.push({ kind: 'ai-vendor', detail: ai.join(', '), weight: w.aiVendor });
  }
  return { evidence, entries };
}
