// STIX 2.1 export: GET /api/v1/issues/stix and Query.stixBundle. The bundle is a JSON scalar, so
// REST answers the bundle itself, not an envelope.
import { badRequest } from '../errors.js';
import { parseSince } from '../issues/since.js';
import { servedIssue } from '../issues/served.js';
import { buildBundle, stixIssueSelect } from '../stix/bundle.js';
import { builder } from './builder.js';
import { IssueTypeEnum, SeverityEnum } from './issue-type.js';

export const STIX_LIMIT_DEFAULT = 50;
export const STIX_LIMIT_MAX = 100;

builder.queryField('stixBundle', (t) =>
  t.field({
    type: 'JSON',
    description:
      'Served issues as a STIX 2.1 bundle, newest first: a vulnerability per issue, attack patterns for attack types and MITRE ATLAS ' +
      'techniques, courses of action from solutions, the secwire identity, TLP:CLEAR and CC BY 4.0 markings. Object ids are stable across exports.',
    args: {
      severity: t.arg({ type: SeverityEnum, description: 'Only issues of this severity.' }),
      issueType: t.arg({ type: IssueTypeEnum, description: 'Only issues of this type.' }),
      since: t.arg.string({ description: 'Only issues published after this ISO 8601 date or date-time.' }),
      limit: t.arg.int({ description: `Maximum issues in the bundle; default ${STIX_LIMIT_DEFAULT}, values above ${STIX_LIMIT_MAX} count as ${STIX_LIMIT_MAX}.` }),
    },
    resolve: async (_root, args, { prisma }) => {
      const limit = args.limit ?? STIX_LIMIT_DEFAULT;
      if (limit < 1) throw badRequest('limit must be a whole number of at least 1');
      const since = parseSince(args.since);
      const issues = await prisma.issue.findMany({
        where: {
          ...servedIssue,
          ...(args.severity ? { severity: args.severity } : {}),
          ...(args.issueType ? { issueType: args.issueType } : {}),
          ...(since ? { publishedAt: { gt: since } } : {}),
        },
        orderBy: [{ publishedAt: 'desc' }, { id: 'desc' }],
        take: Math.min(limit, STIX_LIMIT_MAX),
        select: stixIssueSelect,
      });
      return buildBundle(issues);
    },
  }),
);
