// GET /api/v1/stacks/{token}.atom: the issues affecting a watched stack now (the scan's answer for
// its components, kept per stack and data version: stacks/findings.ts), newest first, for people
// who read feeds instead of running receivers. The token is looked up by its hash; a revoked token,
// a deleted webhook or a revoked owner key is a 404.
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import { columnsSql } from '../db/driver-read.js';
import { notFound } from '../errors.js';
import { atomIssueSelect, FEED_LIMIT, issuesAtom, type AtomIssue } from '../feeds/atom.js';
import { parsePage } from '../issues/filters.js';
import { readServedIssues } from '../issues/reads.js';
import { sha256Hex } from '../keys/bearer.js';
import { queryParam, rejectUnknownParameters } from '../params.js';
import { stackWorkCost } from './cost.js';
import { stackFindings } from './findings.js';
import { readStackByFeedTokenHash } from './store.js';
import { feedTokenShape, ownerKeyActive, storedComponents } from './watched.js';

const atomColumns = columnsSql(Object.keys(atomIssueSelect));

type Feed = (query: URLSearchParams, urls: { selfUrl: string; origin: string }) => Promise<string>;

/** The feed of the stack a feed token names (stackFeedPath's token). */
export function stackFeed(
  { config, db }: { config: Pick<Config, 'webhookApiKey'>; db: Database },
  token: string,
  chargeWork: (cost: number) => Promise<void>,
): Feed {
  return async (query, urls) => {
    rejectUnknownParameters(query, ['limit']);
    const { limit } = parsePage({ limit: queryParam(query, 'limit') }, FEED_LIMIT);
    const stack = feedTokenShape.test(token) ? await readStackByFeedTokenHash(db.prisma, sha256Hex(token)) : null;
    if (!stack || !(await ownerKeyActive(config, db.prisma, stack.webhook.ownerKeyHash))) throw notFound('Feed not found');
    const components = storedComponents(stack.components);
    // Anonymous: the address pays, by the stack's size, as for the findings.
    await chargeWork(stackWorkCost(components.length));
    const ids = (await stackFindings(db, components)).data.map((m) => m.id);
    const issues = ids.length ? await readServedIssues<AtomIssue>(db.read, atomColumns, ids, limit) : [];
    return issuesAtom(issues, urls, 'secwire: AI-security issues affecting a watched stack');
  };
}
