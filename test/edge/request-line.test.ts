// Whatever the request line and Host header, a listening server answers the JSON envelope with no
// stack trace or file path (DESIGN.md section 7), and keeps serving. Raw sockets, because fetch
// will not send most of these.
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { listen, type Listening } from '../helpers/listening.js';
import { rawRequest } from '../helpers/raw-http.js';

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
