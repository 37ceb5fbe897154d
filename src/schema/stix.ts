// STIX 2.1 export (Query.stixBundle). The bundle is a JSON scalar, so REST answers the bundle
// itself, not an envelope.
import { filterDescriptions, pageDescriptions, parseIssueFilters, parsePage } from '../issues/filters.js';
import { readIssuePage } from '../issues/reads.js';
import { buildBundle, STIX_LIMIT, stixColumns, type StixIssue } from '../stix/bundle.js';
import { builder } from './builder.js';
import { IssueTypeEnum, SeverityEnum } from './issue-type.js';

builder.queryField('stixBundle', (t) =>
  t.field({
    type: 'JSON',
    description:
      'Served issues as a STIX 2.1 bundle, newest first: a vulnerability per vulnerability and a report per other issue, attack patterns for attack types and MITRE ATLAS ' +
      'techniques that target it, a course of action from a real solution that mitigates it, the secwire identity, and TLP:CLEAR and ' +
      'CC BY 4.0 markings. Object ids are UUIDv5 of the issue id (and so on), stable across exports.',
    args: {
      severity: t.arg({ type: SeverityEnum, description: filterDescriptions.severity }),
      issueType: t.arg({ type: IssueTypeEnum, description: filterDescriptions.issueType }),
      since: t.arg.string({ description: filterDescriptions.since }),
      limit: t.arg.int({
        description: `Maximum issues in the bundle: an integer of at least 1; default ${STIX_LIMIT.defaultLimit}; larger values are treated as ${STIX_LIMIT.maxLimit}.`,
      }),
      offset: t.arg.int({ description: pageDescriptions.offset }),
    },
    resolve: async (_root, args, { db }) => {
      const filters = parseIssueFilters({ severity: args.severity, issueType: args.issueType, since: args.since });
      const { limit, offset } = parsePage({ limit: args.limit, offset: args.offset }, STIX_LIMIT);
      const issues = await readIssuePage<StixIssue>(db.read, stixColumns, { filters, limit, offset });
      return buildBundle(issues);
    },
  }),
);
