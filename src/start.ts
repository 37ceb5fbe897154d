// What `npm start` runs. The process re-executes itself once, before loading anything else, where
// it needs a setting that only takes effect at process start (bench/README.md, start-up and process
// memory):
// - On the embedded database, V8's baseline Wasm compiler only (--liftoff-only): optimising
//   PostgreSQL's largest Wasm functions as they get hot took the embedded server from about 260 MB
//   to over 800 MB for its whole life, and delayed its first answer. Against PostgreSQL the only
//   Wasm is Prisma's query compiler, whose plans are cached, so that process keeps V8's defaults.
// - glibc malloc settings, each unless the environment chose its own (glibc reads them once, when
//   the process starts). One arena (MALLOC_ARENA_MAX=1): every thread that allocates (V8's compiler
//   and GC threads, libuv's pool, the migration worker) got an arena of its own, and glibc keeps
//   the pages it touched; those arenas were 25 MB of an idle server's 175. A fixed mmap threshold
//   (MALLOC_MMAP_THRESHOLD_, glibc's own starting value): glibc otherwise raises it to the size of
//   each large block freed, so start-up's large buffers (module sources, the query compiler's
//   Wasm) came from the heap and left holes it never gives back; 8 MB of a restarted server's 133.
// (Where the platform has no execve, the process simply runs as started.)
import { setSourceMapsSupport } from 'node:module';
import { loadConfigOrExit, readEnvironment } from './config.js';

const liftoffOnly = '--liftoff-only';
const environment = readEnvironment();
const flags = !loadConfigOrExit().databaseUrl && !process.execArgv.includes(liftoffOnly) ? [liftoffOnly] : [];
const malloc = Object.entries({ MALLOC_ARENA_MAX: '1', MALLOC_MMAP_THRESHOLD_: '131072' }).filter(([name]) => environment[name] === undefined);
if (flags.length || malloc.length) {
  process.execve?.(process.execPath, [process.execPath, ...flags, ...process.execArgv, ...process.argv.slice(1)], { ...environment, ...Object.fromEntries(malloc) });
}
// Stack traces name our TypeScript source. Only our own files' maps: --enable-source-maps also
// parsed and kept every package's map, and the sources some of them embed (about 5 MB of heap).
setSourceMapsSupport(true);
await import('./main.js');
