// Request lines and Host headers the app cannot turn into a URL. The fetch adapter under Yoga
// builds `http://<Host><target>` and answers its own failure with a plain-text 500 carrying the
// stack; node answers what it cannot parse with a bare 400. Both are answered here with the JSON
// envelope instead: a stack trace tells an attacker what runs here, whatever the request line or
// headers.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIPv6 } from 'node:net';
import type { Duplex } from 'node:stream';
import { errorEnvelope } from './envelope.js';

// RFC 3986 host (a registered name or an IP literal) and an optional port; no user info, no path.
const hostShape = /^(?:\[[0-9a-f:.]+\]|[a-z0-9._~-]+)(?::(\d{1,5}))?$/i;
const absoluteForm = /^https?:\/\//i;

/** Hosts found valid lately: clients name the same few on every request. Bounded, since any client can name any. */
const validHosts = new Set<string>();
const VALID_HOSTS_KEPT = 64;

function validHost(host: string): boolean {
  if (validHosts.has(host)) return true;
  const m = hostShape.exec(host);
  if (!m || Number(m[1] ?? 0) > 65_535 || !URL.canParse(`http://${host}/`)) return false;
  if (validHosts.size >= VALID_HOSTS_KEPT) validHosts.clear();
  validHosts.add(host);
  return true;
}

/** The probes' paths, answered to any well-formed request, with or without Host (health checks send none). */
const probePaths = new Set(['/health', '/ready']);

/** The server's own address as a Host value: the socket's local address and port, IPv6 in brackets. */
function ownHost({ socket }: IncomingMessage): string {
  // A link-local address's zone (`fe80::1%eth0`) has no place in a URL's host.
  const address = socket.localAddress?.split('%', 1)[0];
  if (!address) return 'localhost';
  return `${isIPv6(address) ? `[${address}]` : address}:${socket.localPort}`;
}

/**
 * Why the request cannot be served, or undefined. An absolute-form target (RFC 9112 section
 * 3.2.2) is served like its path: `req.url` is rewritten to origin form.
 *
 * HTTP/1.0 does not require Host, and HAProxy's `option httpchk`, older monitoring agents and
 * hand-written probes send none: such a request, and any request for a probe path, is served as
 * if it had named the server's own address, written into `req.headers.host` so that everything
 * that needs a host (links, the cache key, CORS) reads the same one. An HTTP/1.1 request for
 * anything else without Host is refused (RFC 9112 section 3.2), and a malformed Host always is.
 */
export function requestTargetProblem(req: IncomingMessage): string | undefined {
  const target = req.url ?? '';
  let hosts = req.headersDistinct.host ?? [];
  if (hosts.length === 0 && (req.httpVersion === '1.0' || probePaths.has(target.split('?', 1)[0]!))) {
    req.headers.host = ownHost(req);
    hosts = [req.headers.host];
  }
  if (hosts.length !== 1 || !validHost(hosts[0]!)) return 'The Host header must be one host name or address, with an optional port';
  if (absoluteForm.test(target)) {
    if (!URL.canParse(target)) return 'The request target must be a path';
    const url = new URL(target);
    req.url = `${url.pathname}${url.search}`;
  } else if (!target.startsWith('/') || !URL.canParse(`http://${hosts[0]}${target}`)) {
    return 'The request target must be a path';
  }
  return undefined;
}

export function refuseRequest(res: ServerResponse, message: string): void {
  const body = JSON.stringify(errorEnvelope(400, message));
  res.writeHead(400, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
  res.end(body);
}

/**
 * node's 'connect' (a CONNECT request, which node hands over as a raw socket and otherwise drops
 * without a word): nothing here is a proxy, so a 405 envelope, and the connection closed.
 */
export function refuseConnect(_req: IncomingMessage, socket: Duplex): void {
  const body = JSON.stringify(errorEnvelope(405, 'Method CONNECT is not allowed: this server is not a proxy'));
  socket.on('error', () => socket.destroy());
  socket.end(
    `HTTP/1.1 405 ${STATUS_CODES[405]}\r\nAllow: GET, HEAD, POST, PATCH, DELETE, OPTIONS\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** node's 'clientError': a request it could not parse or that timed out, with node's own statuses. */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const body = JSON.stringify(errorEnvelope(status));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
