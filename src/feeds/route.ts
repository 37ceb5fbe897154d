// GET /api/v1/issues.atom (the list route's filters, newest first), GET /api/v1/digests.atom and
// the stack feeds: plain routes (Atom is no GraphQL value, src/server/plain-routes.ts). Bad
// parameters get the list route's 400 envelopes.
import type { Services } from '../context.js';
import { queryParam, rejectUnknownParameters } from '../params.js';
import { readDigestPage } from '../digest/store.js';
import type { PathPattern, PlainCall } from '../http/route-matcher.js';
import { columnsSql } from '../db/driver-read.js';
import { Prisma } from '../generated/prisma/client.js';
import { filterDescriptions, parseIssueFilters, parsePage, queryFilters } from '../issues/filters.js';
import { readLatestIssues } from '../issues/reads.js';
import { caughtFailure, errorResponse } from '../http/envelope.js';
import { restBasePath } from '../rest/routes.js';
import { stackFeedToken } from '../api-paths.js';
import { stackFeed } from '../stacks/feed.js';
import { ATOM_MEDIA_TYPE, atomIssueSelect, FEED_LIMIT, digestsAtom, issuesAtom, type AtomIssue } from './atom.js';

export const ISSUES_ATOM_PATH = `${restBasePath}/issues.atom`;
export const DIGESTS_ATOM_PATH = `${restBasePath}/digests.atom`;
/** Stack feeds (/api/v1/stacks/{token}.atom); the group is the token. */
export const STACK_FEED_PATTERN: PathPattern = {
  prefix: `${restBasePath}/stacks/`,
  match: (pathname) => {
    const token = stackFeedToken(pathname);
    return token === undefined ? undefined : [pathname, token];
  },
};
const atomColumns = columnsSql(Object.keys(atomIssueSelect));

type Feed = (query: URLSearchParams, urls: { selfUrl: string; origin: string }) => Promise<string>;

/** A feed's answer: the Atom document, or the list route's 400 envelopes for bad parameters. */
function atomAnswer(feed: Feed, log: Services['log']) {
  return ({ url }: PlainCall): Promise<Response> =>
    feed(url.searchParams, { selfUrl: url.href, origin: url.origin }).then(
      (xml) => new Response(xml, { headers: { 'Content-Type': ATOM_MEDIA_TYPE, 'Cache-Control': 'no-store' } }),
      (err: unknown) => {
        const { status, message, headers } = caughtFailure(err, log);
        return errorResponse(status, message, headers);
      },
    );
}

export function issuesAtomFeed({ db, log }: Pick<Services, 'db' | 'log'>) {
  return atomAnswer(async (query, urls) => {
    rejectUnknownParameters(query, [...Object.keys(filterDescriptions), 'limit']);
    const filters = parseIssueFilters(queryFilters(query));
    const { limit } = parsePage({ limit: queryParam(query, 'limit') }, FEED_LIMIT);
    const issues = await readLatestIssues<AtomIssue>(db.read, atomColumns, filters, limit);
    return issuesAtom(issues, urls);
  }, log);
}

export function digestsAtomFeed({ db, log }: Pick<Services, 'db' | 'log'>) {
  return atomAnswer(async (query, urls) => {
    rejectUnknownParameters(query, ['limit']);
    const { limit } = parsePage({ limit: queryParam(query, 'limit') }, FEED_LIMIT);
    return digestsAtom(await readDigestPage(db.read, Prisma.sql`*`, limit), urls);
  }, log);
}

/** The anonymous stack feed: its units beyond the first, by the stack's size, are counted once the token is looked up. */
export function stackAtomFeed({ config, db, log }: Pick<Services, 'config' | 'db' | 'log'>, charge: (call: PlainCall, cost: number) => Promise<void>) {
  return (call: PlainCall) =>
    atomAnswer(
      stackFeed({ config, db }, call.match[1]!, (cost) => charge(call, cost)),
      log,
    )(call);
}
