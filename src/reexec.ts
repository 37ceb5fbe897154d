// The settings a process can only take when it starts, applied by re-executing itself once before
// it loads anything else: what `npm start` (start.ts) and `npm run cli` (cli.ts) both run first.
// glibc malloc settings, each unless the environment chose its own (glibc reads them once, when
// the process starts; bench/README.md, start-up and process memory):
// - One arena (MALLOC_ARENA_MAX=1): every thread that allocates (V8's compiler and GC threads,
//   libuv's pool) got an arena of its own, and glibc keeps the pages it
//   touched; those arenas were 25 MB of an idle server's 175, and the part of a long sync's RSS
//   that grew outside V8's heap.
// - A fixed mmap threshold (MALLOC_MMAP_THRESHOLD_, glibc's own starting value): glibc otherwise
//   raises it to the size of each large block freed, so start-up's large buffers (module sources,
//   the query compiler's Wasm) came from the heap and left holes it never gives back; 8 MB of a
//   restarted server's 133.
// (Where the platform has no execve, the process simply runs as started.)
import { readEnvironment } from './config.js';

const mallocSettings = { MALLOC_ARENA_MAX: '1', MALLOC_MMAP_THRESHOLD_: '131072' };

/** Re-executes this process with `flags` added to node's own and the malloc settings, unless it already runs with them. */
export function reexecWithStartSettings(flags: string[] = []): void {
  const environment = readEnvironment();
  const missingFlags = flags.filter((flag) => !process.execArgv.includes(flag));
  const malloc = Object.entries(mallocSettings).filter(([name]) => environment[name] === undefined);
  if (missingFlags.length === 0 && malloc.length === 0) return;
  process.execve?.(process.execPath, [process.execPath, ...missingFlags, ...process.execArgv, ...process.argv.slice(1)], {
    ...environment,
    ...Object.fromEntries(malloc),
  });
}
