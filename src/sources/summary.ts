// What an operator reads about the sources at start-up: which are configured and what the feed is
// until one delivers (said once, plainly), then one line when every source has had its first
// sync: which synced, which failed and why. A failure in the first pass is told there, not as
// one error line per source.
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Logger } from '../log.js';
import type { SourceDefinition } from './definition.js';
import { latestDelivery } from './store.js';
import type { SyncOutcome } from './sync.js';

export interface FeedAtStart {
  sources: SourceDefinition[];
  /** Where the list came from, as the operator should read it. */
  from: string;
  /** The bundled sample's newest record (YYYY-MM-DD), when the sample is loaded. */
  sampleDate?: string;
}

export async function logFeedAtStart(prisma: PrismaClient, log: Logger, { sources, from, sampleDate }: FeedAtStart): Promise<void> {
  const sample = sampleDate ? `the bundled sample data (newest record ${sampleDate})` : 'what was ingested by hand';
  if (sources.length === 0) {
    log.info(`no sources configured: the feed is ${sample}${sampleDate ? ' and what is ingested by hand' : ''}`, { sources: [] });
    return;
  }
  log.info('sources configured', { from, sources: sources.map((s) => s.name) });
  const delivered = await latestDelivery(prisma);
  if (delivered)
    log.info('the feed holds what the sources delivered; they sync again now', { lastNewDataAt: delivered.lastNewDataAt, latestSource: delivered.name });
  else log.info(`no source has delivered yet: until one does, the feed is ${sample}`, { ...(sampleDate ? { sampleDate } : {}) });
}

/** The one line on the first pass: every configured source by what its first sync did. */
export function logFirstPass(log: Logger, outcomes: SyncOutcome[]): void {
  const named = (status: SyncOutcome['status']) => outcomes.filter((o) => o.status === status).map((o) => o.source);
  const failed = outcomes.filter((o) => o.status === 'failed').map((o) => ({ source: o.source, error: o.error ?? 'unexpected error' }));
  const created = outcomes.reduce((n, o) => n + o.counts.created, 0);
  const parts = [`${outcomes.length - failed.length} of ${outcomes.length} synced`, ...(failed.length ? [`${failed.length} failed`] : [])];
  log[failed.length ? 'warn' : 'info'](`sources' first sync done: ${parts.join(', ')}`, {
    synced: named('synced'),
    unchanged: named('unchanged'),
    // Held by another instance, which syncs it.
    elsewhere: named('busy'),
    failed,
    created,
  });
}
