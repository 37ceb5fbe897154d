// The node:http server around the app, with timeouts that keep slow or idle clients (slow-loris)
// from holding connections: a request must send its headers within 10 s and its whole body within
// 30 s, and an idle keep-alive connection is closed after 5 s. A client that stops reading its
// response is cut once nothing it was sent has left for `writeStallTimeout` (node's socket timeout,
// which a write still draining, however slowly, keeps re-arming): otherwise every such connection
// holds its whole unsent body in memory for good. A response the server is still working on (no
// byte waiting to be sent) is never cut by it, nor is a subscription whose client reads its pings.
// drain() is the graceful stop.
import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { EarlyReply } from './early-reply.js';
import { answerClientError, refuseConnect, refuseRequest, requestTargetProblem } from './request-target.js';

export const serverTimeouts = {
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  /** How often node checks the two timeouts above (its default, 30 s, would let them run late). */
  connectionsCheckingInterval: 1_000,
  writeStallTimeout: 15_000,
};

export type ServerTimeouts = typeof serverTimeouts;

/** The responses each server has in flight. */
const inFlight = new WeakMap<Server, Set<ServerResponse>>();
const draining = new WeakSet<Server>();

/** While draining, an answer closes its connection after it (a keep-alive client then reconnects elsewhere). */
function closeAfter(res: ServerResponse) {
  if (!res.headersSent) res.setHeader('Connection', 'close');
}

/** `app.earlyReply`, when the app has one, answers cache hits before the app sees them. */
export function createHttpServer(app: RequestListener & { earlyReply?: EarlyReply }, timeouts: ServerTimeouts = serverTimeouts): Server {
  const { earlyReply } = app;
  const { writeStallTimeout, ...nodeTimeouts } = timeouts;
  const server: Server = createServer(
    // A missing Host is refused by requestTargetProblem, with the envelope; node's own refusal has no body.
    { ...nodeTimeouts, requireHostHeader: false },
    (req, res) => {
      const problem = requestTargetProblem(req);
      if (problem) return refuseRequest(res, problem);
      const responses = inFlight.get(server)!;
      responses.add(res);
      res.once('close', () => {
        responses.delete(res);
        // Its connection is idle now: close it rather than wait for the keep-alive time-out.
        if (draining.has(server)) setImmediate(() => server.closeIdleConnections());
      });
      if (draining.has(server)) closeAfter(res);
      // With a listener node leaves the socket to it: only one with bytes stuck on their way out is
      // cut. (Between requests node's own keep-alive time-out applies, without this listener.)
      res.setTimeout(writeStallTimeout, () => {
        if (res.socket && res.socket.writableLength > 0) res.socket.destroy();
      });
      const early = earlyReply?.(req, res) ?? false;
      if (early === false) return app(req, res);
      void early.then((answered) => answered || app(req, res));
    },
  );
  server.on('clientError', answerClientError);
  server.on('connect', refuseConnect);
  inFlight.set(server, new Set());
  return server;
}

/**
 * Graceful stop: no new connections, idle keep-alive connections closed, requests in flight
 * answered (with Connection: close). Resolves once every connection has ended; whatever is still
 * open at `deadlineMs` is cut. Long work is expected to stop on its own before that (an ingest stops
 * between chunks once Services.stopping is aborted).
 */
export async function drain(server: Server, deadlineMs: number): Promise<void> {
  draining.add(server);
  for (const res of inFlight.get(server) ?? []) closeAfter(res);
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const force = setTimeout(() => server.closeAllConnections(), deadlineMs);
  await closed;
  clearTimeout(force);
}
