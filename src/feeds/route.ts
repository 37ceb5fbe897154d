// GET /api/v1/issues.atom (the list route's filters, newest first) and GET /api/v1/digests.atom:
// plain routes (Atom is no GraphQL value), mounted before the REST plugin. Bad parameters get the
// list route's 400 envelopes.
import type { Plugin } from 'graphql-yoga';
import type { Services } from '../context.js';
import { queryParam, rejectUnknownParameters } from '../params.js';
import { digestPageSql } from '../digest/generate.js';
import { methodNotAllowed, readMethods } from '../http/methods.js';
import { columnsSql } from '../db/driver-read.js';
import { Prisma, type Digest } from '../generated/prisma/client.js';
import { filterDescriptions, issueFilterSql, issueOrderSql, parseIssueFilters, parsePage, queryFilters } from '../issues/filters.js';
import { caughtFailure, errorResponse } from '../http/envelope.js';
import { restBasePath } from '../rest/routes.js';
import { stackFeedAt } from '../stacks/feed.js';
import { ATOM_MEDIA_TYPE, atomIssueSelect, digestsAtom, issuesAtom, type AtomIssue } from './atom.js';

const ISSUES_ATOM_PATH = `${restBasePath}/issues.atom`;
const DIGESTS_ATOM_PATH = `${restBasePath}/digests.atom`;
const FEED_LIMIT = { defaultLimit: 50, maxLimit: 100 };
const atomColumns = columnsSql(Object.keys(atomIssueSelect));

export function useAtomFeeds({ config, db, log }: Pick<Services, 'config' | 'db' | 'log'>): Plugin {
  const feeds: Record<string, (query: URLSearchParams, urls: { selfUrl: string; origin: string }) => Promise<string>> = {
    [ISSUES_ATOM_PATH]: async (query, urls) => {
      rejectUnknownParameters(query, [...Object.keys(filterDescriptions), 'limit']);
      const where = issueFilterSql(parseIssueFilters(queryFilters(query)));
      const { limit } = parsePage({ limit: queryParam(query, 'limit') }, FEED_LIMIT);
      const issues = await db.read<AtomIssue>(Prisma.sql`SELECT ${atomColumns} FROM "Issue" WHERE ${where} ORDER BY ${issueOrderSql} LIMIT ${limit}`);
      return issuesAtom(issues, urls);
    },
    [DIGESTS_ATOM_PATH]: async (query, urls) => {
      rejectUnknownParameters(query, ['limit']);
      const { limit } = parsePage({ limit: queryParam(query, 'limit') }, FEED_LIMIT);
      return digestsAtom(await db.read<Digest>(digestPageSql(Prisma.sql`*`, limit)), urls);
    },
  };
  return {
    // Synchronous for every other path (http/guard.ts, onRequestFor).
    onRequest({ request, url, endResponse }) {
      // Stack feeds (/stacks/{token}.atom) are the one pattern among fixed paths.
      const feed = feeds[url.pathname] ?? stackFeedAt({ config, db }, url.pathname);
      if (!feed) return;
      // HEAD arrives as GET (useHead).
      if (request.method !== 'GET') return endResponse(methodNotAllowed(request.method, url.pathname, readMethods));
      return feed(url.searchParams, { selfUrl: url.href, origin: url.origin }).then(
        (xml) => endResponse(new Response(xml, { headers: { 'Content-Type': ATOM_MEDIA_TYPE, 'Cache-Control': 'no-store' } })),
        (err: unknown) => {
          const { status, message } = caughtFailure(err, log);
          endResponse(errorResponse(status, message));
        },
      );
    },
  };
}
