// SSRF guard for webhook targets. A target must be https and every address it resolves to must be
// public unicast. The check runs when a webhook is registered and again inside the connection's
// own DNS lookup, on the addresses actually dialled, so a name that is rebound to a private
// address after registration is refused at delivery.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** dns.lookup's callback form, which https agents accept as their `lookup` option. */
export type { LookupFunction };

export class TargetRefused extends Error {}

// 2000::/3 is the only IPv6 block assigned for global unicast; everything outside it (including
// the IPv4-compatible ::a.b.c.d forms ipaddr.js calls unicast) is refused.
const globalUnicast6 = ipaddr.parseCIDR('2000::/3');

/**
 * True only for public unicast addresses. ipaddr.js names every special-purpose block (loopback,
 * private, linkLocal, carrierGradeNat, uniqueLocal, ipv4Mapped, rfc6145, rfc6052 (NAT64), 6to4,
 * teredo, reserved, multicast, broadcast, unspecified, ...) and answers 'unicast' for the rest.
 */
export function isPublicAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return false;
  }
  if (parsed.range() !== 'unicast') return false;
  return parsed.kind() === 'ipv4' || (parsed as ipaddr.IPv6).match(globalUnicast6 as [ipaddr.IPv6, number]);
}

/** The URL's host when it is an IP literal (brackets removed), else undefined. */
function literalAddress(hostname: string): string | undefined {
  const bare = hostname.replace(/^\[|\]$/g, '');
  return ipaddr.isValid(bare) ? bare : undefined;
}

/**
 * Parses and checks a webhook URL; answers the normalised URL or throws TargetRefused with a
 * message fit for the client. `allowPrivate` (WEBHOOK_ALLOW_PRIVATE_TARGETS) skips the address
 * checks, never the scheme check.
 */
export async function checkTargetUrl(raw: string, { allowPrivate, lookup = dnsLookup }: { allowPrivate: boolean; lookup?: LookupFunction }): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused('url must be an absolute https URL');
  }
  if (url.protocol !== 'https:') throw new TargetRefused('url must use https');
  if (allowPrivate) return url;
  // The WHATWG parser has already turned decimal, hex, octal and short IPv4 spellings into
  // dotted quads and IPv6 into its canonical form, so one parse covers every spelling.
  const literal = literalAddress(url.hostname);
  if (literal !== undefined) {
    if (!isPublicAddress(literal)) throw new TargetRefused('url must not point to a private, loopback or otherwise non-public address');
    return url;
  }
  const addresses = await resolveAll(url.hostname, lookup).catch(() => {
    throw new TargetRefused('url host does not resolve');
  });
  if (addresses.length === 0) throw new TargetRefused('url host does not resolve');
  if (addresses.some((a) => !isPublicAddress(a.address))) {
    throw new TargetRefused('url host resolves to a private, loopback or otherwise non-public address');
  }
  return url;
}

function resolveAll(hostname: string, lookup: LookupFunction): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    lookup(hostname, { all: true } as LookupAllOptions, (err, addresses) => {
      if (err) reject(err);
      else resolve(Array.isArray(addresses) ? addresses : [{ address: addresses, family: 4 }]);
    });
  });
}

/**
 * A lookup for https agents: resolves with `base`, then refuses the connection when any address
 * is not public, so the address dialled is always one that was checked (no rebinding window).
 */
export function guardedLookup(base: LookupFunction = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    base(hostname, { ...options, all: true } as LookupAllOptions, (err, result) => {
      if (err) return callback(err, '');
      const addresses = Array.isArray(result) ? result : [{ address: result, family: 4 }];
      const refused = addresses.find((a) => !isPublicAddress(a.address));
      if (addresses.length === 0 || refused) {
        const error = new TargetRefused(`target resolves to a non-public address${refused ? ` (${refused.address})` : ''}`) as NodeJS.ErrnoException;
        error.code = 'ETARGETREFUSED';
        return callback(error, '');
      }
      if ((options as LookupAllOptions).all) return callback(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  };
}

/** The checks a delivery attempt makes before dialling: literal hosts never reach a lookup. */
export function checkLiteralTarget(url: URL, allowPrivate: boolean): void {
  if (url.protocol !== 'https:') throw new TargetRefused('url must use https');
  if (allowPrivate) return;
  const literal = literalAddress(url.hostname);
  if (literal !== undefined && !isPublicAddress(literal)) throw new TargetRefused(`target address ${literal} is not public`);
}
