// MITRE ATLAS techniques for STIX attack patterns, from the bundled index (data/atlas, ATLAS
// 5.6.0, Apache-2.0): a sub-technique is named "<parent>: <name>" as ATLAS shows it, and its
// kill-chain phases are its parent's tactics.
import { readFileSync } from 'node:fs';

interface AtlasIndex {
  tactics: { id: string; name: string }[];
  techniques: { id: string; name: string; tactics: string[]; subtechnique_of?: string }[];
}

export interface AtlasTechnique {
  name: string;
  /** Tactic names as kill-chain phase names, e.g. "initial-access". */
  phases: string[];
}

let techniques: Map<string, AtlasTechnique> | undefined;

function load(): Map<string, AtlasTechnique> {
  const index = JSON.parse(readFileSync(new URL('../../data/atlas/atlas-index.json', import.meta.url), 'utf8')) as AtlasIndex;
  const phase = new Map(
    index.tactics.map((t) => [
      t.id,
      t.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, ''),
    ]),
  );
  const byId = new Map(index.techniques.map((t) => [t.id, t]));
  return new Map(
    index.techniques.map((t) => {
      const parent = t.subtechnique_of ? byId.get(t.subtechnique_of) : undefined;
      const tactics = t.tactics.length ? t.tactics : (parent?.tactics ?? []);
      return [t.id, { name: parent ? `${parent.name}: ${t.name}` : t.name, phases: tactics.flatMap((id) => phase.get(id) ?? []) }];
    }),
  );
}

export function atlasTechnique(id: string): AtlasTechnique | undefined {
  techniques ??= load();
  return techniques.get(id);
}

/** Every technique and sub-technique id of the bundled ATLAS release. */
export function atlasTechniqueIds(): string[] {
  techniques ??= load();
  return [...techniques.keys()];
}
