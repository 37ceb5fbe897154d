// The catalogue of AI/ML software (data/catalogue/ai-software.json): packages per ecosystem,
// GitHub repositories and organisations, and reference hosts. Evaluation builds it without the
// entries that name held-out packages, so a fold measures software it has never heard of.
import { readFileSync } from 'node:fs';
import { NameList, type Names } from './name-list.js';
import { packageKey } from './packages.js';
import type { AiComponent } from './tables.js';

export type Category = 'llm' | 'ml' | 'notebook';

export interface CatalogueEntry {
  vendor: string;
  category: Category;
  component: AiComponent | null;
  repo: string | null;
  /** Where the entry came from: its group id. */
  group: string;
}

type RawEntry = [name: string, vendor: string, repo: string | null, component?: AiComponent | null];

export interface CatalogueData {
  version: string;
  groups: { id: string; ecosystem: string; category: Category; component: AiComponent | null; entries: RawEntry[] }[];
  repositories: { entries: [repo: string, vendor: string, category: Category, component: AiComponent | null][] };
  organisations: { entries: [org: string, vendor: string, category: Category][] };
  hosts: { entries: [host: string, weight: number, generic: boolean][] };
}

/** What a fold must not know: names, repositories (owner/name), owners and hosts, all lower-case. */
export interface Exclusion {
  packages: Set<string>;
  repos: Set<string>;
  orgs: Set<string>;
  hosts: Set<string>;
  /**
   * `all` (catalogue-blind): the mechanically derived lists lose these names, repositories and
   * owners too, so only the advisory's own text, names and references can speak. `curated`: only
   * the curated lists lose them; the registry summaries still speak, as a lookup would tell.
   */
  lists?: 'all' | 'curated';
}

export interface Catalogue {
  version: string;
  /** `<ecosystem>:<key>`, or `*:<key>` for names matched in any ecosystem. */
  packages: Map<string, CatalogueEntry>;
  repos: Map<string, CatalogueEntry>;
  orgs: Map<string, { vendor: string; category: Category }>;
  hosts: Map<string, { weight: number; generic: boolean }>;
  /** PyPI and npm names whose registry summary speaks of AI/ML (data/catalogue/README.md), by lower-case ecosystem. */
  registry: Map<string, Names>;
  /** GitHub repositories (owner/name) that curated AI/ML lists describe in AI/ML words. */
  listedRepos: Names;
  /** Owners named after a listed repository ("flyteorg" for flyteorg/flyte): a project's own organisation, with that repository. */
  listedOrgs: Pick<Map<string, string>, 'get' | 'has'>;
  /**
   * Summaries the service looked up itself (src/registry) that speak of AI/ML, by
   * packageLookupKey: the registry lists' test applied to a package they do not name.
   */
  lookedUp?: ReadonlyMap<string, string>;
}

export const catalogueUrl = new URL('../../../data/catalogue/ai-software.json', import.meta.url);

const registryFiles = { pypi: 'registry-pypi.txt', npm: 'registry-npm.txt', github: 'registry-github.txt' };
/** The registry lists' inclusion test, which the service's own lookups apply too (src/registry). */
export const registryVocabularyUrl = new URL('registry-vocabulary.txt', catalogueUrl);
export const catalogueFiles = [catalogueUrl, registryVocabularyUrl, ...Object.values(registryFiles).map((f) => new URL(f, catalogueUrl))];

let registry: Map<string, Names> | undefined;
/** Derived from public registry data and curated lists alone, so the main evaluation keeps it in every fold. */
function registryNames(): Map<string, Names> {
  registry ??= new Map(
    Object.entries(registryFiles).map(([source, file]) => [source, new NameList(readFileSync(new URL(file, catalogueUrl), 'utf8').split('\n'))]),
  );
  return registry;
}

const bare = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');
/**
 * Whether the owner is the project's own organisation: "flyteorg/flyte", "ray-project/ray",
 * "weaviate/weaviate", but not "microsoft/deepspeed" or "apache/mxnet", whose owners publish
 * much else.
 */
export function projectOwner(repo: string): string | undefined {
  const [owner = '', name = ''] = repo.split('/');
  const o = bare(owner);
  const n = bare(name);
  const core = o.replace(/(org|project|ai|hq|io|dev|labs|inc|team|oss)$/, '');
  if (n.length < 3 || core.length < 3) return undefined;
  // Not the other way round: "azure/azure-tdsp-utilities" does not make Azure an AI project.
  return o === n || core === n || o.startsWith(n) ? owner.toLowerCase() : undefined;
}

let raw: CatalogueData | undefined;
export function catalogueData(): CatalogueData {
  raw ??= JSON.parse(readFileSync(catalogueUrl, 'utf8')) as CatalogueData;
  return raw;
}

const ecosystemKey = (ecosystem: string) => ecosystem.toLowerCase();
/** Go modules and Maven coordinates are matched without their ecosystem's casing quirks. */
export const packageLookupKey = (ecosystem: string, name: string) => `${ecosystemKey(ecosystem)}:${packageKey(ecosystem, name)}`;
export const repoOwner = (repo: string) => repo.split('/')[0]!.toLowerCase();

export function buildCatalogue(data: CatalogueData = catalogueData(), exclude?: Exclusion): Catalogue {
  const excludedPackage = (name: string) => exclude?.packages.has(name.toLowerCase()) || exclude?.packages.has(packageKey('pypi', name));
  const excludedRepo = (repo: string | null) => !!repo && (exclude?.repos.has(repo.toLowerCase()) || exclude?.orgs.has(repoOwner(repo)));
  const catalogue: Catalogue = { version: data.version, packages: new Map(), repos: new Map(), orgs: new Map(), hosts: new Map(), ...listsFor(exclude) };
  for (const group of data.groups) {
    for (const [name, vendor, repo, component] of group.entries) {
      if (excludedPackage(name) || excludedRepo(repo)) continue;
      const entry: CatalogueEntry = {
        vendor,
        category: group.category,
        component: component === undefined ? group.component : component,
        repo,
        group: group.id,
      };
      const key = group.ecosystem === '*' ? `*:${packageKey('pypi', name)}` : packageLookupKey(group.ecosystem, name);
      if (!catalogue.packages.has(key)) catalogue.packages.set(key, entry);
      if (repo && !catalogue.repos.has(repo.toLowerCase())) catalogue.repos.set(repo.toLowerCase(), entry);
    }
  }
  for (const [repo, vendor, category, component] of data.repositories.entries) {
    if (excludedRepo(repo) || catalogue.repos.has(repo.toLowerCase())) continue;
    catalogue.repos.set(repo.toLowerCase(), { vendor, category, component, repo, group: 'repositories' });
  }
  for (const [org, vendor, category] of data.organisations.entries) {
    if (exclude?.orgs.has(org.toLowerCase()) || catalogue.orgs.has(org.toLowerCase())) continue;
    catalogue.orgs.set(org.toLowerCase(), { vendor, category });
  }
  for (const [host, weight, generic] of data.hosts.entries) {
    if (!generic && exclude?.hosts.has(host)) continue;
    catalogue.hosts.set(host, { weight, generic });
  }
  return catalogue;
}

type Lists = Pick<Catalogue, 'registry' | 'listedRepos' | 'listedOrgs'>;

/** A name list less the names `excluded` says: answers as a filtered copy would, without copying. */
class NamesWithout implements Names {
  constructor(
    private readonly names: Names,
    private readonly excluded: (name: string) => boolean,
  ) {}

  has(name: string): boolean {
    return this.names.has(name) && !this.excluded(name);
  }

  *[Symbol.iterator](): Iterator<string> {
    for (const name of this.names) if (!this.excluded(name)) yield name;
  }
}

interface AllLists extends Lists {
  /** Each owner's listed repositories it is named after (projectOwner), in list order. */
  ownedRepos: Map<string, string[]>;
}
let allLists: AllLists | undefined;

function unfilteredLists(): AllLists {
  if (allLists) return allLists;
  const all = registryNames();
  const listedRepos = new Set(all.get('github')!);
  const ownedRepos = new Map<string, string[]>();
  for (const repo of listedRepos) {
    const owner = projectOwner(repo);
    if (owner) ownedRepos.set(owner, [...(ownedRepos.get(owner) ?? []), repo]);
  }
  allLists = {
    registry: new Map([...all].filter(([source]) => source !== 'github')),
    listedRepos,
    listedOrgs: new Map([...ownedRepos].map(([owner, repos]) => [owner, repos[0]!])),
    ownedRepos,
  };
  return allLists;
}

/**
 * The derived lists, less what a catalogue-blind fold must not know: views of the whole lists,
 * built once (training builds two catalogues per fold, and copying the lists for each was most of
 * a CLI sync's start-up).
 */
function listsFor(exclude?: Exclusion): Lists {
  const all = unfilteredLists();
  if (!exclude?.lists) return all;
  const blind = exclude;
  const registry =
    blind.lists === 'all'
      ? new Map<string, Names>([...all.registry].map(([source, names]) => [source, new NamesWithout(names, (n) => blind.packages.has(n))]))
      : all.registry;
  const excludedRepo = (repo: string) => blind.repos.has(repo) || blind.orgs.has(repoOwner(repo));
  const firstOwned = (owner: string) => all.ownedRepos.get(owner)?.find((repo) => !excludedRepo(repo));
  return {
    registry,
    listedRepos: new NamesWithout(all.listedRepos, excludedRepo),
    listedOrgs: { get: firstOwned, has: (owner) => firstOwned(owner) !== undefined },
  };
}

export function findPackage(catalogue: Catalogue, ecosystem: string, name: string): CatalogueEntry | undefined {
  return catalogue.packages.get(packageLookupKey(ecosystem, name)) ?? catalogue.packages.get(`*:${packageKey('pypi', name)}`);
}

/** Whether the package's own registry summary speaks of AI/ML, by the snapshot lists. */
export function inRegistryList(catalogue: Catalogue, ecosystem: string, name: string): boolean {
  return catalogue.registry.get(ecosystemKey(ecosystem))?.has(packageKey(ecosystem, name)) ?? false;
}

/** The summary a lookup found for a package, when it speaks of AI/ML. */
export const lookedUpSummary = (catalogue: Catalogue, ecosystem: string, name: string) => catalogue.lookedUp?.get(packageLookupKey(ecosystem, name));

let full: Catalogue | undefined;
/** The whole catalogue, as the service uses it. */
export function defaultCatalogue(): Catalogue {
  full ??= buildCatalogue();
  return full;
}
