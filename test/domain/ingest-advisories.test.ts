// The 71 real advisories through POST-equivalent GraphQL ingest on a real database: field by
// field for a handful, the spec's field table for all of them, and severity agreement with
// GitHub's own rating.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Issue } from '../../src/generated/prisma/client.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { adminHeaders, adminKey, ingestMutation, loadAdvisories } from '../helpers/samples.js';

let t: TestApp;
let byGhsa: Map<string, Issue>;
const advisories = loadAdvisories();

beforeAll(async () => {
  t = await createTestApp({ adminApiKey: adminKey });
  const { body } = await t.graphql(ingestMutation, { items: advisories }, adminHeaders);
  expect(body.errors).toBeUndefined();
  expect(body.data.ingestItems.data).toMatchObject({ received: 71, created: 71, updated: 0, unchanged: 0, rejected: [] });
  const rows = await t.db.prisma.issue.findMany();
  byGhsa = new Map(rows.map((r) => [r.identifiers.find((id) => id.startsWith('GHSA-'))!, r]));
}, 120_000);
afterAll(async () => t?.close());

const issue = (ghsa: string) => {
  const row = byGhsa.get(ghsa);
  if (!row) throw new Error(`${ghsa} was not ingested`);
  return row;
};

describe('field by field', () => {
  it('GHSA-2jxw-4hm4-6w87: llama-index SQL injection, no CVSS vector, no fix', () => {
    const i = issue('GHSA-2jxw-4hm4-6w87');
    expect(i).toMatchObject({
      title: 'SQL injection in llama-index',
      sourceUrl: 'https://github.com/advisories/GHSA-2jxw-4hm4-6w87',
      publishedAt: new Date('2024-01-22T03:30:26Z'),
      issueType: 'vulnerability',
      severity: 'high', // GitHub's reviewed severity: no score to band
      cvssScore: null,
      cvssSeverity: null,
      cvssVector: null,
      attackVector: null,
      cveId: 'CVE-2024-23751',
      advisoryAliases: ['GHSA-2jxw-4hm4-6w87', 'PYSEC-2024-12'],
      cweIds: ['CWE-89'],
      capecIds: ['CAPEC-7', 'CAPEC-66', 'CAPEC-108', 'CAPEC-109', 'CAPEC-110', 'CAPEC-470'],
      affectedPackages: ['llama-index@<=0.9.35 (fixed: none)'],
      affectedPackageRefs: ['PyPI:llama-index'],
      affectedPackagesSource: 'ghsa',
      patchAvailable: false,
      affectedVendors: ['LlamaIndex'],
      affectedVendorsRaw: ['llama-index', 'run-llama'],
      packageNames: ['llama-index'],
      naturalKey: 'CVE-2024-23751',
      relevant: true,
      llmSpecific: true,
      classifierModel: 'secwire-rules',
    });
    expect(i.solution).toMatch(/^N\/A/);
    expect(i.searchText).toContain('cve-2024-23751');
    expect(i.searchText).toContain('pysec-2024-12');
  });

  it('GHSA-46cm-pfwv-cgf8: litellm SSTI, CVSS 3.0 vector served as 3.1, two fixed lines', () => {
    const i = issue('GHSA-46cm-pfwv-cgf8');
    expect(i).toMatchObject({
      severity: 'critical',
      cvssSeverity: 'critical',
      cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      attackVector: 'network',
      attackComplexity: 'low',
      privilegesRequired: 'none',
      userInteraction: 'none',
      attackSophistication: 'trivial',
      impactType: ['confidentiality', 'integrity', 'availability'],
      cveId: 'CVE-2024-2952',
      cweIds: ['CWE-76'],
      capecIds: [], // MITRE relates no CAPEC pattern to CWE-76
      affectedPackages: ['litellm@<1.34.42 (fixed: 1.34.42)', 'litellm@>=1.35.0.dev1,<1.35.0 (fixed: 1.35.0)'],
      affectedPackageRefs: ['PyPI:litellm'],
      patchAvailable: true,
      affectedVendors: ['BerriAI'],
      aiComponentTargeted: 'api',
    });
    expect(i.cvssScore?.toFixed(1)).toBe('9.8');
    expect(i.solution).toBe('Upgrade litellm to 1.35.0 or 1.34.42 or later, whichever matches your release line.');
    expect(i.atlasIds).toContain('AML.T0050'); // code execution through the template engine
  });

  it('GHSA-f54p-f6jp-4rhr: tensorflow, a local vector, three packages and three release lines each', () => {
    const i = issue('GHSA-f54p-f6jp-4rhr');
    expect(i).toMatchObject({
      severity: 'high',
      cvssSeverity: 'high',
      attackVector: 'local',
      privilegesRequired: 'low',
      userInteraction: 'none',
      cweIds: ['CWE-125'],
      capecIds: ['CAPEC-540'],
    });
    expect(i.cvssScore?.toFixed(1)).toBe('7.1');
    expect(i.affectedPackages).toHaveLength(9);
    expect(i.affectedPackages).toContain('tensorflow@>=2.6.0,<2.6.1 (fixed: 2.6.1)');
    expect(i.affectedPackageRefs).toEqual(['PyPI:tensorflow', 'PyPI:tensorflow-cpu', 'PyPI:tensorflow-gpu']);
    expect(i.affectedVendors).toEqual(['Google']);
    expect(i.solution).toContain('Upgrade tensorflow-gpu to 2.6.1, 2.5.2 or 2.4.4 or later');
  });

  it("GHSA-c6mm-2g84-v4m7: mage-ai, the CVSS fields show the 3.1 vector, severity is GitHub's reviewed one", () => {
    const i = issue('GHSA-c6mm-2g84-v4m7');
    expect(i.cvssVector).toMatch(/^CVSS:3\.1\//);
    expect(i.cvssScore?.toFixed(1)).toBe('5.9');
    expect(i).toMatchObject({
      severity: 'high',
      cvssSeverity: 'medium',
      attackComplexity: 'high',
      attackSophistication: 'advanced',
      affectedVendors: ['Mage'],
    });
  });

  it('GHSA-8hqg-whrw-pv92: ollama, a Go module', () => {
    const i = issue('GHSA-8hqg-whrw-pv92');
    expect(i).toMatchObject({
      severity: 'medium',
      cveId: 'CVE-2024-37032',
      affectedPackages: ['github.com/ollama/ollama@<0.1.34 (fixed: 0.1.34)'],
      affectedPackageRefs: ['Go:github.com/ollama/ollama'],
      packageNames: ['github.com/ollama/ollama'],
      affectedVendors: ['Ollama'],
      aiComponentTargeted: 'inference',
      patchAvailable: true,
    });
  });

  it('GHSA-8hx6-qv6f-xgcw: MindsDB without CVE, keyed by its GHSA id, PyPI name normalised', () => {
    const i = issue('GHSA-8hx6-qv6f-xgcw');
    expect(i).toMatchObject({
      naturalKey: 'GHSA-8hx6-qv6f-xgcw',
      cveId: null,
      advisoryAliases: ['GHSA-8hx6-qv6f-xgcw'],
      severity: 'critical',
      cweIds: [],
      capecIds: [],
    });
    expect(i.affectedPackages).toEqual(['MindsDB@<23.7.4.0 (fixed: 23.7.4.0)']);
    expect(i.packageNames).toEqual(['mindsdb']);
  });

  it('GHSA-r5qj-cvf9-p85h: pytorch-lightning, every version affected and no fix published', () => {
    const i = issue('GHSA-r5qj-cvf9-p85h');
    expect(i).toMatchObject({ affectedPackages: ['pytorch-lightning@* (fixed: none)'], patchAvailable: false, affectedVendors: ['Lightning AI'] });
    expect(i.solution).toMatch(/^N\/A/);
  });

  it('keeps the OSV affected array intact in source, for scan', () => {
    const i = issue('GHSA-46cm-pfwv-cgf8');
    const source = i.source as any;
    expect(source).toMatchObject({ format: 'osv', id: 'GHSA-46cm-pfwv-cgf8', modified: '2024-04-10T22:18:55.000Z' });
    const original = advisories.find((a) => a.id === 'GHSA-46cm-pfwv-cgf8')!;
    expect(source.affected).toEqual(original.affected);
    expect(source.record).toEqual(original);
  });
});

// The spec's Issue table: name -> type (nullable with a trailing ?), checked on every row as the
// GraphQL Issue type serialises it (cvssScore a decimal string, timestamps ISO 8601).
const specFields: Record<string, string> = {
  id: 'uuid',
  title: 'string',
  headline: 'string?',
  summary: 'string?',
  sourceUrl: 'url',
  publishedAt: 'date',
  severity: 'severity',
  cvssSeverity: 'band?',
  cvssScore: 'decimal?',
  labels: 'string[]',
  issueType: 'issueType',
  cveId: 'cve?',
  cweIds: 'cwe[]?',
  affectedPackages: 'package[]?',
  affectedPackageRefs: 'ref[]?',
  affectedVendors: 'string[]',
  affectedVendorsRaw: 'string[]',
  classifierModel: 'string',
  classifierPromptVersion: 'string',
  solution: 'string?',
  attackType: 'string[]',
  cvssVector: 'string?',
  attackVector: 'string?',
  attackComplexity: 'string?',
  privilegesRequired: 'string?',
  userInteraction: 'string?',
  exploitMaturity: 'string?',
  epssScore: 'number?',
  epssCheckedAt: 'date?',
  kevDateAdded: 'string?',
  advisoryAliases: 'string[]?',
  affectedPackagesSource: 'string?',
  patchAvailable: 'boolean?',
  disclosureDate: 'date?',
  capecIds: 'capec[]?',
  crossRefCount: 'count',
  attackSophistication: 'sophistication',
  impactType: 'string[]?',
  aiComponentTargeted: 'component?',
  llmSpecific: 'boolean',
  classifierConfidence: 'probability',
  researchCategory: 'string?',
  atlasIds: 'atlas[]?',
};

const checks: Record<string, (v: any) => boolean> = {
  uuid: (v) => typeof v === 'string' && /^[0-9a-f-]{36}$/.test(v),
  string: (v) => typeof v === 'string' && v.length > 0,
  url: (v) => typeof v === 'string' && /^https:\/\//.test(v),
  date: (v) => v instanceof Date && !Number.isNaN(v.getTime()),
  severity: (v) => ['critical', 'high', 'medium', 'low', 'info'].includes(v),
  band: (v) => ['critical', 'high', 'medium', 'low'].includes(v),
  decimal: (v) => v !== null && /^\d{1,2}\.\d$/.test(v.toFixed(1)),
  issueType: (v) => ['vulnerability', 'incident', 'news', 'regulatory', 'research'].includes(v),
  cve: (v) => /^CVE-\d{4}-\d+$/.test(v),
  number: (v) => typeof v === 'number',
  boolean: (v) => typeof v === 'boolean',
  count: (v) => Number.isInteger(v) && v >= 0,
  probability: (v) => typeof v === 'number' && v >= 0 && v <= 1,
  sophistication: (v) => ['trivial', 'moderate', 'advanced'].includes(v),
  component: (v) => ['rag', 'api', 'framework', 'agent', 'plugin', 'inference', 'model'].includes(v),
  'string[]': (v) => Array.isArray(v) && v.every((s) => typeof s === 'string' && s.length > 0),
  'cwe[]': (v) => Array.isArray(v) && v.every((s) => /^CWE-\d+$/.test(s)),
  'capec[]': (v) => Array.isArray(v) && v.every((s) => /^CAPEC-\d+$/.test(s)),
  'atlas[]': (v) => Array.isArray(v) && v.every((s) => /^AML\.T\d{4}(\.\d{3})?$/.test(s)),
  'package[]': (v) => Array.isArray(v) && v.every((s) => /^[^@\s]+@\S+ \(fixed: \S+\)$/.test(s)),
  'ref[]': (v) => Array.isArray(v) && v.every((s) => /^[A-Za-z]+:\S+$/.test(s)),
};

describe('every advisory', () => {
  it('has every field of the spec table, well typed', () => {
    expect(byGhsa.size).toBe(71);
    for (const [ghsa, row] of byGhsa) {
      for (const [field, type] of Object.entries(specFields)) {
        const value = (row as any)[field];
        expect(value, `${ghsa}.${field}`).not.toBeUndefined();
        const nullable = type.endsWith('?');
        if (value === null) {
          expect(nullable, `${ghsa}.${field} is null`).toBe(true);
          continue;
        }
        expect(checks[type.replace(/\?$/, '')]!(value), `${ghsa}.${field} = ${JSON.stringify(value)} is not ${type}`).toBe(true);
      }
    }
  });

  it('carries over every CVE, CWE and package of the source', () => {
    for (const advisory of advisories) {
      const row = issue(advisory.id);
      const cve = (advisory.aliases as string[]).find((a) => a.startsWith('CVE-'));
      expect(row.cveId).toBe(cve ?? null);
      expect(row.cweIds).toEqual(advisory.database_specific.cwe_ids);
      const names = new Set((advisory.affected as any[]).map((a) => a.package.name));
      expect(new Set(row.affectedPackages!.map((p) => p.slice(0, p.indexOf('@', 1))))).toEqual(names);
      expect(new Set(row.affectedPackageRefs)).toEqual(new Set((advisory.affected as any[]).map((a) => `${a.package.ecosystem}:${a.package.name}`)));
      expect(row.patchAvailable).toBe((advisory.affected as any[]).some((a) => a.ranges.some((r: any) => r.events.some((e: any) => e.fixed))));
    }
  });

  it('agrees with GitHub severity on every advisory with a CVSS score', () => {
    const github: Record<string, string> = { CRITICAL: 'critical', HIGH: 'high', MODERATE: 'medium', LOW: 'low' };
    const scored = advisories.filter((a) => a.severity.length > 0);
    const agreeing = scored.filter((a) => issue(a.id).severity === github[a.database_specific.severity]);
    expect(scored).toHaveLength(63);
    expect(agreeing.length).toBe(63);
  });

  it('counts cross-references between issues sharing packages', async () => {
    const langchain = [...byGhsa.values()].filter((r) => r.packageNames.includes('langchain'));
    expect(langchain).toHaveLength(13);
    for (const row of langchain) expect(row.crossRefCount).toBe(12);
    // jupyterlab + notebook: shares "notebook" with the two other notebook advisories
    expect(issue('GHSA-4952-p58q-6crx').crossRefCount).toBe(2);
    expect(issue('GHSA-2ww3-fxvq-293j').crossRefCount).toBe(0); // nltk appears once
  });
});
