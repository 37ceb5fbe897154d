// What `npm start` runs. The process re-executes itself once, before loading anything else, with
// the settings that only take effect at process start (reexec.ts: glibc malloc's) and V8's, which
// differ by database (bench/README.md, start-up and process memory, and throughput):
// - The embedded database is for one machine, where memory counts: V8's baseline Wasm compiler
//   only (--liftoff-only), as optimising PostgreSQL's largest Wasm functions as they get hot took
//   the server from about 260 MB to over 800 MB for its whole life and delayed its first answer;
//   and a 16 MB young generation (V8's default grew the heap to 200 MB for 63 MB used).
// - Against PostgreSQL the server is for many clients: a 32 MB young generation, so a scavenge
//   comes half as often, and each copies the rows of every request in flight. At 50 concurrent
//   requests it cut CPU per package-list request by about a sixth against 16 MB, with a lower RSS
//   under load; the only Wasm is Prisma's query compiler, whose plans are cached, so V8 compiles it as usual.
import { setSourceMapsSupport } from 'node:module';
import { loadConfigOrExit } from './config.js';
import { reexecWithStartSettings } from './reexec.js';

reexecWithStartSettings(loadConfigOrExit().databaseUrl ? ['--max-semi-space-size=32'] : ['--liftoff-only', '--max-semi-space-size=16']);
// Stack traces name our TypeScript source. Only our own files' maps: --enable-source-maps also
// parsed and kept every package's map, and the sources some of them embed (about 5 MB of heap).
setSourceMapsSupport(true);
await import('./main.js');
