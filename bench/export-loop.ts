// One client looping the exports while another reads (issue 27): the reader's latency, the
// looper's download time, and the server's RSS, on the embedded database with a real listening
// server. The reader asks with Cache-Control: no-cache, so each of its reads goes to the database.
//
//   npx tsx bench/export-loop.ts [issues=4000] [seconds=15]
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createApp } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { createHttpServer } from '../src/http/server.js';
import { createLogger } from '../src/log.js';
import { createIssuePubSub } from '../src/pubsub.js';
import { generateIssues } from './issue-rows.js';
import { scratchPGlite } from './scratch-databases.js';

const issues = Number(process.argv[2] ?? 4000);
const seconds = Number(process.argv[3] ?? 15);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

const bench = await scratchPGlite();
await generateIssues((q) => bench.sql(q), issues);
const config = testConfig({ rateLimitPerMinute: 0 });
const { pubsub } = createIssuePubSub(config);
const app = createApp({ config, db: bench.db, log: createLogger('error'), pubsub });
const server = createHttpServer(app);
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

async function download(path: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${base}${path}`);
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
  return performance.now() - started;
}

const exportsPaths = ['/api/v1/osv/all.zip', '/api/issues/export', '/api/v1/osv/ecosystems.txt'];
const first: Record<string, number> = {};
for (const path of exportsPaths) first[path] = Math.round(await download(path));
const rssBefore = process.memoryUsage().rss;
let peak = rssBefore;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
const until = performance.now() + seconds * 1000;
const looped: number[] = [];
const looper = (async () => {
  for (let i = 0; performance.now() < until; i++) looped.push(await download(exportsPaths[i % exportsPaths.length]!));
})();
const reads: number[] = [];
while (performance.now() < until) {
  const started = performance.now();
  const res = await fetch(`${base}/api/v1/issues?limit=20`, { headers: { 'cache-control': 'no-cache' } });
  await res.arrayBuffer();
  reads.push(performance.now() - started);
}
await looper;
clearInterval(sampler);
reads.sort((a, b) => a - b);
looped.sort((a, b) => a - b);
console.log(
  JSON.stringify(
    {
      issues,
      seconds,
      firstBuildMs: first,
      loopedDownloads: looped.length,
      loopedMedianMs: Math.round(percentile(looped, 50)),
      readerRequests: reads.length,
      readerP50Ms: Math.round(percentile(reads, 50)),
      readerP99Ms: Math.round(percentile(reads, 99)),
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
