// One client looping the exports, and 50 slow readers of them, while another client reads (issue
// 27): the reader's latency, the looper's download time, what the slow readers were answered, and
// the process's RSS growth, with a real listening server on the embedded database or PostgreSQL.
// - The reader runs in a process of its own (a blocked event loop here would also delay its sends)
//   and asks with Cache-Control: no-cache, so each read goes to the database.
// - Each slow reader is a client of its own (its own loopback address, 127.0.0.2 and up), asks for
//   the exports in turn and reads about 64 KB every 500 ms; the exports' caps answer most of them
//   429 (two downloads per client) or 503 (sixteen per instance), and they ask again a second later.
// - RSS is this process's: the server, the looper and the slow readers (their sockets' unread bytes
//   are in the kernel, not here).
//
//   npx tsx bench/export-loop.ts [--db pglite|postgres] [--issues 4000] [--seconds 15] [--slow 50]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { buffer } from 'node:stream/consumers';
import { parseArgs } from 'node:util';
import { createApp } from '../src/server/app.js';
import { testConfig } from '../src/config.js';
import { createHttpServer } from '../src/http/server.js';
import { createLogger } from '../src/log.js';
import { createIssuePubSub } from '../src/pubsub.js';
import { generateIssues } from './issue-rows.js';
import { fileURLToPath } from 'node:url';
import { scratchPGlite, scratchPostgres } from './scratch-databases.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'pglite' },
    issues: { type: 'string', default: '4000' },
    seconds: { type: 'string', default: '15' },
    slow: { type: 'string', default: '50' },
  },
});
const issues = Number(values.issues);
const seconds = Number(values.seconds);
const slowReaders = Number(values.slow);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

const bench = values.db === 'postgres' ? await scratchPostgres() : await scratchPGlite();
await generateIssues((q) => bench.sql(q), issues);
const config = testConfig({ rateLimitPerMinute: 0 });
const { pubsub } = createIssuePubSub(config);
const app = createApp({ config, db: bench.db, log: createLogger('error'), pubsub });
const server = createHttpServer(app);
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const port = (server.address() as AddressInfo).port;
const base = `http://127.0.0.1:${port}`;

async function download(path: string): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const res = await fetch(`${base}${path}`);
  await res.arrayBuffer();
  return { ms: performance.now() - started, status: res.status };
}

const exportsPaths = ['/api/v1/osv/all.zip', '/api/issues/export', '/api/v1/osv/ecosystems.txt'];
const first: Record<string, number> = {};
for (const path of exportsPaths) first[path] = Math.round((await download(path)).ms);

const rssBefore = process.memoryUsage().rss;
let peak = rssBefore;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
const until = performance.now() + seconds * 1000;
const running = () => performance.now() < until;

const reader = spawn(process.execPath, [fileURLToPath(new URL('./other-reader.mjs', import.meta.url)), base], { stdio: ['pipe', 'pipe', 'inherit'] });
const readerOutput = buffer(reader.stdout!);

const looped: number[] = [];
/** The looper's answers other than 200 (the instance full of slow readers: 503), after which it waits a second. */
const loopRefused: Record<string, number> = {};
const looper = (async () => {
  for (let i = 0; running(); i++) {
    const { ms, status } = await download(exportsPaths[i % exportsPaths.length]!);
    if (status === 200) looped.push(ms);
    else {
      loopRefused[status] = (loopRefused[status] ?? 0) + 1;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
})();

/** Answers the slow readers were given, by status; and the bytes they read. */
const slowAnswers: Record<string, number> = {};
let slowBytes = 0;
function slowDownload(localAddress: string, path: string): Promise<void> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, localAddress }, (res) => {
      slowAnswers[res.statusCode!] = (slowAnswers[res.statusCode!] ?? 0) + 1;
      res.on('data', (chunk: Buffer) => {
        slowBytes += chunk.length;
        res.pause();
        if (!running()) return void res.destroy();
        setTimeout(() => res.resume(), 500);
      });
      res.on('close', () => resolve());
    });
    req.on('error', () => ((slowAnswers.error = (slowAnswers.error ?? 0) + 1), resolve()));
    req.end();
  });
}
const slow = Array.from({ length: slowReaders }, async (_, i) => {
  const localAddress = `127.0.0.${2 + i}`;
  for (let n = i; running(); n++) {
    await slowDownload(localAddress, exportsPaths[n % exportsPaths.length]!);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
});

await looper;
await Promise.all(slow);
reader.stdin!.end('stop');
const { latencies, errors } = JSON.parse((await readerOutput).toString()) as { latencies: number[]; errors: number };
clearInterval(sampler);
latencies.sort((a, b) => a - b);
looped.sort((a, b) => a - b);
console.log(
  JSON.stringify(
    {
      database: values.db,
      issues,
      seconds,
      loadAverageAtEnd: Number(loadavg()[0]!.toFixed(1)),
      firstBuildMs: first,
      loopedDownloads: looped.length,
      loopedMedianMs: Math.round(percentile(looped, 50)),
      loopRefused,
      slowReaders,
      slowAnswers,
      slowMbRead: mb(slowBytes),
      readerRequests: latencies.length,
      readerErrors: errors,
      readerP50Ms: Math.round(percentile(latencies, 50)),
      readerP99Ms: Math.round(percentile(latencies, 99)),
      rssBeforeMb: mb(rssBefore),
      rssGrowthMb: mb(peak - rssBefore),
    },
    null,
    2,
  ),
);
server.closeAllConnections();
server.close();
await bench.close();
process.exit(0);
