// CWE names, consequences and related CAPEC attack patterns, read from MITRE's CWE catalogue as
// the cwe-sdk package ships it (raw/cwe-dictionary.json). The 8 MB file is parsed once, on first
// use, into a small table; the parsed catalogue itself is not kept.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Impact } from './cvss.js';

export interface CweEntry {
  name: string;
  capecIds: string[];
  /** Security properties MITRE lists among the weakness's common consequences. */
  impacts: Impact[];
}

type Many<T> = T | T[] | undefined;
const many = <T>(value: Many<T>): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

interface RawWeakness {
  attr?: { '@_Name'?: string };
  Related_Attack_Patterns?: { Related_Attack_Pattern?: Many<{ attr?: { '@_CAPEC_ID'?: string } }> };
  Common_Consequences?: { Consequence?: Many<{ Scope?: Many<string> }> };
}

let table: Map<string, CweEntry> | undefined;

function load(): Map<string, CweEntry> {
  const path = createRequire(import.meta.url).resolve('cwe-sdk/raw/cwe-dictionary.json');
  const raw = JSON.parse(readFileSync(path, 'utf8')) as Record<string, RawWeakness>;
  const entries = new Map<string, CweEntry>();
  for (const [id, weakness] of Object.entries(raw)) {
    const capec = many(weakness.Related_Attack_Patterns?.Related_Attack_Pattern)
      .map((p) => p.attr?.['@_CAPEC_ID'])
      .filter((v): v is string => !!v && /^\d+$/.test(v))
      .sort((a, b) => Number(a) - Number(b));
    const scopes = new Set(many(weakness.Common_Consequences?.Consequence).flatMap((c) => many(c.Scope)));
    const impacts = (['confidentiality', 'integrity', 'availability'] as const).filter((p) => scopes.has(p[0]!.toUpperCase() + p.slice(1)));
    entries.set(`CWE-${id}`, { name: weakness.attr?.['@_Name'] ?? `CWE-${id}`, capecIds: [...new Set(capec)].map((n) => `CAPEC-${n}`), impacts });
  }
  return entries;
}

export function cweEntry(id: string): CweEntry | undefined {
  table ??= load();
  return table.get(id);
}

/** CAPEC ids related to any of the CWEs, in numeric order. */
export function capecIdsFor(cweIds: string[]): string[] {
  const ids = new Set(cweIds.flatMap((id) => cweEntry(id)?.capecIds ?? []));
  return [...ids].sort((a, b) => Number(a.slice(6)) - Number(b.slice(6)));
}

/** The short name MITRE puts in quotes or brackets ("SQL Injection"), else the full name. */
export function cweShortName(id: string): string | undefined {
  const name = cweEntry(id)?.name;
  if (!name) return undefined;
  const quoted = /\('([^']+)'\)/.exec(name) ?? /\(([^()]{2,40})\)$/.exec(name);
  return quoted?.[1] ?? name;
}
