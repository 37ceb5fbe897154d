// Preloaded into a process a bench measures (`--import ./bench/mem-trace.mjs`), beside peak-rss.mjs:
// every two seconds, one stderr line `mem-trace {...}` with where the RSS is, in MB: V8's heap
// (used and reserved, and the old and large-object spaces), external memory (array buffers, and the
// WebAssembly memories: PGlite's PostgreSQL, Prisma's query compiler) and the array buffers alone.
// Cheap on purpose: reading /proc/self/smaps here kept the event loop busy enough that the server's
// idle collection (src/idle-collection.ts) never ran.
import { writeSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

const mb = (bytes) => Math.round(bytes / 2 ** 20);
const timer = setInterval(() => {
  const m = process.memoryUsage();
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s]));
  const line = {
    t: Math.round(process.uptime()),
    rss: mb(m.rss),
    heapUsed: mb(m.heapUsed),
    heapTotal: mb(m.heapTotal),
    old: mb(spaces.old_space?.space_used_size ?? 0),
    large: mb(spaces.large_object_space?.space_used_size ?? 0),
    external: mb(m.external),
    arrayBuffers: mb(m.arrayBuffers),
  };
  writeSync(2, `mem-trace ${JSON.stringify(line)}\n`);
}, 2000);
timer.unref();
