// Maps issues to a STIX 2.1 bundle (https://docs.oasis-open.org/cti/stix/v2.1/stix-v2.1.html).
// Ids are UUIDv5 under one fixed namespace, so exporting the same issue twice yields the same
// objects and consumers can de-duplicate. Per issue: a vulnerability or a report (see stixTypeOf); an attack-pattern per attack type and per ATLAS technique (shared between issues);
// a course-of-action when the issue has a real solution. Every object is created by the service's
// identity and marked TLP:CLEAR and CC BY 4.0.
import { createHash } from 'node:crypto';
import { v5 as uuidv5 } from 'uuid';
import { columnsSql } from '../db/driver-read.js';
import { owaspRisk } from '../ingest/classifier/crosswalk.js';
import type { Prisma } from '../generated/prisma/client.js';
import { atlasTechnique, atlasTechniqueIds } from './atlas.js';
import { DATA_LICENSE } from '../data-license.js';

/** Issues per bundle: the default and the most one request gets. */
export const STIX_LIMIT = { defaultLimit: 50, maxLimit: 100 };

/** Fixed namespace of every secwire STIX id. Changing it changes every exported id: never do. */
export const STIX_NAMESPACE = 'cf3099ba-b731-4a7a-bcec-5ab36da748e7';

/** Creation time of the objects that describe the service rather than an issue. */
export const SERVICE_EPOCH = '2025-01-01T00:00:00.000Z';

/** TLP:CLEAR as OASIS publishes it (TLP 2.0 extension, cti-stix-common-objects). */
const TLP_CLEAR: StixObject = {
  type: 'marking-definition',
  spec_version: '2.1',
  id: 'marking-definition--94868c89-83c2-464b-929b-a1a8aa3c8487',
  created: '2022-10-01T00:00:00.000Z',
  name: 'TLP:CLEAR',
  extensions: {
    'extension-definition--60a3c5c5-0d10-413e-aab3-9e08dde9e88d': { extension_type: 'property-extension', tlp_2_0: 'clear' },
  },
};

export type StixObject = { type: string; id: string; [property: string]: unknown };

const stixId = (type: string, name: string) => `${type}--${uuidv5(name, STIX_NAMESPACE)}`;

const IDENTITY_ID = stixId('identity', 'identity:secwire');
const LICENSE_MARKING_ID = stixId('marking-definition', 'marking:cc-by-4.0');
const markings = [TLP_CLEAR.id, LICENSE_MARKING_ID];
const common = { spec_version: '2.1', created_by_ref: IDENTITY_ID, object_marking_refs: markings };

/** An object the service creates, its id derived from `key`. */
function stixObject(type: string, key: string, times: { created: string; modified: string }, properties: Record<string, unknown>): StixObject {
  return { type, ...common, id: stixId(type, key), ...times, ...properties };
}

const serviceTimes = { created: SERVICE_EPOCH, modified: SERVICE_EPOCH };

const LICENSE_MARKING: StixObject = {
  type: 'marking-definition',
  spec_version: '2.1',
  id: LICENSE_MARKING_ID,
  created_by_ref: IDENTITY_ID,
  created: SERVICE_EPOCH,
  name: 'CC-BY-4.0',
  definition_type: 'statement',
  definition: {
    statement: `secwire data is licensed under Creative Commons Attribution 4.0 International (CC BY 4.0, ${DATA_LICENSE.url}). Attribute each item to its source (the external reference named "source").`,
  },
  external_references: [{ source_name: 'license', description: 'CC BY 4.0', url: DATA_LICENSE.url }],
};

const IDENTITY = stixObject('identity', 'identity:secwire', serviceTimes, {
  name: 'secwire',
  description: 'secwire, a curated and classified feed of AI-security issues. Data licensed CC BY 4.0.',
  identity_class: 'system',
});

/** The objects that describe the service rather than an issue: first in every bundle. */
const serviceObjects = [TLP_CLEAR, LICENSE_MARKING, IDENTITY];

/** The issue columns the mapping reads. */
export const stixIssueSelect = {
  id: true,
  title: true,
  headline: true,
  summary: true,
  sourceUrl: true,
  publishedAt: true,
  modifiedAt: true,
  severity: true,
  issueType: true,
  labels: true,
  cveId: true,
  cweIds: true,
  capecIds: true,
  advisoryAliases: true,
  attackType: true,
  atlasIds: true,
  owaspIds: true,
  solution: true,
  classifierConfidence: true,
} satisfies Prisma.IssueSelect;

export type StixIssue = Prisma.IssueGetPayload<{ select: typeof stixIssueSelect }>;
export const stixColumns = columnsSql(Object.keys(stixIssueSelect));

const attackTypeNames: Record<string, string> = {
  rag_poisoning: 'RAG poisoning',
  prompt_injection: 'Prompt injection',
  jailbreak: 'Jailbreak',
  data_extraction: 'Data extraction',
  pii_leakage: 'PII leakage',
  supply_chain: 'Supply chain compromise',
  denial_of_service: 'Denial of service',
  model_extraction: 'Model extraction',
  data_poisoning: 'Data poisoning',
  backdoor: 'Model backdoor',
  adversarial_examples: 'Adversarial examples',
};

/** "model_inversion" -> "Model inversion", for attack types the table does not know yet. */
const inWords = (code: string) => {
  const words = code.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

const CVE = /^CVE-\d{4}-(0\d{3}|[1-9]\d{3,})$/;

/** An absolute http(s) URL in the form JSON Schema's "uri" format accepts, or undefined. */
function uri(value: string): string | undefined {
  const url = URL.parse(value);
  return url && (url.protocol === 'http:' || url.protocol === 'https:') ? url.href : undefined;
}

type ExternalReference = { source_name: string; external_id?: string; url?: string; description?: string };

function aliasReference(alias: string): ExternalReference {
  if (CVE.test(alias)) return { source_name: 'cve', external_id: alias };
  if (/^GHSA(-[23456789cfghjmpqrvwx]{4}){3}$/.test(alias)) return { source_name: 'ghsa', external_id: alias, url: `https://github.com/advisories/${alias}` };
  const prefix = /^([A-Za-z]+)-/.exec(alias)?.[1];
  return { source_name: prefix ? prefix.toLowerCase() : 'advisory', external_id: alias };
}

function externalReferences(issue: StixIssue): ExternalReference[] {
  const refs: ExternalReference[] = [];
  if (issue.cveId && CVE.test(issue.cveId)) refs.push({ source_name: 'cve', external_id: issue.cveId });
  const source = uri(issue.sourceUrl);
  refs.push(
    source ? { source_name: 'source', url: source, description: 'Original item (attribution)' } : { source_name: 'source', description: issue.sourceUrl },
  );
  for (const alias of issue.advisoryAliases) refs.push(aliasReference(alias));
  for (const cwe of issue.cweIds) {
    const n = /^CWE-(\d+)$/.exec(cwe)?.[1];
    refs.push(n ? { source_name: 'cwe', external_id: cwe, url: `https://cwe.mitre.org/data/definitions/${n}.html` } : { source_name: 'cwe', external_id: cwe });
  }
  for (const capec of issue.capecIds) {
    const n = /^CAPEC-(\d+)$/.exec(capec)?.[1];
    if (n) refs.push({ source_name: 'capec', external_id: capec, url: `https://capec.mitre.org/data/definitions/${n}.html` });
  }
  for (const id of issue.owaspIds) {
    const risk = owaspRisk(id);
    refs.push({ source_name: 'owasp-llm-top-10-2025', external_id: id, ...(risk ? { url: risk.url, description: risk.name } : {}) });
  }
  const seen = new Set<string>();
  return refs.filter((r) => {
    const key = `${r.source_name}|${r.external_id ?? r.url ?? r.description}`;
    return !seen.has(key) && !!seen.add(key);
  });
}

/** A solution is "real" unless it is empty or the fixed "N/A ..." sentence. */
function isRealSolution(solution: string | null): solution is string {
  return !!solution && !!solution.trim() && !/^N\/A\b/i.test(solution.trim());
}

function attackTypePattern(code: string): StixObject {
  return stixObject('attack-pattern', `attack-type:${code}`, serviceTimes, {
    name: attackTypeNames[code] ?? inWords(code),
    description: `AI-security attack type "${code}" in the secwire classification.`,
  });
}

function atlasPattern(techniqueId: string): StixObject {
  const technique = atlasTechnique(techniqueId);
  const phases = (technique?.phases ?? []).map((phase_name) => ({ kill_chain_name: 'mitre-atlas', phase_name }));
  return stixObject('attack-pattern', `atlas:${techniqueId}`, serviceTimes, {
    name: technique?.name ?? techniqueId,
    external_references: [{ source_name: 'mitre-atlas', external_id: techniqueId, url: `https://atlas.mitre.org/techniques/${techniqueId}` }],
    ...(phases.length ? { kill_chain_phases: phases } : {}),
  });
}

/**
 * The STIX object an issue becomes: a vulnerability only for vulnerabilities; a report (about the
 * attack patterns and course of action it names) for incidents, news, research and regulatory
 * items. Not STIX's `incident`: the OASIS bundle schema lists no incident among its objects and
 * rejects one as a custom object, so a bundle holding one would not validate.
 */
function stixTypeOf(issueType: string): 'vulnerability' | 'report' {
  return issueType === 'vulnerability' ? 'vulnerability' : 'report';
}

/** The objects describing one issue, and the shared attack patterns it points at. */
function issueObjects(issue: StixIssue, patterns: Map<string, StixObject>): StixObject[] {
  const times = {
    created: issue.publishedAt.toISOString(),
    modified: new Date(Math.max(issue.publishedAt.getTime(), issue.modifiedAt.getTime())).toISOString(),
  };
  const name = issue.cveId ?? issue.headline ?? issue.title;
  const type = stixTypeOf(issue.issueType);
  const main = stixObject(type, issue.id, times, {
    name,
    ...(issue.summary ? { description: issue.summary } : {}),
    labels: [`severity:${issue.severity}`, `issue-type:${issue.issueType}`, ...issue.labels],
    confidence: Math.round(Math.min(1, Math.max(0, issue.classifierConfidence)) * 100),
    external_references: externalReferences(issue),
  });
  const objects: StixObject[] = [main];
  const refs: string[] = [];
  // A vulnerability is targeted and mitigated (STIX's own relationships for it); a report lists them.
  const link = (kind: 'targets' | 'mitigates', source: string) => {
    if (type === 'report') refs.push(source);
    else objects.push(stixObject('relationship', `${kind}:${source}:${main.id}`, times, { relationship_type: kind, source_ref: source, target_ref: main.id }));
  };
  if (isRealSolution(issue.solution)) {
    const courseOfAction = stixObject('course-of-action', `course-of-action:${issue.id}`, times, {
      name: `Remediation for ${name}`,
      description: issue.solution.trim(),
    });
    objects.push(courseOfAction);
    link('mitigates', courseOfAction.id);
  }
  const used = [
    ...issue.attackType.filter((code) => code && code !== 'other').map((code) => ({ key: `attack-type:${code}`, make: () => attackTypePattern(code) })),
    ...issue.atlasIds.map((techniqueId) => ({ key: `atlas:${techniqueId}`, make: () => atlasPattern(techniqueId) })),
  ];
  for (const { key, make } of used) {
    let pattern = patterns.get(key);
    if (!pattern) patterns.set(key, (pattern = make()));
    link('targets', pattern.id);
  }
  // A report needs at least one object it is about; with nothing else, it is the feed's own item.
  if (type === 'report')
    Object.assign(main, { report_types: ['threat-report'], published: times.created, object_refs: refs.length ? [...new Set(refs)] : [IDENTITY_ID] });
  return objects;
}

/** One bundle for the given issues, in their order. */
export function buildBundle(issues: StixIssue[]) {
  const patterns = new Map<string, StixObject>();
  const perIssue = issues.flatMap((issue) => issueObjects(issue, patterns));
  const objects = [...serviceObjects, ...patterns.values(), ...perIssue];
  const unique = [...new Map(objects.map((o) => [o.id, o])).values()];
  // The same issues in the same versions give the same bundle id.
  const digest = createHash('sha256');
  for (const o of unique) digest.update(`${o.id}|${String(o.modified ?? o.created)}\n`);
  return { type: 'bundle' as const, id: stixId('bundle', digest.digest('hex')), objects: unique };
}

let catalogue: Map<string, StixObject> | undefined;

/**
 * The objects every issue may point at, whatever the issues: the markings, the identity and an
 * attack pattern per known attack type and ATLAS technique. TAXII serves them first, so the set
 * never grows behind a client's cursor.
 */
export function referenceObjects(): Map<string, StixObject> {
  catalogue ??= new Map([
    ...serviceObjects.map((o) => [o.id, o] as const),
    ...Object.keys(attackTypeNames).map((code) => [`attack-type:${code}`, attackTypePattern(code)] as const),
    ...atlasTechniqueIds().map((id) => [`atlas:${id}`, atlasPattern(id)] as const),
  ]);
  return catalogue;
}

/**
 * One issue's own objects. A link to an attack pattern outside the reference objects (an attack
 * type or ATLAS id this release does not know) is left out: the pattern would be listed again
 * with every issue that names it.
 */
export function issueOwnObjects(issue: StixIssue): StixObject[] {
  const reference = referenceObjects();
  const patterns = new Map(reference);
  const unknown = new Set<string>();
  const objects = issueObjects(issue, patterns);
  for (const [key, pattern] of patterns) if (!reference.has(key)) unknown.add(pattern.id);
  return objects
    .filter((o) => !unknown.has(o.source_ref as string))
    .map((o) => {
      if (o.type !== 'report') return o;
      const refs = (o.object_refs as string[]).filter((id) => !unknown.has(id));
      return { ...o, object_refs: refs.length ? refs : [IDENTITY_ID] };
    });
}
