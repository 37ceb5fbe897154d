// What `npm start` runs. The process re-executes itself once, before loading anything else, with
// the settings that only take effect at process start (reexec.ts: glibc malloc's), and on the
// embedded database with V8's baseline Wasm compiler only (--liftoff-only): optimising
// PostgreSQL's largest Wasm functions as they get hot took the embedded server from about 260 MB to
// over 800 MB for its whole life, and delayed its first answer (bench/README.md, start-up and
// process memory). Against PostgreSQL the only Wasm is Prisma's query compiler, whose plans are
// cached, so that process keeps V8's defaults.
import { setSourceMapsSupport } from 'node:module';
import { loadConfigOrExit } from './config.js';
import { reexecWithStartSettings } from './reexec.js';

reexecWithStartSettings(loadConfigOrExit().databaseUrl ? [] : ['--liftoff-only']);
// Stack traces name our TypeScript source. Only our own files' maps: --enable-source-maps also
// parsed and kept every package's map, and the sources some of them embed (about 5 MB of heap).
setSourceMapsSupport(true);
await import('./main.js');
