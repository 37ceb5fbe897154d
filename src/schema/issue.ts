// Reading issues: the list with its page metadata, one issue by id and one by alias. The Issue
// type itself is in issue-type.ts.
import { badRequest, notFound } from '../errors.js';
import type { Issue } from '../generated/prisma/client.js';
import { cursorDescription } from '../issues/cursor.js';
import { filterDescriptions, issueFilterSql, pageDescriptions, parseIssueFilters, parsePage } from '../issues/filters.js';
import { readFirstIssue, readIssueChanges, readIssuePage, readServedIssue } from '../issues/reads.js';
import { builder, envelopeRef } from './builder.js';
import { issueColumns } from './columns.js';
import { IssueRef, IssueTypeEnum, SeverityEnum } from './issue-type.js';

/** A page's place in the whole result; the total is counted only when asked for. */
interface PageMeta {
  total: () => Promise<number>;
  limit: number;
  offset: number;
}

export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => (result ??= load());
}

export const PageMetaRef = builder.objectRef<PageMeta>('PageMeta').implement({
  description: 'Where a page sits in the whole result.',
  fields: (t) => ({
    total: t.int({ description: 'Number of items matching the filters.', resolve: (page) => page.total() }),
    limit: t.exposeInt('limit', { description: 'Page size in effect (requests above the maximum are clamped).' }),
    offset: t.exposeInt('offset', { description: 'Items skipped before this page.' }),
  }),
});

const IssueListRef = envelopeRef('IssueList', {
  description: 'One page of issues, with its page metadata.',
  data: { type: [IssueRef], description: 'The issues, newest first (publishedAt, then id, descending).' },
  meta: { type: PageMetaRef, description: 'Total, limit and offset.' },
});

const IssueEnvelopeRef = envelopeRef('IssueEnvelope', { description: 'One issue under `data`.', data: { type: IssueRef, description: 'The issue.' } });

builder.queryFields((t) => ({
  issues: t.field({
    type: IssueListRef,
    description:
      'Served issues (relevant, processed, not withdrawn) matching every given filter, newest first (publishedAt, then id, descending), one page at a time.',
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
      alias: t.arg.string({ description: filterDescriptions.alias }),
      cursor: t.arg.string({ description: cursorDescription }),
      modifiedSince: t.arg.string({ description: filterDescriptions.modifiedSince }),
      knownExploited: t.arg.boolean({ description: filterDescriptions.knownExploited }),
    },
    resolve: (_root, args, context, info) => {
      const filters = parseIssueFilters(args);
      const { limit, offset } = parsePage(args);
      if (args.cursor && offset > 0) throw badRequest('Give cursor or offset, not both');
      // modifiedSince pages in the order of changes, where a publication cursor means nothing.
      if (args.cursor && filters.modifiedSince) throw badRequest('Give cursor or modifiedSince, not both');
      // The selection under `data` decides the columns (no per-row queries, no unused columns); the
      // total counts every match, only the rows start after the cursor.
      return {
        data: once(() => readIssuePage<Issue>(context.db.read, issueColumns(info, ['data']), { filters, cursor: args.cursor, limit, offset })),
        meta: { total: once(() => context.countIssues(issueFilterSql(filters))), limit, offset },
      };
    },
  }),

  issue: t.field({
    type: IssueEnvelopeRef,
    // Nullable so that a missing issue spoils only this field of a larger query, not all of it.
    nullable: true,
    description: 'One served issue by id. Unknown, malformed, non-relevant, unprocessed and withdrawn ids are all NOT_FOUND (404).',
    args: { id: t.arg.id({ required: true, description: 'The issue UUID.' }) },
    resolve: async (_root, { id }, context, info) => {
      const issue = await readServedIssue<Issue>(context.db.read, issueColumns(info, ['data']), String(id));
      if (!issue) throw notFound('Issue not found');
      return { data: issue };
    },
  }),

  issueByAlias: t.field({
    type: IssueEnvelopeRef,
    nullable: true,
    description:
      'The served issue known by an identifier: a CVE, GHSA, PYSEC or other advisory id, or an ATLAS case study id (case-insensitive). NOT_FOUND (404) when no served issue carries it. Over REST: the alias parameter of the issue list.',
    args: { alias: t.arg.string({ required: true, description: filterDescriptions.alias }) },
    resolve: async (_root, args, context, info) => {
      const issue = await readFirstIssue<Issue>(context.db.read, issueColumns(info, ['data']), parseIssueFilters({ alias: args.alias }));
      if (!issue) throw notFound('No issue has this alias');
      return { data: issue };
    },
  }),
}));

/** A changed issue's row: the columns of its selected Issue fields plus what the change itself says. */
type IssueChangeRow = Issue;

const IssueChangeRef = builder.objectRef<IssueChangeRow>('IssueChange').implement({
  description: 'One change for a mirror to apply: the issue as now served, or its withdrawal.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The issue UUID.' }),
    modifiedAt: t.expose('modifiedAt', { type: 'DateTime', description: 'When the change was made; poll again from the last one seen.' }),
    withdrawn: t.exposeBoolean('withdrawn', { description: 'True when the issue is no longer served (its source withdrew it): drop it.' }),
    issue: t.field({
      type: IssueRef,
      nullable: true,
      description: 'The issue as now served; null when withdrawn.',
      resolve: (row) => (row.withdrawn ? null : row),
    }),
  }),
});

builder.queryFields((t) => ({
  issueChanges: t.field({
    type: [IssueChangeRef],
    description:
      'Changes to issues made strictly after modifiedSince, oldest first (modifiedAt, then id): new and updated issues, and withdrawals, which the list no longer shows. A mirror polls again from the modifiedAt of the last change it saw, and sees each change once.',
    args: {
      modifiedSince: t.arg.string({ required: true, description: filterDescriptions.since.replace('published', 'changed') }),
      limit: t.arg.int({ description: pageDescriptions.limit(100, 1000) }),
    },
    resolve: (_root, args, context, info) => {
      const { modifiedSince } = parseIssueFilters({ modifiedSince: args.modifiedSince });
      const { limit } = parsePage({ limit: args.limit }, { defaultLimit: 100, maxLimit: 1000 });
      // An empty modifiedSince is no bound, as for the list.
      return readIssueChanges<IssueChangeRow>(context.db.read, issueColumns(info, ['issue']), modifiedSince, limit);
    },
  }),
}));
