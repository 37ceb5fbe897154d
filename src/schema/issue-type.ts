// The Issue GraphQL type: every field of the spec's table, with the spec's types, plus fields
// only GraphQL carries (marked graphqlOnly: the REST schema drops them, so REST keeps the spec's
// keys). Internal columns (naturalKey, contentHash, relevance, source, ...) are not exposed.
import type { Issue } from '../generated/prisma/client.js';
import { IssueType, Severity } from '../generated/prisma/enums.js';
import type { Evidence } from '../ingest/classifier/evidence.js';
import type { Provenance } from '../ingest/classifier/relevance.js';
import { formatCvssScore } from '../issues/served.js';
import { builder } from './builder.js';

/** Field extension: the field is GraphQL's only, never part of a REST body (rest/rest-schema.ts). */
export const graphqlOnly = { graphqlOnly: true };

const ClassificationReason = builder.objectRef<Evidence>('ClassificationReason').implement({
  description: 'One piece of evidence the relevance decision weighed.',
  fields: (t) => ({
    kind: t.exposeString('kind', {
      description:
        'catalogue-package, registry-summary, catalogue-repository, catalogue-organisation, listed-repository, listed-organisation, reference-host, package-name, repository-name, term, domain-term, atlas, ai-vendor, model, concern-term (a word of security, privacy or safety in a news, research, regulation or incident item), tool-or-bait (AI only as a tool of defence or as a lure, which counts against) or missing (such an item lacks AI or security evidence; detail says which).',
    }),
    detail: t.exposeString('detail', {
      description: 'What was found, e.g. "PyPI:langchain (LangChain; pypi-llm-frameworks)"; for model, the words that moved it most.',
    }),
    weight: t.exposeFloat('weight', { description: 'Its contribution in log-odds: positive for relevant, negative against.' }),
  }),
});

const IssueClassification = builder.objectRef<Provenance>('IssueClassification').implement({
  description: 'Why the classifier judged the item about AI/ML software (or not).',
  fields: (t) => ({
    version: t.exposeString('version', { description: 'classifierPromptVersion of the classifier that decided.' }),
    relevant: t.exposeBoolean('relevant', { description: 'The decision.' }),
    probability: t.exposeFloat('probability', { description: 'Calibrated probability that the item is about AI/ML software.' }),
    modelScore: t.exposeFloat('modelScore', { description: "The learned text model's own probability, before the catalogue and rules." }),
    reasons: t.field({ type: [ClassificationReason], description: 'The evidence, strongest first.', resolve: (p) => p.reasons }),
  }),
});

export const SeverityEnum = builder.enumType('Severity', {
  description: 'Issue severity, ordered critical > high > medium > low > info.',
  values: Object.values(Severity),
});

export const IssueTypeEnum = builder.enumType('IssueType', {
  description: 'Kind of item.',
  values: Object.values(IssueType),
});

// A plain object type over the row: the resolvers that load issues read only the columns the
// operation selects (columns.ts), chosen once per operation rather than per field and row.
export const IssueRef = builder.objectRef<Issue>('Issue').implement({
  description: 'A classified AI-security item. Served only when relevant, processed and not withdrawn.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Unique id of the issue (UUID).' }),
    title: t.exposeString('title', { description: 'Headline text; may end with an ellipsis when truncated.' }),
    headline: t.exposeString('headline', { nullable: true, description: 'Short rewritten title.' }),
    summary: t.exposeString('summary', { nullable: true, description: 'Plain-text summary.' }),
    sourceUrl: t.exposeString('sourceUrl', { description: 'Link to the original item (its attribution).' }),
    publishedAt: t.expose('publishedAt', { type: 'DateTime', description: 'Publication time.' }),
    severity: t.expose('severity', { type: SeverityEnum, description: 'One of critical, high, medium, low, info.' }),
    cvssSeverity: t.exposeString('cvssSeverity', { nullable: true, description: 'Lowercase severity band of the CVSS score.' }),
    cvssScore: t.string({
      nullable: true,
      description: 'CVSS base score as a decimal string, e.g. "9.8".',
      resolve: (issue) => formatCvssScore(issue.cvssScore),
    }),
    labels: t.exposeStringList('labels', { description: 'Labels: security, research, industry, policy, privacy, safety.' }),
    issueType: t.expose('issueType', { type: IssueTypeEnum, description: 'One of vulnerability, incident, news, regulatory, research.' }),
    cveId: t.exposeString('cveId', { nullable: true, description: 'CVE identifier, CVE-<year>-<number>.' }),
    cweIds: t.exposeStringList('cweIds', { nullable: true, description: 'CWE ids, CWE-<number>.' }),
    affectedPackages: t.exposeStringList('affectedPackages', {
      nullable: true,
      description: '<package>@<version range> (fixed: <version>); the version is `none` when no release fixes the range.',
    }),
    affectedPackageRefs: t.exposeStringList('affectedPackageRefs', { nullable: true, description: '<ecosystem>:<package>.' }),
    affectedVendors: t.exposeStringList('affectedVendors', { description: 'Normalised vendor names; may be empty.' }),
    affectedVendorsRaw: t.exposeStringList('affectedVendorsRaw', { description: 'Vendor, product or component names as found in the item.' }),
    classifierModel: t.exposeString('classifierModel', { description: 'Identifier of the classifier that produced the fields.' }),
    classifierPromptVersion: t.exposeString('classifierPromptVersion', { description: 'Version tag of the classifier.' }),
    solution: t.exposeString('solution', { nullable: true, description: 'Remediation text; "N/A ..." when none is known.' }),
    attackType: t.exposeStringList('attackType', { description: 'Attack types, e.g. prompt_injection, supply_chain; may be empty.' }),
    cvssVector: t.exposeString('cvssVector', {
      nullable: true,
      description: 'CVSS 3.1 vector string (a 3.0 vector whose 3.1 score differs stays 3.0; an item with only a 4.0 vector carries that).',
    }),
    attackVector: t.exposeString('attackVector', { nullable: true, description: 'CVSS attack vector: network, adjacent, local, physical.' }),
    attackComplexity: t.exposeString('attackComplexity', { nullable: true, description: 'CVSS attack complexity: low, high.' }),
    privilegesRequired: t.exposeString('privilegesRequired', { nullable: true, description: 'CVSS privileges required: none, low, high.' }),
    userInteraction: t.exposeString('userInteraction', { nullable: true, description: 'CVSS user interaction: none, required.' }),
    exploitMaturity: t.exposeString('exploitMaturity', { nullable: true, description: 'unknown or active.' }),
    epssScore: t.exposeFloat('epssScore', { nullable: true, description: 'EPSS probability between 0 and 1.' }),
    epssCheckedAt: t.expose('epssCheckedAt', { type: 'DateTime', nullable: true, description: 'When the EPSS score was last checked.' }),
    kevDateAdded: t.exposeString('kevDateAdded', { nullable: true, description: 'Date the item entered a known-exploited list.' }),
    advisoryAliases: t.exposeStringList('advisoryAliases', { nullable: true, description: 'Other advisory identifiers for the same issue.' }),
    affectedPackagesSource: t.exposeString('affectedPackagesSource', { nullable: true, description: 'Where the package data came from, e.g. ghsa.' }),
    patchAvailable: t.exposeBoolean('patchAvailable', { nullable: true, description: 'Whether a fixed version exists.' }),
    disclosureDate: t.expose('disclosureDate', { type: 'DateTime', nullable: true, description: 'Disclosure time.' }),
    capecIds: t.exposeStringList('capecIds', { nullable: true, description: 'CAPEC ids, CAPEC-<number>.' }),
    crossRefCount: t.exposeInt('crossRefCount', { description: 'Number of other issues sharing a CVE, alias or package.' }),
    attackSophistication: t.exposeString('attackSophistication', { description: 'trivial, moderate or advanced.' }),
    impactType: t.exposeStringList('impactType', { nullable: true, description: 'confidentiality, integrity, availability, safety.' }),
    aiComponentTargeted: t.exposeString('aiComponentTargeted', { nullable: true, description: 'rag, api, framework, agent, plugin, inference, model.' }),
    llmSpecific: t.exposeBoolean('llmSpecific', { description: 'Whether the issue is specific to large language models.' }),
    classifierConfidence: t.exposeFloat('classifierConfidence', { description: 'Classifier confidence between 0 and 1.' }),
    researchCategory: t.exposeString('researchCategory', { nullable: true, description: 'e.g. peer_reviewed.' }),
    atlasIds: t.exposeStringList('atlasIds', { nullable: true, description: 'MITRE ATLAS technique ids, AML.T<number>[.<number>].' }),
    modifiedAt: t.expose('modifiedAt', {
      type: 'DateTime',
      description: 'When the served content last changed (including enrichment such as a new EPSS score); GraphQL only.',
      extensions: graphqlOnly,
    }),
    owaspIds: t.stringList({
      description: 'OWASP Top 10 for LLM Applications 2025 ids (LLM01:2025 ... LLM10:2025) the attack types imply; LLM-specific issues only. GraphQL only.',
      extensions: graphqlOnly,
      resolve: (issue) => issue.owaspIds ?? [],
    }),
    classification: t.field({
      type: IssueClassification,
      nullable: true,
      description:
        'Why the item was judged relevant: the deciding evidence, the model score and the classifier version. Null for issues stored before provenance was kept (reclassify fills it). GraphQL only.',
      extensions: graphqlOnly,
      resolve: (issue) => (issue.classification as Provenance | null) ?? null,
    }),
  }),
});
