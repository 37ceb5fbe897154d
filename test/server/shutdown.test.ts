// Graceful shutdown on a real listening server: an admin ingest in flight when the stop begins ends
// before its next chunk with a 503 saying what was committed (never a lost response; the message
// for a stop after some chunks is the outage one, see test/domain/outage.test.ts), every answer during the
// drain carries Connection: close, and an idle keep-alive connection is closed cleanly (no reset).
import { once } from 'node:events';
import { Agent, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drain, createHttpServer } from '../../src/http/server.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { testDatabaseUrl } from '../helpers/database.js';
import { adminHeaders, adminKey, clonedAdvisories } from '../helpers/samples.js';

const stopping = new AbortController();
let t: TestApp;
let server: Server;
let port: number;

beforeAll(async () => {
  t = await createTestApp({ adminApiKey: adminKey }, undefined, { stopping: stopping.signal });
  server = createHttpServer(t.app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => t?.close());

function send(agent: Agent, method: string, path: string, body?: string): Promise<{ status?: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers: { 'content-type': 'application/json', ...adminHeaders } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const storedClones = async (tag = '5707') =>
  (await t.db.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM "Issue" WHERE source->>'id' LIKE 'GHSA-${tag}-%'`))[0]!.n;

describe('graceful shutdown', () => {
  it('stops an ingest before its next chunk with a clear answer, and closes keep-alive connections cleanly', { timeout: 120_000 }, async () => {
    // An idle keep-alive connection, open before the stop, and another for the ingest.
    const idleAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    expect((await send(idleAgent, 'GET', '/health')).status).toBe(200);
    const idle = Object.values(idleAgent.freeSockets).flat()[0]!;
    let reset = false;
    idle.on('error', () => (reset = true));
    const idleClosed = once(idle, 'close');

    // The stop begins as soon as the ingest's request arrives, while its body is still on the way.
    const arrived = once(server, 'request');
    const ingest = send(agent, 'POST', '/api/v1/admin/ingest', JSON.stringify(clonedAdvisories(1500, '5707')));
    await arrived;
    stopping.abort();
    const drained = drain(server, 20_000);

    const res = await ingest;
    expect(res.status, res.text.slice(0, 300)).toBe(503);
    expect(res.headers.connection).toBe('close');
    expect(res.headers['retry-after']).toBeDefined();
    expect(JSON.parse(res.text)).toEqual({ error: { message: 'The server is shutting down. Nothing was committed: send the records again.', status: 503 } });
    expect(await storedClones()).toBe(0);

    await idleClosed;
    expect(reset).toBe(false);
    await drained;
    agent.destroy();
    idleAgent.destroy();
  });

  // On PostgreSQL the test can watch chunks commit from another connection (PGlite serialises it
  // behind the ingest), so the stop can fall between two chunks.
  it.skipIf(!testDatabaseUrl)('stops an ingest between chunks, saying which records were committed', { timeout: 120_000 }, async () => {
    const stop = new AbortController();
    const second = await createTestApp({ adminApiKey: adminKey }, t.db, { stopping: stop.signal });
    const other = createHttpServer(second.app);
    other.listen(0, '127.0.0.1');
    await once(other, 'listening');
    port = (other.address() as AddressInfo).port;
    const agent = new Agent({ keepAlive: true });
    try {
      const ingest = send(agent, 'POST', '/api/v1/admin/ingest', JSON.stringify(clonedAdvisories(3000, '5708')));
      while ((await storedClones('5708')) === 0) await new Promise((r) => setTimeout(r, 20));
      stop.abort();
      const drained = drain(other, 20_000);
      const res = await ingest;
      expect(res.status, res.text.slice(0, 300)).toBe(503);
      expect(res.headers.connection).toBe('close');
      const { error } = JSON.parse(res.text);
      expect(error.message).toMatch(
        /^The server is shutting down\. Records before index (\d+) were committed \(\1 stored\); records from index \1 on were not: send them again\.$/,
      );
      const committed = Number(/index (\d+)/.exec(error.message)![1]);
      expect(committed).toBeLessThan(3000);
      expect(await storedClones('5708')).toBe(committed);
      await drained;
    } finally {
      agent.destroy();
      await second.close();
    }
  });
});
