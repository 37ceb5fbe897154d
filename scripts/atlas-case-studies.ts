// Converts MITRE ATLAS case studies (ATLAS.yaml, Apache-2.0) into secwire native items:
//   npx tsx scripts/atlas-case-studies.ts [path/to/ATLAS.yaml] > data/items/atlas-case-studies.json
// Incidents stay incidents; exercises (red-team work, demonstrations) become research items.
// The summary is ATLAS's own text with Markdown links flattened; the technique ids are the case
// study's procedure steps. The target becomes a vendor only when it names a known vendor: for
// incidents it is often the victim ("Multiple systems"), not the maker of what was attacked.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { normaliseVendor } from '../src/ingest/classifier/vendors.js';

interface CaseStudy {
  id: string;
  name: string;
  summary: string;
  'incident-date': string | Date;
  'case-study-type'?: 'incident' | 'exercise';
  target?: string;
  procedure?: { technique: string }[];
  references?: { title?: string; url?: string }[] | null;
}

// MITRE ATLAS's ATLAS.yaml (Apache-2.0), from a checkout of mitre-atlas/atlas-data.
const path = process.argv[2];
if (!path) {
  console.error('usage: npx tsx scripts/atlas-case-studies.ts <path to ATLAS.yaml>');
  process.exit(1);
}
const atlas = parse(readFileSync(path, 'utf8')) as { version: string; 'case-studies': CaseStudy[] };

const flatten = (markdown: string) =>
  markdown
    .replace(/\[([^\]]+)\]\([^)]+\)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();

const items = atlas['case-studies'].map((cs) => {
  const date = cs['incident-date'] instanceof Date ? cs['incident-date'].toISOString().slice(0, 10) : String(cs['incident-date']);
  const references = (cs.references ?? []).map((r) => r.url).filter((u): u is string => !!u && /^https?:\/\//.test(u));
  return {
    id: cs.id,
    title: cs.name,
    url: `https://atlas.mitre.org/studies/${cs.id}`,
    publishedAt: date,
    summary: flatten(cs.summary).slice(0, 5000),
    type: cs['case-study-type'] === 'incident' ? 'incident' : 'research',
    ...(cs['case-study-type'] === 'incident' ? {} : { researchCategory: 'case_study' }),
    ...(cs.target && normaliseVendor(cs.target) ? { vendors: [cs.target.slice(0, 200)] } : {}),
    atlasIds: [...new Set((cs.procedure ?? []).map((p) => p.technique))],
    ...(references.length ? { references: [...new Set(references)].slice(0, 50) } : {}),
  };
});

process.stdout.write(`${JSON.stringify(items, null, 2)}\n`);
