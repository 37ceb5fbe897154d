// Who a request comes from, for the rate limit: its bearer key when it presents a real one, else
// its network address. IPv6 addresses are grouped by /64, the block one subscriber usually holds.
import ipaddr from 'ipaddr.js';
import type { KnownKeys } from '../keys/api-keys.js';
import { bearerToken, sha256Hex } from '../keys/bearer.js';
import { edgeOf, type NodeServerContext } from './edge.js';

/**
 * The identity of callers that reach the app without a socket (in-process `yoga.fetch`, or an
 * adapter that gives no connection): they all share this one budget, so a misconfigured adapter
 * degrades to a strict limit rather than to no limit.
 */
export const IN_PROCESS_CLIENT = 'in-process';

/**
 * TRUST_PROXY: read X-Forwarded-For on every connection (true), on none (false), or only on
 * connections from these proxies (addresses and CIDR ranges), so that a client reaching an instance
 * past the balancer cannot name its own address.
 */
export type TrustProxy = boolean | readonly string[];

/** Whether X-Forwarded-For is read on a connection from `peer` (undefined: in-process, no socket). */
export type ProxyTrust = (peer: string | undefined) => boolean;

export function proxyTrust(trustProxy: TrustProxy): ProxyTrust {
  if (typeof trustProxy === 'boolean') return () => trustProxy;
  const ranges = trustProxy.map((entry) => (entry.includes('/') ? ipaddr.parseCIDR(entry) : ([ipaddr.parse(entry), Number.POSITIVE_INFINITY] as const)));
  return (peer) => {
    if (peer === undefined || !ipaddr.isValid(peer)) return false;
    // An IPv4 peer on a dual-stack socket arrives IPv4-mapped.
    const ip = ipaddr.process(peer);
    return ranges.some(([range, bits]) => {
      if (range.kind() !== ip.kind()) return false;
      return Number.isFinite(bits) ? ip.match(range, bits) : ip.toNormalizedString() === range.toNormalizedString();
    });
  };
}

/** The address the rate limit is keyed on: IPv4 as is, IPv6 by its /64, IPv4-mapped IPv6 as IPv4. */
export function addressKey(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return undefined;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  const parts = (ip as ipaddr.IPv6).parts;
  return `${new ipaddr.IPv6([...parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}

/**
 * The client's address: on a connection from a trusted proxy, the right-most X-Forwarded-For
 * entry, the one that proxy appended (entries to its left come from the client and can be
 * forged), else the socket's peer.
 * Proxies write that entry as `ip`, `ip:port`, `[ipv6]:port` or `unknown`; when it is no address,
 * the socket's peer (the proxy itself) is used, never an entry further left. Undefined when
 * neither exists (in-process calls).
 */
export function clientAddress(
  request: { headers: Pick<Headers, 'get'> },
  serverContext: NodeServerContext | undefined,
  trusts: ProxyTrust,
): string | undefined {
  const peer = serverContext?.req?.socket?.remoteAddress;
  const forwarded = trusts(peer) ? request.headers.get('x-forwarded-for') : null;
  const appended = forwarded === null ? undefined : forwardedAddress(forwarded.slice(forwarded.lastIndexOf(',') + 1));
  return appended ?? peer;
}

/** The address of one X-Forwarded-For entry, without port or brackets; undefined for anything else. */
export function forwardedAddress(entry: string): string | undefined {
  const text = entry.trim();
  const address = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text)?.[1] ?? /^([\d.]+):\d{1,5}$/.exec(text)?.[1] ?? text;
  // Four-part decimal only: ipaddr.js would also read "1" or "0x7f.1" as IPv4 addresses.
  return ipaddr.IPv4.isValidFourPartDecimal(address) || ipaddr.IPv6.isValid(address) ? address : undefined;
}

/** The rate-limit key of a request: `key:<sha256>` for a real bearer key, `ip:<address>`, or the in-process identity. */
export async function clientIdentity(
  request: { headers: Pick<Headers, 'get'> },
  serverContext: NodeServerContext | undefined,
  options: { trusts: ProxyTrust; keys: KnownKeys },
): Promise<string> {
  const token = bearerToken(request);
  if (token && (await options.keys.isKnown(token))) return `key:${sha256Hex(token)}`;
  const address = clientAddress(request, serverContext, options.trusts);
  const key = address === undefined ? undefined : addressKey(address);
  return key === undefined ? IN_PROCESS_CLIENT : `ip:${key}`;
}

/** The caller of a request, as clientIdentity decides it. */
export type CallerOf = (request: { headers: Pick<Headers, 'get'> }, serverContext: NodeServerContext | undefined) => Promise<string>;

/**
 * The one place the caller is resolved: once per request, however many parts of the app ask (the
 * rate limit at the door and again for a GraphQL operation's cost, the exports' per-client cap,
 * the subscription slots), since a bearer key's check may read the database.
 */
export function callerResolver({ trustProxy, keys }: { trustProxy: TrustProxy; keys: KnownKeys }): CallerOf {
  const options = { trusts: proxyTrust(trustProxy), keys };
  return (request, serverContext) => {
    const edge = edgeOf(request);
    edge.caller ??= clientIdentity(request, serverContext, options);
    return edge.caller;
  };
}
