// One sync of an osv-zip source in its own process, so its peak RSS is the sync's own (run by
// bench/sources.ts):  npx tsx bench/sources-sync.ts <zip> [--fresh-read]
// The database comes from DATABASE_URL (PostgreSQL) or DATA_DIR (PGlite on disk). --fresh-read
// forgets the file's validators first, so an unchanged file is read again and every record is
// checked (the worst case of a re-run; with validators it is one stat or one 304).
import { parseArgs } from 'node:util';
import { parseConfig, readEnvironment } from '../src/config.js';
import { openConfiguredDatabase } from '../src/db/open.js';
import { createLogger } from '../src/log.js';
import { createIssuePubSub } from '../src/pubsub.js';
import { syncSource } from '../src/sources/sync.js';

const { values, positionals } = parseArgs({
  options: { 'fresh-read': { type: 'boolean', default: false }, 'chunk-size': { type: 'string' } },
  allowPositionals: true,
});
const config = parseConfig({ ...readEnvironment(), LOG_LEVEL: 'error' });
const log = createLogger('error');
const db = await openConfiguredDatabase(config, log);
const { pubsub, close } = createIssuePubSub();
const marks = async () => {
  const [events, latest] = await Promise.all([db.prisma.issueEvent.count(), db.prisma.issue.aggregate({ _max: { modifiedAt: true } })]);
  return { events, latest: latest._max.modifiedAt?.toISOString() ?? null };
};
try {
  if (values['fresh-read']) await db.prisma.sourceState.updateMany({ where: { name: 'bench' }, data: { cursor: {} } });
  const before = await marks();
  const outcome = await syncSource(
    { prisma: db.prisma, pubsub, log, db },
    { name: 'bench', kind: 'osv-zip', location: positionals[0]!, intervalMinutes: 60 },
    { allowPrivate: false, relay: false, chunkSize: values['chunk-size'] ? Number(values['chunk-size']) : undefined },
  );
  const after = await marks();
  const served = await db.prisma.issue.count({ where: { relevant: true } });
  console.log(
    JSON.stringify({
      ...outcome,
      served,
      newEvents: after.events - before.events,
      modifiedAtMoved: after.latest !== before.latest,
      peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
      memoryMb: Object.fromEntries(Object.entries(process.memoryUsage()).map(([k, v]) => [k, Math.round(v / 1024 / 1024)])),
    }),
  );
} finally {
  await close();
  await db.close();
}
