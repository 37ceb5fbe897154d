// The app behind a real node:http server on a loopback port, as main.ts serves it, for tests that
// need sockets (raw request lines, slow clients, timeouts) rather than yoga.fetch.
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpServer, type ServerTimeouts } from '../../src/http/server.js';
import type { TestApp } from './app.js';

export interface Listening {
  server: Server;
  port: number;
  /** http://127.0.0.1:<port> */
  base: string;
  /** Drops every connection and stops listening. */
  close(): Promise<void>;
}

export async function listen(t: TestApp, timeouts?: ServerTimeouts): Promise<Listening> {
  const server = createHttpServer(t.app, timeouts);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    base: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
