// Registry lookups: the service learns what an unknown PyPI or npm package is from its registry
// summary, as the snapshot lists (data/catalogue/registry-*.txt) know the packages that existed
// when they were built. eval/README.md measures this knowledge ("registry lookup"): with it, the
// classifier finds AI/ML software no list or catalogue names, when its summary says so.
//
// One run asks about every package of an unserved issue that no list names and no stored profile
// answers yet (or answered over a month ago), 200 at a time: it stores each step's answers, then
// judges again the issues of the packages whose answer changed, through reclassify, so a newly
// served one is published once.
import pLimit from 'p-limit';
import { prismaRead } from '../db/driver-read.js';
import { defaultCatalogue, findPackage, inRegistryList } from '../ingest/classifier/catalogue.js';
import { packageKey } from '../ingest/classifier/packages.js';
import { reclassify, type ReclassifyResult } from '../ingest/reclassify.js';
import { issueIdsWithPackages, readUnservedPackageRefs } from '../issues/reads.js';
import type { IngestDeps } from '../ingest/ingest.js';
import { staleProfiles, storedProfiles, storeProfiles } from './profiles.js';
import { aiVocabulary, fetchSummary, LookupFailed, lookupEcosystems, type LookupEcosystem, type RegistryUrls, type Summary } from './summaries.js';

const refreshAfterMs = 30 * 24 * 3600 * 1000;

export interface LookupOptions {
  /** Requests in flight at once, over both registries. */
  concurrency?: number;
  timeoutMs?: number;
  onProgress?: (done: number, total: number) => void;
  /** Publish the events of newly served issues now (default); the CLI leaves them to the server's relay. */
  relay?: boolean;
  /** Once aborted, no further request starts and nothing is stored: the next run asks again. */
  signal?: AbortSignal;
  /** Ask only about these issues' packages (what an ingest just stored); default all unserved issues'. */
  issueIds?: string[];
}

export interface LookupResult {
  asked: number;
  found: number;
  missing: number;
  /** Not answered (network, 5xx): asked again on the next run. */
  failed: number;
  /** Packages whose summary now speaks of AI/ML and did not before, or the other way round. */
  changed: number;
  /** The issues of those packages, judged again; null when no answer changed. */
  reclassified: ReclassifyResult | null;
}

interface Answer {
  ecosystem: LookupEcosystem;
  name: string;
  status: 'found' | 'missing' | 'failed';
  summary: string | null;
  aiSummary: boolean;
}

/**
 * PyPI and npm packages of unserved issues that no list names and no profile answers yet, and
 * every profile over a month old (its package may be served because of it).
 */
async function packagesToAsk(deps: IngestDeps, now: Date, issueIds?: string[]): Promise<{ ecosystem: LookupEcosystem; name: string }[]> {
  const refs = await readUnservedPackageRefs(prismaRead(deps.prisma), [...lookupEcosystems], issueIds);
  const catalogue = defaultCatalogue();
  const unknown = new Map<string, { ecosystem: LookupEcosystem; name: string }>();
  for (const { ecosystem, name } of refs) {
    if (findPackage(catalogue, ecosystem, name) || inRegistryList(catalogue, ecosystem, name)) continue;
    unknown.set(`${ecosystem}:${packageKey(ecosystem, name)}`, { ecosystem: ecosystem as LookupEcosystem, name: packageKey(ecosystem, name) });
  }
  for (const p of await storedProfiles(deps.prisma, [...unknown.values()])) unknown.delete(`${p.ecosystem}:${p.name}`);
  const stale = await staleProfiles(deps.prisma, new Date(now.getTime() - refreshAfterMs));
  const ask = [...unknown.values(), ...stale.map((p) => ({ ecosystem: p.ecosystem as LookupEcosystem, name: p.name }))];
  return ask.sort((a, b) => a.ecosystem.localeCompare(b.ecosystem) || a.name.localeCompare(b.name));
}

/** Packages asked, stored and judged again per step: a run cut short keeps what its steps did. */
const step = 200;

export async function lookUpRegistries(deps: IngestDeps, urls: RegistryUrls, options: LookupOptions = {}): Promise<LookupResult> {
  const now = new Date();
  const toAsk = await packagesToAsk(deps, now, options.issueIds);
  const limit = pLimit(options.concurrency ?? 8);
  const result: LookupResult = { asked: 0, found: 0, missing: 0, failed: 0, changed: 0, reclassified: null };
  const failures = new Map<string, number>();
  options.onProgress?.(0, toAsk.length);
  for (let start = 0; start < toAsk.length && !options.signal?.aborted; start += step) {
    const answers = await Promise.all(
      toAsk.slice(start, start + step).map(({ ecosystem, name }) =>
        limit(async (): Promise<Answer> => {
          let summary: Summary | undefined;
          try {
            if (!options.signal?.aborted) summary = await fetchSummary(urls, ecosystem, name, options.timeoutMs, options.signal);
          } catch (err) {
            if (!(err instanceof LookupFailed)) throw err;
            failures.set(err.message, (failures.get(err.message) ?? 0) + 1);
          }
          if (!summary) return { ecosystem, name, status: 'failed', summary: null, aiSummary: false };
          if (summary.status === 'missing') return { ecosystem, name, status: 'missing', summary: null, aiSummary: false };
          return { ecosystem, name, status: 'found', summary: summary.summary, aiSummary: aiVocabulary.test(summary.summary ?? '') };
        }),
      ),
    );
    // Answers cut short by a stop are not answers: the next run asks again.
    if (options.signal?.aborted) break;
    const changed = await storeAnswers(deps, answers, now);
    result.asked += answers.length;
    for (const a of answers) result[a.status] += 1;
    result.changed += changed.length;
    if (changed.length > 0) {
      const ids = await issueIdsWithPackages(prismaRead(deps.prisma), changed);
      result.reclassified = addUp(result.reclassified, await reclassify(deps, { ids, relay: options.relay }));
    }
    options.onProgress?.(result.asked, toAsk.length);
  }
  // One line for all of them: a registry out of reach fails every package the same way.
  if (failures.size > 0) deps.log.warn('registry lookups failed; asked again on the next run', Object.fromEntries(failures));
  return result;
}

function addUp(a: ReclassifyResult | null, b: ReclassifyResult): ReclassifyResult {
  if (!a) return b;
  return {
    version: b.version,
    examined: a.examined + b.examined,
    updated: a.updated + b.updated,
    newlyServed: a.newlyServed + b.newlyServed,
    unserved: a.unserved + b.unserved,
    failed: a.failed + b.failed,
  };
}

/**
 * Stores the answers; a failed one stores nothing (an earlier answer stands; the package is asked
 * again next run). Answers the names whose aiSummary changed: only their issues can be judged
 * differently.
 */
async function storeAnswers(deps: IngestDeps, answers: Answer[], now: Date): Promise<string[]> {
  const stored = answers.filter((a) => a.status !== 'failed');
  if (stored.length === 0) return [];
  const before = await storedProfiles(deps.prisma, stored);
  const wasAi = new Map(before.map((p) => [`${p.ecosystem}:${p.name}`, p.aiSummary]));
  await storeProfiles(deps.prisma, stored, now);
  return stored.filter((a) => (wasAi.get(`${a.ecosystem}:${a.name}`) ?? false) !== a.aiSummary).map((a) => a.name);
}
