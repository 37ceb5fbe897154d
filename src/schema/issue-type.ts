// The Issue GraphQL type: every field of the spec's table, with the spec's types. Internal columns
// (naturalKey, contentHash, relevance, source, ...) are deliberately not exposed.
import { formatCvssScore } from '../issues/served.js';
import { builder } from './builder.js';

export const SeverityEnum = builder.enumType('Severity', {
  description: 'Issue severity, ordered critical > high > medium > low > info.',
  values: ['critical', 'high', 'medium', 'low', 'info'] as const,
});

export const IssueTypeEnum = builder.enumType('IssueType', {
  description: 'Kind of item.',
  values: ['vulnerability', 'incident', 'news', 'regulatory', 'research'] as const,
});

export const IssueRef = builder.prismaObject('Issue', {
  description: 'A classified AI-security item. Served only when relevant, processed and not withdrawn.',
  // Only the columns a query selects are read (the row also holds the raw source record).
  select: { id: true },
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
      select: { cvssScore: true },
      resolve: (issue) => formatCvssScore(issue.cvssScore),
    }),
    labels: t.exposeStringList('labels', { description: 'Labels: security, research, industry, policy, privacy, safety.' }),
    issueType: t.expose('issueType', { type: IssueTypeEnum, description: 'One of vulnerability, incident, news, regulatory, research.' }),
    cveId: t.exposeString('cveId', { nullable: true, description: 'CVE identifier, CVE-<year>-<number>.' }),
    cweIds: t.exposeStringList('cweIds', { nullable: true, description: 'CWE ids, CWE-<number>.' }),
    affectedPackages: t.exposeStringList('affectedPackages', { nullable: true, description: '<package>@<version range> (fixed: <version>).' }),
    affectedPackageRefs: t.exposeStringList('affectedPackageRefs', { nullable: true, description: '<ecosystem>:<package>.' }),
    affectedVendors: t.exposeStringList('affectedVendors', { description: 'Normalised vendor names; may be empty.' }),
    affectedVendorsRaw: t.exposeStringList('affectedVendorsRaw', { description: 'Vendor, product or component names as found in the item.' }),
    classifierModel: t.exposeString('classifierModel', { description: 'Identifier of the classifier that produced the fields.' }),
    classifierPromptVersion: t.exposeString('classifierPromptVersion', { description: 'Version tag of the classifier.' }),
    solution: t.exposeString('solution', { nullable: true, description: 'Remediation text; "N/A ..." when none is known.' }),
    attackType: t.exposeStringList('attackType', { description: 'Attack types, e.g. prompt_injection, supply_chain; may be empty.' }),
    cvssVector: t.exposeString('cvssVector', { nullable: true, description: 'CVSS 3.1 vector string.' }),
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
  }),
});
