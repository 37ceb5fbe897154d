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

/**
 * V8's settings for the server (start.ts), which differ by database (bench/README.md, start-up and
 * process memory, and throughput):
 * - The embedded database is for one machine, where memory counts: V8's baseline Wasm compiler
 *   only (--liftoff-only), as optimising PostgreSQL's largest Wasm functions as they get hot took
 *   the server from about 260 MB to over 800 MB for its whole life and delayed its first answer;
 *   and a 16 MB young generation (V8's default grew the heap to 200 MB for 63 MB used).
 * - Against PostgreSQL the server is for many clients: a 32 MB young generation, so a scavenge
 *   comes half as often, and each copies the rows of every request in flight. At 50 concurrent
 *   requests it cut CPU per package-list request by about a sixth against 16 MB, with a lower RSS
 *   under load; the only Wasm is Prisma's query compiler, whose plans are cached, so V8 compiles it as usual.
 */
export function serverV8Flags(database: 'postgres' | 'pglite'): string[] {
  return database === 'postgres' ? ['--max-semi-space-size=32'] : ['--liftoff-only', '--max-semi-space-size=16'];
}

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
