// The node:http server around the app, with timeouts that keep slow or idle clients (slow-loris)
// from holding connections: a request must send its headers within 10 s and its whole body within
// 30 s, and an idle keep-alive connection is closed after 5 s. Streaming responses (GraphQL
// subscriptions over SSE) are not cut: these limits cover receiving the request only.
import { createServer, type RequestListener, type Server } from 'node:http';

export interface ServerTimeouts {
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  /** How often node checks the two timeouts above (its default, 30 s, would let them run late). */
  connectionsCheckingInterval: number;
}

export const serverTimeouts: ServerTimeouts = {
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  connectionsCheckingInterval: 1_000,
};

export function createHttpServer(app: RequestListener, timeouts: ServerTimeouts = serverTimeouts): Server {
  const server = createServer(
    {
      headersTimeout: timeouts.headersTimeout,
      requestTimeout: timeouts.requestTimeout,
      keepAliveTimeout: timeouts.keepAliveTimeout,
      connectionsCheckingInterval: timeouts.connectionsCheckingInterval,
    },
    app,
  );
  return server;
}
