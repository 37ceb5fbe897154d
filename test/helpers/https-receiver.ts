// Real HTTPS webhook receivers on 127.0.0.1 with a certificate generated at test time (openssl);
// the worker trusts it through its `ca` option, never by turning TLS verification off.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificate {
  key: string;
  cert: string;
}

let cached: TestCertificate | undefined;

/** A self-signed certificate for 127.0.0.1, localhost and rebind.test, made once per process. */
export function testCertificate(): TestCertificate {
  if (cached) return cached;
  const dir = mkdtempSync(join(tmpdir(), 'secwire-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '2',
        '-subj',
        '/CN=secwire-test',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:rebind.test',
      ],
      { stdio: 'ignore' },
    );
    cached = { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
    return cached;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body bytes, exactly as received. */
  body: Buffer;
  json: any;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  delayMs?: number;
}

export type Responder = (req: ReceivedRequest) => number | Reply | Promise<number | Reply>;

export interface Receiver {
  port: number;
  /** https://127.0.0.1:<port><path> */
  url(path?: string): string;
  requests: ReceivedRequest[];
  on(path: string, responder: Responder): void;
  /** Resolves once `predicate` holds for the requests received so far. */
  waitFor(predicate: (requests: ReceivedRequest[]) => boolean, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function createReceiver(defaultResponder: Responder = () => 204): Promise<Receiver> {
  const { key, cert } = testCertificate();
  const requests: ReceivedRequest[] = [];
  const responders = new Map<string, Responder>();
  const waiters = new Set<() => void>();
  const server: Server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      let json: unknown;
      try {
        json = JSON.parse(body.toString('utf8'));
      } catch {
        json = undefined;
      }
      const received: ReceivedRequest = { method: req.method!, path: req.url!, headers: req.headers, body, json };
      requests.push(received);
      for (const wake of waiters) wake();
      const answer = await (responders.get(req.url!) ?? defaultResponder)(received);
      const reply = typeof answer === 'number' ? { status: answer } : answer;
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      if (res.destroyed) return;
      res.writeHead(reply.status, reply.headers).end();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path = '/hook') => `https://127.0.0.1:${port}${path}`,
    requests,
    on: (path, responder) => void responders.set(path, responder),
    waitFor(predicate, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(requests)) return;
          cleanup();
          resolve(requests);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`receiver: condition not met within ${timeoutMs} ms (${requests.length} requests received)`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
