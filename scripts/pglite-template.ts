// Runs the embedded database's initdb and every migration once, at install time, and keeps the
// migrated, empty cluster as a tarball that a fresh DATA_DIR starts from (src/db/pglite-template.ts);
// then seeds the sample data into it and keeps that too, with the key of the code and data it was
// built from, so a fresh `npm start` unpacks the sample instead of classifying it.
// initdb in Wasm takes seconds and peaks near 800 MB, and the migration engine is another Wasm module
// to compile: work and memory a server would otherwise spend on its first start and keep for its
// lifetime. postinstall runs this again whenever node_modules changes; a migration added since is
// applied at start-up like on any other database (and the seeded cluster no longer matches, so the
// server seeds as before).
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { openPGlite } from '../src/db/pglite.js';
import { migrate } from '../src/db/migrator.js';
import { installedTemplates as templates, seedInputsKey, type SeededTemplate } from '../src/db/pglite-template.js';
import { createLogger } from '../src/log.js';
import { createIssuePubSub } from '../src/pubsub.js';
import { seedSampleData } from '../src/server/seed.js';

/** Written whole or not at all: a cut-short install leaves the previous file or none. */
function writeAtomically(path: string, data: string | Buffer): void {
  writeFileSync(`${path}.tmp`, data);
  renameSync(`${path}.tmp`, path);
}

const db = await openPGlite();
// A checkpoint first, so that opening the copy replays no WAL. Uncompressed: a fresh start unpacks
// it before its first answer, and gunzip was a large part of the unpacking; the disk is cheaper.
const dump = async () => {
  await db.pglite.exec('CHECKPOINT');
  return Buffer.from(await (await db.pglite.dumpDataDir('none')).arrayBuffer());
};
try {
  mkdirSync(dirname(templates.empty), { recursive: true });
  rmSync(templates.seededManifest, { force: true });
  const key = await seedInputsKey();
  await migrate(db.adapterFactory);
  // The server connects only to the cluster's `postgres` database: template0 and template1 would be
  // half the files a fresh start unpacks.
  await db.pglite.exec(`UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')`);
  await db.pglite.exec('DROP DATABASE template0');
  await db.pglite.exec('DROP DATABASE template1');
  writeAtomically(templates.empty, await dump());

  // The same seed a server runs at start: nothing subscribes to this in-process topic, just as
  // nothing has subscribed yet when a server seeds, so the events are marked relayed in both.
  const { pubsub } = createIssuePubSub();
  const seeded = await seedSampleData({ prisma: db.prisma, pubsub, log: createLogger('silent'), db });
  if (!seeded) throw new Error('a new cluster already held issues');
  writeAtomically(templates.seeded, await dump());
  const manifest: SeededTemplate = { key, created: seeded.created, rejected: seeded.rejected.length, digests: seeded.digests };
  writeAtomically(templates.seededManifest, `${JSON.stringify(manifest)}\n`);
} finally {
  await db.close();
}
// The schema engine leaves a 10 s timer behind, which would hold the install that long for nothing.
process.exit(0);
