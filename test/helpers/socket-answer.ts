// One request over a real socket to a listening server, answered with its status, its headers as
// sent (names lower-cased) and its bytes: for comparing two servers' answers header by header.
import { request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from '../../src/server/app.js';
import { createHttpServer } from '../../src/http/server.js';

export interface SocketAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export function send(server: Server, path: string, headers: Record<string, string> = {}, method = 'GET', body?: string): Promise<SocketAnswer> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ port, host: '127.0.0.1', path, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const sent: Record<string, string> = {};
        for (let i = 0; i < res.rawHeaders.length; i += 2) sent[res.rawHeaders[i]!.toLowerCase()] = res.rawHeaders[i + 1]!;
        resolve({ status: res.statusCode!, headers: sent, body: Buffer.concat(chunks) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

export async function listen(server: Server): Promise<Server> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** A listening server for the app that counts the cache hits it answered before Yoga. */
export async function earlyServer(app: App) {
  let hits = 0;
  const { earlyReply } = app;
  const server = await listen(
    createHttpServer(
      Object.assign((req: IncomingMessage, res: ServerResponse) => app(req, res), {
        earlyReply: async (...args: Parameters<typeof earlyReply>) => {
          const answered = await earlyReply(...args);
          if (answered === 'hit') hits++;
          return answered;
        },
      }),
    ),
  );
  return { server, hits: () => hits };
}
