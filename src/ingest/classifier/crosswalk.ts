// The taxonomy cross-walk (data/taxonomy/crosswalk.json): what an attack type or finding implies
// in the OWASP Top 10 for LLM Applications 2025 and in MITRE ATLAS.
import { readFileSync } from 'node:fs';
import { sortAtlasIds } from './atlas.js';

export interface OwaspRisk {
  id: string;
  name: string;
  url: string;
}

interface Crosswalk {
  version: string;
  owasp: OwaspRisk[];
  rules: { when: string; owasp: string[]; atlas: string[] }[];
}

export const crosswalkUrl = new URL('../../../data/taxonomy/crosswalk.json', import.meta.url);

let data: Crosswalk | undefined;
const load = () => (data ??= JSON.parse(readFileSync(crosswalkUrl, 'utf8')) as Crosswalk);

export function owaspRisk(id: string): OwaspRisk | undefined {
  return load().owasp.find((r) => r.id === id);
}

/** `signals`: attack types and findings; OWASP ids only for LLM-specific issues. */
export function crosswalk(signals: Set<string>, llmSpecific: boolean): { owaspIds: string[]; atlasIds: string[] } {
  const rules = load().rules.filter((r) => signals.has(r.when));
  const owasp = new Set(llmSpecific ? rules.flatMap((r) => r.owasp) : []);
  return {
    owaspIds: load()
      .owasp.map((r) => r.id)
      .filter((id) => owasp.has(id)),
    atlasIds: sortAtlasIds(rules.flatMap((r) => r.atlas)),
  };
}
