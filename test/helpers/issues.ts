// Builds valid Issue rows for tests that need data without going through ingestion.
import { randomUUID } from 'node:crypto';
import type { Prisma } from '../../src/generated/prisma/client.js';

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
