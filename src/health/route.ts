// GET /health (the process is up) and GET /ready (it can serve): the probes orchestrators send.
// Yoga's own health check is not used: it answers any method, and any URL that merely ends in
// /health.
import type { Services } from '../context.js';
import { withinDeadline } from '../db/deadline.js';
import { isMigrated } from '../db/status.js';
import { RETRY_AFTER_SECONDS } from '../db/unavailable.js';
import type { PlainCall } from '../http/route-matcher.js';
import { sourceStatuses } from '../sources/status.js';

/**
 * How long GET /ready waits for the database before answering 503: under 1 s, so the answer, not
 * only the wait, is within the second the probe allows (bench/components.md, hanging PostgreSQL).
 */
export const READY_TIMEOUT_MS = 900;

export const health = () => Response.json({ status: 'ok' });

/**
 * GET /ready: the database answers within a second and every migration is applied. A database
 * that hangs (a lost network, a full pool) counts as down as soon as one that refuses. With
 * sources configured it also says when each last synced and why it last failed (a failing source
 * does not make the instance unready: it keeps serving what it has).
 */
export function readiness({ config, db }: Pick<Services, 'config' | 'db'>) {
  return async ({ fetchAPI }: PlainCall): Promise<Response> => {
    // One deadline for the whole answer: a database that answers the migration check and then
    // hangs on the source statuses must not hold the probe either.
    const check = async () => {
      if (!(await isMigrated(db))) return undefined;
      return { sources: config.sources.length ? await sourceStatuses(db.prisma, config.sources).catch(() => undefined) : undefined };
    };
    const state = await withinDeadline(
      check().catch(() => undefined),
      READY_TIMEOUT_MS,
    );
    const ready = state !== undefined;
    const sources = state?.sources;
    const headers: Record<string, string> = ready ? {} : { 'Retry-After': String(RETRY_AFTER_SECONDS) };
    const body = {
      status: ready ? 'ready' : 'not ready',
      ...(sources ? { sources: sources.map(({ name, kind, lastSuccessAt, lastError }) => ({ name, kind, lastSuccessAt, lastError })) } : {}),
    };
    return fetchAPI.Response.json(body, { status: ready ? 200 : 503, headers });
  };
}
