// What each layer a REST read passes through costs by itself, with no database and no plugin of
// ours: the same JSON answer (a digest-sized object) from node:http alone, from a Yoga onRequest
// hook (a constant, then the query run through Yoga's execute) and from sofa-api's router inside
// Yoga (a route without and with a path parameter), the resolver returning a constant. The
// difference between two rows is that layer's own CPU per request: the floor under any server built
// on it (bench/README.md, issue 29).
//
//   npm run bench -- rest-layers [--seconds 5] [--rounds 3] [--connections 50]
//
// Each server runs in its own process (CPU per request is read from /proc, user plus system);
// autocannon drives them one after another, the order turned each round.
import type { ChildProcess } from 'node:child_process';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { parse, type ExecutionResult } from 'graphql';
import { createSchema, createYoga } from 'graphql-yoga';
import { useSofa } from 'sofa-api';
import { cpuMs, startChildServer } from './child-server.js';
import { writeReadmeSection } from './readme.js';

const digest = {
  date: '2026-11-28',
  title: 'secwire daily digest: 2026-11-28',
  content: `# secwire daily digest: 2026-11-28\n\n${'One issue was published, of high severity, in a package many stacks use. '.repeat(10)}`,
  issueIds: Array.from({ length: 5 }, (_, i) => `b0000000-0000-4000-8000-00000000000${i}`),
};
const body = JSON.stringify(digest);

const layers = {
  node: { label: 'node:http', path: '/api/v1/digest/latest' },
  yoga: { label: 'Yoga, answered in an onRequest hook', path: '/api/v1/digest/latest' },
  execute: { label: "Yoga, the hook runs the query through Yoga's execute", path: '/api/v1/digest/latest' },
  sofa: { label: 'Yoga + sofa-api router, fixed path', path: '/api/v1/digest/latest' },
  'sofa-param': { label: 'Yoga + sofa-api router, path parameter', path: '/api/v1/digests/2026-11-28' },
} as const;
type Layer = keyof typeof layers;

/** The server of one layer, in this process (the child side of the bench). */
function listener(layer: Layer): RequestListener {
  if (layer === 'node') return (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  const schema = createSchema({
    typeDefs:
      'type Digest { date: String! title: String! content: String! issueIds: [ID!]! } type Query { latestDigest: Digest digest(date: String!): Digest }',
    resolvers: { Query: { latestDigest: () => digest, digest: () => digest } },
  });
  const latestDigest = parse('query { latestDigest { date title content issueIds } }');
  const sofa = useSofa({
    basePath: '/api/v1',
    schema,
    routes: { 'Query.latestDigest': { method: 'GET', path: '/digest/latest' }, 'Query.digest': { method: 'GET', path: '/digests/:date' } },
  });
  const yoga = createYoga({
    schema,
    logging: false,
    landingPage: false,
    graphiql: false,
    plugins: [
      {
        async onRequest({ request, url, serverContext, endResponse, fetchAPI }) {
          if (layer === 'yoga') return endResponse(new fetchAPI.Response(body, { headers: { 'content-type': 'application/json' } }));
          if (layer === 'execute') {
            const { execute, contextFactory } = yoga.getEnveloped({ request });
            const result = (await execute({ schema, document: latestDigest, contextValue: await contextFactory() })) as ExecutionResult;
            return endResponse(fetchAPI.Response.json(result.data!.latestDigest));
          }
          if (url.pathname.startsWith('/api/v1/')) endResponse((await sofa.handle(request, serverContext)) ?? new fetchAPI.Response(null, { status: 404 }));
        },
      },
    ],
  });
  return yoga as unknown as RequestListener;
}

async function serveChild(layer: Layer) {
  const server = createServer(listener(layer)).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  console.log(`listening ${(server.address() as AddressInfo).port}`);
}

interface Child {
  layer: Layer;
  base: string;
  process: ChildProcess;
}

async function startChild(layer: Layer): Promise<Child> {
  const { child, base } = await startChildServer(layer, fileURLToPath(import.meta.url), ['--serve', layer]);
  return { layer, base, process: child };
}

async function drive(child: Child, seconds: number, connections: number) {
  const url = child.base + layers[child.layer].path;
  const check = await fetch(url);
  if (check.status !== 200 || JSON.stringify(await check.json()) !== body) throw new Error(`${child.layer} does not answer the digest`);
  const before = cpuMs(child.process.pid!);
  const result = await autocannon({ url, connections, duration: seconds });
  const requests = result.requests.total;
  return { reqPerSec: requests / seconds, cpuMicros: ((cpuMs(child.process.pid!) - before) * 1000) / requests, failed: result.errors + result.non2xx };
}

async function main() {
  const { values } = parseArgs({
    options: { serve: { type: 'string' }, seconds: { type: 'string' }, rounds: { type: 'string' }, connections: { type: 'string' } },
  });
  if (values.serve) return serveChild(values.serve as Layer);
  const seconds = Number(values.seconds ?? 5);
  const rounds = Number(values.rounds ?? 3);
  const connections = Number(values.connections ?? 50);
  const loadStart = loadavg()[0]!;
  const children: Child[] = [];
  for (const layer of Object.keys(layers) as Layer[]) children.push(await startChild(layer));
  const runs = new Map<Layer, { reqPerSec: number; cpuMicros: number; failed: number }[]>();
  try {
    for (const child of children) await autocannon({ url: child.base + layers[child.layer].path, connections, duration: 2 }); // warm-up
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 ? [...children].reverse() : children;
      for (const child of order) {
        const run = await drive(child, seconds, connections);
        runs.set(child.layer, [...(runs.get(child.layer) ?? []), run]);
        console.log(`round ${round + 1} ${child.layer}: ${Math.round(run.reqPerSec)} req/s, ${Math.round(run.cpuMicros)} µs CPU per request`);
      }
    }
  } finally {
    for (const child of children) child.process.kill('SIGTERM');
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const base = median(runs.get('node')!.map((r) => r.cpuMicros));
  const rows = (Object.keys(layers) as Layer[]).map((layer) => {
    const all = runs.get(layer)!;
    const cpu = median(all.map((r) => r.cpuMicros));
    const failed = all.reduce((n, r) => n + r.failed, 0);
    return `| ${layers[layer].label} | ${Math.round(median(all.map((r) => r.reqPerSec)))} | ${Math.round(cpu)} (${all.map((r) => Math.round(r.cpuMicros)).join(', ')}) | +${Math.round(cpu - base)} | ${failed} |`;
  });
  const section = [
    '<!-- rest-layers:begin -->',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, load average ${loadStart.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end; autocannon -c ${connections}, ${seconds} s per server, ${rounds} rounds; medians (per round).`,
    '',
    '| layer | req/s | CPU µs per request | over node:http | failed |',
    '|---|---|---|---|---|',
    ...rows,
    '<!-- rest-layers:end -->',
  ].join('\n');
  await writeReadmeSection('rest-layers', section);
  console.log(section);
}

await main();
