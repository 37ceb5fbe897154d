// The throughput benchmark's baseline: the least a server can do to answer the benchmarked requests
// with the same JSON as secwire. node:http, the SQL of raw-queries.ts, JSON.stringify. It knows only
// the requests bench/throughput.ts sends and answers 404 to anything else; it validates nothing. Run
// as a child process: DATABASE_URL or DATA_DIR (raw-queries.ts), PORT (0 = any); it prints
// `listening <port>` once ready.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { smallGraphqlQuery } from './graphql-queries.js';
import { digest, issueColumns, issueJson, list, listItemJson, pool, scan, single, stats } from './raw-queries.js';

/** GraphQL: only the benchmark's own query, recognised by its text. */
async function graphql(body: { query?: string }) {
  if (body.query !== smallGraphqlQuery) return undefined;
  const page = await list(new URLSearchParams(), `id::text, title, severity::text, "publishedAt"`, listItemJson);
  return { data: { issues: { data: page.data, meta: { total: page.meta.total } } } };
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

async function route(req: IncomingMessage): Promise<unknown> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (req.method === 'GET') {
    if (url.pathname === '/api/v1/issues') return list(url.searchParams, issueColumns, issueJson);
    if (url.pathname === '/api/v1/stats') return stats();
    if (url.pathname === '/api/v1/digest/latest') return digest();
    const one = /^\/api\/v1\/issues\/([0-9a-f-]{36})$/.exec(url.pathname);
    if (one) return single(one[1]!);
  }
  if (req.method === 'POST' && url.pathname === '/api/v1/scan') return scan((await readJson(req)).packages as string[]);
  if (req.method === 'POST' && url.pathname === '/graphql') return graphql(await readJson(req));
  return undefined;
}

function send(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const server = createServer((req, res) => {
  route(req).then(
    (body) => send(res, body === undefined ? 404 : 200, body ?? { error: 'not found' }),
    (err: Error) => send(res, 500, { error: err.message }),
  );
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log(`listening ${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => server.close(() => void pool.end()));
