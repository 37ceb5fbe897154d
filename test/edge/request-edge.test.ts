// Reliability at the request edge (issue 27), on a real listening server: liveness and readiness
// answer while the database hangs, a HEAD on a subscription gives its slot back and closes, a
// client that stops reading is cut, and the protocol's odd corners get the envelope.
import { once } from 'node:events';
import type { Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverTimeouts } from '../../src/http/server.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { hangDatabase } from '../helpers/hang.js';
import { listen, type Listening } from '../helpers/listening.js';
import { rawRequest } from '../helpers/raw-http.js';
import { openSubscription } from '../helpers/sse.js';

let t: TestApp;
let server: Server;
let listening: Listening;
let base: string;
beforeAll(async () => {
  t = await createTestApp({ subscriptionsPerClient: 2, subscriptionsTotal: 4 });
  listening = await listen(t, { ...serverTimeouts, writeStallTimeout: 500 });
  ({ server, base } = listening);
});
afterAll(async () => {
  await listening?.close();
  await t?.close();
});

describe('a hanging database', () => {
  // Longer than the default: the first openapi.json is built from the schema, slow on a loaded machine.
  it('leaves /health, /ready and the routes that need no data answering', { timeout: 90_000 }, async () => {
    const release = await hangDatabase(t);
    try {
      // Each answers while the database is still held: none of them waits for it.
      const health = await fetch(`${base}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });
      const ready = await fetch(`${base}/ready`);
      expect(ready.status).toBe(503);
      expect(ready.headers.get('retry-after')).toBeTruthy();
      // A cached route whose answer needs no database is served uncached once the version read is late.
      expect((await fetch(`${base}/api/v1/openapi.json`)).status).toBe(200);
    } finally {
      await release();
    }
    expect((await fetch(`${base}/ready`)).status).toBe(200);
  });
});

describe('HEAD on a subscription', () => {
  const query = encodeURIComponent('subscription { newIssues { eventId } }');

  it('answers its headers and closes, and gives its slot back', async () => {
    // More HEADs than the client has slots: each would have kept one.
    for (let i = 0; i < 4; i++) {
      const res = await rawRequest(server, `HEAD /graphql?query=${query} HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(res.headers.connection).toBe('close');
      expect(res.body).toBe('');
    }
    // The client still has both its slots.
    const subscriptions = [await openSubscription(t, decodeURIComponent(query)), await openSubscription(t, decodeURIComponent(query))];
    for (const s of subscriptions) expect(s.response.status).toBe(200);
    const third = await openSubscription(t, decodeURIComponent(query));
    expect((await third.next('"')).errors[0].extensions.code).toBe('RATE_LIMITED');
    for (const s of [...subscriptions, third]) await s.close();
  });
});

describe('a client that stops reading', () => {
  it('is disconnected, GraphiQL included', async () => {
    const { port } = server.address() as AddressInfo;
    const accepted = once(server, 'connection');
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    await once(socket, 'connect');
    // The server's end of it: a paused client would not notice the close until it reads.
    const [serverSide] = (await accepted) as [Socket];
    // The whole page uncompressed (9 MB), three times over on one connection: more than the
    // kernel's socket buffers hold, so the rest waits in the server's memory. Read nothing.
    socket.pause();
    socket.write('GET /graphql HTTP/1.1\r\nHost: localhost\r\nAccept: text/html\r\n\r\n'.repeat(3));
    await once(serverSide, 'close');
    socket.destroy();
  });

  it('GraphiQL is sent compressed to a client that accepts it', { timeout: 90_000 }, async () => {
    const res = await fetch(`${base}/graphql`, { headers: { accept: 'text/html', 'accept-encoding': 'br' } });
    // fetch decodes it; the raw length is what crossed the wire.
    expect(res.headers.get('content-encoding')).toBe('br');
    const page = await res.text();
    expect(page).toMatch(/<html/i);
    const raw = await rawRequest(server, 'GET /graphql HTTP/1.1\r\nHost: localhost\r\nAccept: text/html\r\nAccept-Encoding: br');
    const wire = Buffer.from(raw.body, 'latin1');
    expect(wire.length).toBeLessThan(page.length / 3);
    expect(brotliDecompressSync(wire).toString()).toBe(page);
  });
});

describe('protocol edges', () => {
  it('/graphql/ is not /graphql', async () => {
    const res = await fetch(`${base}/graphql/?query=${encodeURIComponent('{ __typename }')}`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { message: 'No route GET /graphql/ (see /api/v1/docs)', status: 404 } });
  });

  it('CONNECT is a 405 envelope, and an unknown method a 400 one', async () => {
    const connectAnswer = await rawRequest(server, 'CONNECT localhost:80 HTTP/1.1\r\nHost: localhost');
    expect(connectAnswer.status).toBe(405);
    expect(JSON.parse(connectAnswer.body)).toEqual({ error: { message: expect.stringMatching(/CONNECT/), status: 405 } });
    const unknown = await rawRequest(server, 'BREW /graphql HTTP/1.1\r\nHost: localhost');
    expect(unknown.status).toBe(400);
    expect(JSON.parse(unknown.body).error.status).toBe(400);
  });
});
