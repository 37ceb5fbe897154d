// Runs the embedded database's initdb once, at install time, and keeps the empty cluster as a
// tarball that a fresh DATA_DIR starts from (src/db/pglite-template.ts). initdb in Wasm takes
// seconds and peaks near 800 MB, memory the server process would otherwise keep for its lifetime.
// postinstall runs it again whenever node_modules (and so PGlite) changes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';

const dir = new URL('../node_modules/.cache/secwire/', import.meta.url);
const pglite = new PGlite();
await pglite.waitReady;
const tarball = await pglite.dumpDataDir('gzip');
await pglite.close();
mkdirSync(dir, { recursive: true });
writeFileSync(new URL('pglite-cluster.tar.gz', dir), Buffer.from(await tarball.arrayBuffer()));
