// The TAXII collections: all served issues, and one per issue type and per severity. Ids are
// UUIDv5 of the collection's alias, so they never change; the alias also finds a collection.
import { v5 as uuidv5 } from 'uuid';
import type { Prisma } from '../generated/prisma/client.js';
import { issueFilterSql, issueTypes, type IssueFilters } from '../issues/filters.js';
import { severities } from '../issues/severities.js';
import { STIX_NAMESPACE } from '../stix/bundle.js';

export const STIX_MEDIA_TYPE = 'application/stix+json;version=2.1';

export interface Collection {
  id: string;
  alias: string;
  title: string;
  description: string;
  /** Its issues: served ones, as the list filters them. */
  where: Prisma.Sql;
}

const collection = (alias: string, title: string, description: string, filters: Pick<IssueFilters, 'issueType' | 'severity'>): Collection => ({
  id: uuidv5(`taxii-collection:${alias}`, STIX_NAMESPACE),
  alias,
  title,
  description,
  where: issueFilterSql(filters),
});

export const collections: Collection[] = [
  collection('all', 'All issues', 'Every served AI-security issue as STIX 2.1.', {}),
  ...issueTypes.map((type) => collection(`type-${type}`, `Issue type: ${type}`, `Served issues of type ${type}.`, { issueType: type })),
  ...severities.map((severity) => collection(`severity-${severity}`, `Severity: ${severity}`, `Served issues of severity ${severity}.`, { severity })),
];

export const findCollection = (idOrAlias: string) => collections.find((c) => c.id === idOrAlias || c.alias === idOrAlias);

/** The TAXII collection resource (TAXII 2.1, 5.2.1): public, read-only, STIX 2.1. */
export const collectionResource = (c: Collection) => ({
  id: c.id,
  title: c.title,
  description: c.description,
  alias: c.alias,
  can_read: true,
  can_write: false,
  media_types: [STIX_MEDIA_TYPE],
});
