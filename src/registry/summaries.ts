// What PyPI and npm say a package is: its one-line summary, from their JSON APIs (PyPI's
// /pypi/<name>/json `info.summary`, npm's /<name>/latest `description`), the same field the
// registry snapshot lists were built from (data/catalogue/README.md).
import { readFileSync } from 'node:fs';
import { registryVocabularyUrl } from '../ingest/classifier/catalogue.js';

export interface RegistryUrls {
  pypiUrl: string;
  npmUrl: string;
}

export type Summary = { status: 'found'; summary: string | null } | { status: 'missing' };

/** Ecosystems with a registry to ask, by their lower-case OSV name. */
export const lookupEcosystems = ['pypi', 'npm'] as const;
export type LookupEcosystem = (typeof lookupEcosystems)[number];

/** The pattern the snapshot lists were built with, so a lookup decides as the snapshot did. */
export const aiVocabulary = new RegExp(readFileSync(registryVocabularyUrl, 'utf8').trim(), 'i');

/** A registry that did not answer usefully: asked again on the next run. */
export class LookupFailed extends Error {}

function summaryUrl(urls: RegistryUrls, ecosystem: LookupEcosystem, name: string): string {
  const base = (ecosystem === 'pypi' ? urls.pypiUrl : urls.npmUrl).replace(/\/+$/, '');
  if (ecosystem === 'pypi') return `${base}/pypi/${encodeURIComponent(name)}/json`;
  // npm takes a scoped name as "@scope%2Fname": the "@" as is, the slash escaped.
  const scoped = name.startsWith('@');
  return `${base}/${scoped ? '@' : ''}${encodeURIComponent(scoped ? name.slice(1) : name)}/latest`;
}

function readSummary(ecosystem: LookupEcosystem, body: unknown): string | null {
  const value =
    ecosystem === 'pypi' ? (body as { info?: { summary?: unknown } } | null)?.info?.summary : (body as { description?: unknown } | null)?.description;
  if (typeof value !== 'string') return null;
  // Anybody can publish a package: its summary is kept short and without NUL, which PostgreSQL text refuses.
  const summary = value.replace(/\0/g, '').trim().slice(0, 500);
  return summary === '' ? null : summary;
}

export async function fetchSummary(urls: RegistryUrls, ecosystem: LookupEcosystem, name: string, timeoutMs = 10_000, stop?: AbortSignal): Promise<Summary> {
  const signal = stop ? AbortSignal.any([AbortSignal.timeout(timeoutMs), stop]) : AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(summaryUrl(urls, ecosystem, name), { headers: { accept: 'application/json' }, signal });
  } catch {
    throw new LookupFailed(`${ecosystem} registry did not answer`);
  }
  if (response.status === 404) {
    await response.body?.cancel();
    return { status: 'missing' };
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new LookupFailed(`${ecosystem} registry answered ${response.status}`);
  }
  try {
    return { status: 'found', summary: readSummary(ecosystem, await response.json()) };
  } catch {
    throw new LookupFailed(`${ecosystem} registry sent no JSON`);
  }
}
