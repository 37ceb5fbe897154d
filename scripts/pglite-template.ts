// Runs the embedded database's initdb and every migration once, at install time, and keeps the
// migrated, empty cluster as a tarball that a fresh DATA_DIR starts from (src/db/pglite-template.ts).
// initdb in Wasm takes seconds and peaks near 800 MB, and the migration engine is another Wasm module
// to compile: work and memory a server would otherwise spend on its first start and keep for its
// lifetime. postinstall runs this again whenever node_modules changes; a migration added since is
// applied at start-up like on any other database.
import { mkdirSync, writeFileSync } from 'node:fs';
import { openPGlite } from '../src/db/pglite.js';
import { migrate } from '../src/db/migrator.js';
import { templatePath } from '../src/db/pglite-template.js';

const db = await openPGlite();
await migrate(db.adapterFactory);
const tarball = await db.pglite.dumpDataDir('gzip');
await db.close();
mkdirSync(new URL('.', `file://${templatePath}`), { recursive: true });
writeFileSync(templatePath, Buffer.from(await tarball.arrayBuffer()));
