// Builds valid Issue rows for tests that need data without going through ingestion.
import { randomUUID } from 'node:crypto';
import type { Prisma, PrismaClient } from '../../src/generated/prisma/client.js';

/**
 * Stores many rows as createMany would, a few hundred to a statement: Prisma's query compiler
 * takes time that grows faster than the row count, so one statement of thousands of rows cost
 * several times the chunked inserts.
 */
export async function insertIssues(prisma: PrismaClient, rows: Prisma.IssueCreateManyInput[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) await prisma.issue.createMany({ data: rows.slice(i, i + 500) });
}

export function makeIssue(overrides: Partial<Prisma.IssueCreateManyInput> = {}): Prisma.IssueCreateManyInput {
  const key = overrides.naturalKey ?? `test:${randomUUID()}`;
  const title = overrides.title ?? `Test issue ${key}`;
  return {
    title,
    headline: null,
    summary: 'A test issue.',
    sourceUrl: `https://example.org/${encodeURIComponent(key)}`,
    publishedAt: new Date('2025-01-01T00:00:00.000Z'),
    severity: 'medium',
    issueType: 'vulnerability',
    labels: ['security'],
    cweIds: [],
    affectedPackages: [],
    affectedPackageRefs: [],
    affectedVendors: [],
    affectedVendorsRaw: [],
    classifierModel: 'test-fixture',
    classifierPromptVersion: 'test-1',
    attackType: [],
    advisoryAliases: [],
    capecIds: [],
    impactType: [],
    atlasIds: [],
    attackSophistication: 'moderate',
    llmSpecific: false,
    classifierConfidence: 0.8,
    naturalKey: key,
    identifiers: [key],
    contentHash: key,
    relevant: true,
    packageNames: [],
    vendorKeys: [],
    searchText: title.toLowerCase(),
    source: {},
    ...overrides,
  };
}

/** Every field of the spec's Issue table (section 2.1), in its order: the keys of an issue as REST, GraphQL and webhooks give it. */
export const specIssueFields = [
  'id',
  'title',
  'headline',
  'summary',
  'sourceUrl',
  'publishedAt',
  'severity',
  'cvssSeverity',
  'cvssScore',
  'labels',
  'issueType',
  'cveId',
  'cweIds',
  'affectedPackages',
  'affectedPackageRefs',
  'affectedVendors',
  'affectedVendorsRaw',
  'classifierModel',
  'classifierPromptVersion',
  'solution',
  'attackType',
  'cvssVector',
  'attackVector',
  'attackComplexity',
  'privilegesRequired',
  'userInteraction',
  'exploitMaturity',
  'epssScore',
  'epssCheckedAt',
  'kevDateAdded',
  'advisoryAliases',
  'affectedPackagesSource',
  'patchAvailable',
  'disclosureDate',
  'capecIds',
  'crossRefCount',
  'attackSophistication',
  'impactType',
  'aiComponentTargeted',
  'llmSpecific',
  'classifierConfidence',
  'researchCategory',
  'atlasIds',
];
