// Whatever the request line and Host header, a listening server answers the JSON envelope with no
// stack trace or file path (docs/api.md, "Abuse limits"), and keeps serving. Raw sockets, because fetch
// will not send most of these.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/http/server.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { listen, type Listening } from '../helpers/listening.js';
import { rawExchange, rawRequest } from '../helpers/raw-http.js';

let t: TestApp;
let server: Server;
let listening: Listening;
beforeAll(async () => {
  t = await createTestApp();
  listening = await listen(t);
  server = listening.server;
});
afterAll(async () => {
  await listening?.close();
  await t?.close();
});

const leaks = /\bat \w|node_modules|\/src\/|\.ts:\d|\.js:\d|TypeError|Invalid URL|ERR_/;

function expectEnvelope(res: { status: number; body: string; headers: Record<string, string> }, status: number) {
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).not.toMatch(leaks);
  expect(JSON.parse(res.body)).toEqual({ error: { message: expect.any(String), status } });
  expect(res.status).toBe(status);
}

describe('bad Host headers and request targets', () => {
  const badHosts = ['x:99999', 'x:-1', 'exa mple.org', '[::1', 'a/b', '%zz', 'x:80:80', 'x@y', ''];
  for (const host of badHosts) {
    it(`Host: ${JSON.stringify(host)} is a 400 envelope`, async () => {
      expectEnvelope(await rawRequest(server, `GET /api/v1/issues HTTP/1.1\r\nHost: ${host}`), 400);
    });
  }

  const badTargets = ['*', 'issues', '//', 'http://[::1/x', 'ftp://example.org/api/v1/issues', '%', '/%zz', '/api/v1/issues?limit=%zz'];
  for (const target of badTargets) {
    it(`GET ${target} answers the envelope`, async () => {
      const res = await rawRequest(server, `GET ${target} HTTP/1.1\r\nHost: localhost`);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expectEnvelope(res, res.status);
    });
  }

  it('OPTIONS * and a request line node cannot parse get the envelope too', async () => {
    expectEnvelope(await rawRequest(server, 'OPTIONS * HTTP/1.1\r\nHost: localhost'), 400);
    expectEnvelope(await rawRequest(server, 'GARBAGE\u0001 / HTTP/1.1\r\nHost: localhost'), 400);
    expectEnvelope(await rawRequest(server, 'GET / HTTP/1.1\r\nHost: a\r\nHost: b'), 400);
    expectEnvelope(await rawRequest(server, 'GET /api/v1/stats HTTP/1.1'), 400);
    expectEnvelope(await rawRequest(server, 'GET /api/v1/stats HTTP/1.0\r\nHost: a\r\nHost: b'), 400);
  });

  it('an absolute-form target is served like its path (RFC 9112 section 3.2.2)', async () => {
    const res = await rawRequest(server, 'GET http://localhost/api/v1/stats HTTP/1.1\r\nHost: localhost');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).data).toHaveProperty('totalIssues');
  });

  it('an unknown path outside /api is a 404 envelope too', async () => {
    expectEnvelope(await rawRequest(server, 'GET /nowhere HTTP/1.1\r\nHost: localhost'), 404);
  });

  it('still serves afterwards', async () => {
    const res = await rawRequest(server, 'GET /api/v1/stats HTTP/1.1\r\nHost: localhost:3000');
    expect(res.status).toBe(200);
  });
});

// Load balancers' health checks (HAProxy's `option httpchk`) and older probes send HTTP/1.0 without
// Host, which HTTP/1.0 allows (issue 43).
describe('HTTP/1.0 and probes without Host', () => {
  it('GET /ready and HEAD /health as HAProxy sends them are 200', async () => {
    const ready = await rawExchange(server, 'GET /ready HTTP/1.0\r\n\r\n');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toEqual({ status: 'ready' });
    const health = await rawExchange(server, 'HEAD /health HTTP/1.0\r\n\r\n');
    expect(health.status).toBe(200);
    expect(health.raw).toMatch(/\r\n\r\n$/);
  });

  it('the probes answer HTTP/1.1 without Host too, HEAD as GET', async () => {
    for (const line of ['GET /health', 'HEAD /health', 'GET /ready', 'HEAD /ready', 'GET /ready?probe=1']) {
      const res = await rawExchange(server, `${line} HTTP/1.1\r\nConnection: close\r\n\r\n`);
      expect(res.status, line).toBe(200);
    }
  });

  it("any HTTP/1.0 request without Host is served, with the server's own address where a host is needed", async () => {
    const stats = await rawExchange(server, 'GET /api/v1/stats HTTP/1.0\r\n\r\n');
    expect(stats.status).toBe(200);
    expect(JSON.parse(stats.body).data).toHaveProperty('totalIssues');
    const feed = await rawExchange(server, 'GET /api/v1/issues.atom HTTP/1.0\r\nOrigin: https://reader.example\r\n\r\n');
    expect(feed.status).toBe(200);
    expect(feed.body).toContain(`href="http://127.0.0.1:${listening.port}/api/v1/issues.atom"`);
    expect(feed.headers['access-control-allow-origin']).toBe('https://reader.example');
  });

  it('a malformed Host stays a 400, on the probes and over HTTP/1.0', async () => {
    expectEnvelope(await rawRequest(server, 'GET /ready HTTP/1.0\r\nHost: exa mple.org'), 400);
    expectEnvelope(await rawRequest(server, 'GET /health HTTP/1.1\r\nHost: x:99999'), 400);
    expect((await rawRequest(server, 'HEAD /health HTTP/1.1\r\nHost: x:99999')).status).toBe(400);
    expectEnvelope(await rawRequest(server, 'GET /api/v1/stats HTTP/1.0\r\nHost: '), 400);
  });

  it('a server on IPv6 names itself in brackets', async () => {
    const v6 = createHttpServer(t.app);
    const listened = await new Promise<boolean>((resolve) => {
      v6.once('error', () => resolve(false));
      v6.listen(0, '::1', () => resolve(true));
    });
    if (!listened) return; // no IPv6 loopback on this machine
    try {
      const feed = await rawExchange(v6, 'GET /api/v1/issues.atom HTTP/1.0\r\n\r\n');
      expect(feed.status).toBe(200);
      expect(feed.body).toContain(`href="http://[::1]:${(v6.address() as AddressInfo).port}/api/v1/issues.atom"`);
    } finally {
      v6.closeAllConnections();
      await new Promise((resolve) => v6.close(resolve));
    }
  });
});
