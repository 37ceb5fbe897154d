// One HTTPS POST to a webhook target: no redirects followed (node:https never follows them), a
// hard time limit on the whole exchange, and the SSRF guard inside the agent's DNS lookup so the
// address dialled is the address checked. Errors become short messages fit for the webhook owner.
import { Agent, request } from 'node:https';
import { createSecureContext, rootCertificates } from 'node:tls';
import { checkLiteralTarget, guardedLookup, TargetRefused, type LookupFunction } from './ssrf.js';

export interface SenderOptions {
  timeoutMs: number;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: skip the address checks (tests and local development only). */
  allowPrivateTargets: boolean;
  /** Extra certificate authorities to trust besides the public ones (tests' self-signed receivers). */
  ca?: string | Buffer | Array<string | Buffer>;
  /** DNS resolver under the guard; defaults to dns.lookup. */
  lookup?: LookupFunction;
  /** Sockets per target host and port. */
  maxSocketsPerHost?: number;
}

export interface SendResult {
  statusCode?: number;
  error?: string;
  durationMs: number;
}

/** Receivers' answers are read (to free the socket) but never kept beyond this. */
const maxResponseBytes = 64 * 1024;

export function createSender(options: SenderOptions) {
  const extraCa = options.ca === undefined ? [] : Array.isArray(options.ca) ? options.ca : [options.ca];
  const agent = new Agent({
    keepAlive: true,
    maxSockets: options.maxSocketsPerHost ?? 16,
    // One secure context for every connection: passing `ca` instead would parse the whole root
    // store again for each new connection.
    ...(extraCa.length ? { secureContext: createSecureContext({ ca: [...rootCertificates, ...extraCa] }) } : {}),
    ...(options.allowPrivateTargets ? (options.lookup ? { lookup: options.lookup } : {}) : { lookup: guardedLookup(options.lookup) }),
  });

  function send(target: string, headers: Record<string, string>, body: Buffer): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let url: URL;
    try {
      url = new URL(target);
      checkLiteralTarget(url, options.allowPrivateTargets);
    } catch (err) {
      return Promise.resolve({ error: err instanceof TargetRefused ? `refused: ${err.message}` : 'invalid url', durationMs: elapsed() });
    }
    return new Promise((resolve) => {
      let settled = false;
      const finish = (result: Omit<SendResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...result, durationMs: elapsed() });
      };
      const req = request(url, {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': String(body.length),
          'user-agent': 'secwire-webhooks/1',
          ...headers,
        },
      });
      const timer = setTimeout(() => {
        finish({ error: `timed out after ${options.timeoutMs} ms` });
        req.destroy();
      }, options.timeoutMs);
      req.on('response', (res) => {
        // The status decides the outcome: a receiver that answers 2xx at once and then trickles its
        // body has accepted the delivery. The body is still read (to keep the socket reusable), up
        // to a limit and for no longer than the time limit.
        finish({ statusCode: res.statusCode });
        let received = 0;
        const cutOff = setTimeout(() => res.destroy(), options.timeoutMs).unref();
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > maxResponseBytes) res.destroy();
        });
        res.on('close', () => clearTimeout(cutOff));
        res.on('error', () => {});
      });
      req.on('error', (err) => finish({ error: describeError(err) }));
      req.end(body);
    });
  }

  return { send, close: () => agent.destroy() };
}

const errorWords: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  ETIMEDOUT: 'connection timed out',
  ECONNABORTED: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'host unreachable',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not match the host',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate not trusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS certificate not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'TLS certificate not trusted',
};

/** Library and system errors mapped to plain words: the owner sees these, never raw messages. */
function describeError(err: NodeJS.ErrnoException): string {
  if (err instanceof TargetRefused || err.code === 'ETARGETREFUSED') return `refused: ${err.message}`;
  // OpenSSL's words for a TLS hello answered by a plain-HTTP server.
  if (err.code === 'EPROTO' && /wrong version number|packet length too long|http request/i.test(err.message)) {
    return 'TLS handshake failed: the receiver answered in plain HTTP; it must serve HTTPS at this URL';
  }
  if (err.code && Object.hasOwn(errorWords, err.code)) return errorWords[err.code]!;
  return err.code?.startsWith('ERR_SSL') || err.code?.startsWith('ERR_TLS') ? 'TLS handshake failed' : 'network error';
}
