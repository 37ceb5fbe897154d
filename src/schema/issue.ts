// Reading issues: the list with its page metadata (GET /api/v1/issues) and one issue by id
// (GET /api/v1/issues/:id). The Issue type itself is in issue-type.ts.
import { notFound } from '../errors.js';
import { isUuid } from '../http/params.js';
import type { Issue } from '../generated/prisma/client.js';
import { filterDescriptions, issueOrder, issueWhere, pageDescriptions, parseIssueFilters, parsePage } from '../issues/filters.js';
import { servedIssue } from '../issues/served.js';
import { builder, selectionUnder } from './builder.js';
import { IssueRef, IssueTypeEnum, SeverityEnum } from './issue-type.js';

/** Both halves start only when asked for, so a query for `meta` alone runs no row query, and vice versa. */
interface IssuePage {
  rows: () => Promise<Issue[]>;
  total: () => Promise<number>;
  limit: number;
  offset: number;
}

function once<T>(load: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => (result ??= load());
}

export const PageMetaRef = builder.objectRef<Omit<IssuePage, 'rows'>>('PageMeta').implement({
  description: 'Where a page sits in the whole result.',
  fields: (t) => ({
    total: t.int({ description: 'Number of items matching the filters.', resolve: (page) => page.total() }),
    limit: t.exposeInt('limit', { description: 'Page size in effect (requests above the maximum are clamped).' }),
    offset: t.exposeInt('offset', { description: 'Items skipped before this page.' }),
  }),
});

const IssueListRef = builder.objectRef<IssuePage>('IssueList').implement({
  description: 'One page of issues: the GET /api/v1/issues response.',
  fields: (t) => ({
    data: t.field({ type: [IssueRef], description: 'The issues, newest first (publishedAt, then id, descending).', resolve: (page) => page.rows() }),
    meta: t.field({ type: PageMetaRef, description: 'Total, limit and offset.', resolve: (page) => page }),
  }),
});

const IssueEnvelopeRef = builder.objectRef<{ data: Issue }>('IssueEnvelope').implement({
  description: 'One issue: the GET /api/v1/issues/:id response.',
  fields: (t) => ({ data: t.field({ type: IssueRef, description: 'The issue.', resolve: (envelope) => envelope.data }) }),
});

// Postgres rejects a malformed uuid with an error; a malformed id is simply not found.

builder.queryFields((t) => ({
  issues: t.field({
    type: IssueListRef,
    description:
      'Served issues (relevant, processed, not withdrawn) matching every given filter, newest first (publishedAt, then id, descending), one page at a time. REST: GET /api/v1/issues.',
    args: {
      search: t.arg.string({ description: filterDescriptions.search }),
      label: t.arg.stringList({ description: filterDescriptions.label }),
      severity: t.arg({ type: SeverityEnum, description: filterDescriptions.severity }),
      issueType: t.arg({ type: IssueTypeEnum, description: filterDescriptions.issueType }),
      vendor: t.arg.string({ description: filterDescriptions.vendor }),
      package: t.arg.string({ description: filterDescriptions.package }),
      since: t.arg.string({ description: filterDescriptions.since }),
      limit: t.arg.int({ description: pageDescriptions.limit(20, 100) }),
      offset: t.arg.int({ description: pageDescriptions.offset }),
      confidenceMin: t.arg.float({ description: filterDescriptions.confidenceMin }),
    },
    resolve: (_root, args, context, info) => {
      const where = issueWhere(parseIssueFilters(args));
      const { limit, offset } = parsePage(args);
      // The selection under `data` decides the columns (no per-row queries, no unused columns).
      const query = selectionUnder('data', context, info);
      return {
        rows: once(() => context.prisma.issue.findMany({ ...query, where, orderBy: issueOrder, take: limit, skip: offset })),
        total: once(() => context.prisma.issue.count({ where })),
        limit,
        offset,
      };
    },
  }),

  issue: t.field({
    type: IssueEnvelopeRef,
    // Nullable so that a missing issue spoils only this field of a larger query, not all of it.
    nullable: true,
    description:
      'One served issue by id. Unknown, malformed, non-relevant, unprocessed and withdrawn ids are all NOT_FOUND (404). REST: GET /api/v1/issues/:id.',
    args: { id: t.arg.id({ required: true, description: 'The issue UUID.' }) },
    resolve: async (_root, { id }, context, info) => {
      if (!isUuid(String(id))) throw notFound('Issue not found');
      const issue = await context.prisma.issue.findFirst({
        ...selectionUnder('data', context, info),
        where: { ...servedIssue, id: String(id) },
      });
      if (!issue) throw notFound('Issue not found');
      return { data: issue };
    },
  }),
}));
