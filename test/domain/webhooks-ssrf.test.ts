// SSRF: every spelling of a non-public target is refused at registration, and a name that
// resolves to a private address when the delivery connects is refused there, on the address
// that would have been dialled.
import { lookup as dnsLookup } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { createDeliveryWorker } from '../../src/webhooks/worker.js';
import { isPublicAddress, type LookupFunction } from '../../src/webhooks/ssrf.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createReceiver, testCertificate, type Receiver } from '../helpers/https-receiver.js';
import { bearer, createWebhook, webhookKey } from '../helpers/webhooks.js';

const log = createLogger('silent');

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await createTestApp({ webhookApiKey: webhookKey, webhookAllowPrivateTargets: false });
  receiver = await createReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

const create = 'mutation ($url: String!) { createWebhook(url: $url) { data { id } } }';

// [URL, what it really is]
const refused: [string, string][] = [
  ['https://127.0.0.1/hook', 'loopback'],
  ['https://127.1/hook', 'loopback, short form'],
  ['https://127.000.000.001/hook', 'loopback, zero-padded'],
  ['https://0x7f.1/hook', 'loopback, hex short form'],
  ['https://0x7f000001/hook', 'loopback, one hex number'],
  ['https://0x7f.0x0.0x0.0x1/hook', 'loopback, hex octets'],
  ['https://2130706433/hook', 'loopback, one decimal number'],
  ['https://017700000001/hook', 'loopback, one octal number'],
  ['https://0177.0.0.1/hook', 'loopback, octal first octet'],
  ['https://%31%32%37.0.0.1/hook', 'loopback, percent-encoded'],
  ['https://\uFF11\uFF12\uFF17.0.0.1/hook', 'loopback, full-width digits'],
  ['https://127.0.0.1:8443/hook', 'loopback with a port'],
  ['https://user:pass@127.0.0.1/hook', 'loopback behind credentials'],
  ['https://[::1]/hook', 'IPv6 loopback'],
  ['https://[0:0:0:0:0:0:0:1]/hook', 'IPv6 loopback, long form'],
  ['https://[::ffff:127.0.0.1]/hook', 'IPv4-mapped loopback, dotted'],
  ['https://[::ffff:7f00:1]/hook', 'IPv4-mapped loopback, hex'],
  ['https://[0:0:0:0:0:ffff:127.0.0.1]/hook', 'IPv4-mapped loopback, long form'],
  ['https://[::ffff:0:7f00:1]/hook', 'IPv4-translated loopback (RFC 6145)'],
  ['https://[::127.0.0.1]/hook', 'IPv4-compatible loopback'],
  ['https://169.254.169.254/latest/meta-data/', 'cloud metadata (link-local)'],
  ['https://169.254.169.254./latest/meta-data/', 'cloud metadata, trailing dot'],
  ['https://0xa9fea9fe/latest/meta-data/', 'cloud metadata, one hex number'],
  ['https://2852039166/latest/meta-data/', 'cloud metadata, one decimal number'],
  ['https://0251.0376.0251.0376/latest/meta-data/', 'cloud metadata, octal octets'],
  ['https://[::ffff:169.254.169.254]/latest/meta-data/', 'cloud metadata, IPv4-mapped'],
  ['https://[::ffff:a9fe:a9fe]/latest/meta-data/', 'cloud metadata, IPv4-mapped hex'],
  ['https://[64:ff9b::a9fe:a9fe]/latest/meta-data/', 'cloud metadata through NAT64'],
  ['https://[64:ff9b::7f00:1]/hook', 'loopback through NAT64'],
  ['https://[64:ff9b:1::a00:1]/hook', 'local-use NAT64 prefix (RFC 8215)'],
  ['https://[2002:7f00:1::]/hook', 'loopback through 6to4'],
  ['https://[2002:a9fe:a9fe::1]/hook', 'cloud metadata through 6to4'],
  ['https://[2001::1]/hook', 'Teredo'],
  ['https://10.0.0.1/hook', 'private 10/8'],
  ['https://172.16.0.1/hook', 'private 172.16/12'],
  ['https://172.31.255.254/hook', 'private 172.16/12, top'],
  ['https://192.168.1.1/hook', 'private 192.168/16'],
  ['https://[::ffff:10.0.0.1]/hook', 'private, IPv4-mapped'],
  ['https://100.64.0.1/hook', 'carrier-grade NAT'],
  ['https://[fc00::1]/hook', 'unique-local'],
  ['https://[fd12:3456:789a::1]/hook', 'unique-local fd00::/8'],
  ['https://[fe80::1]/hook', 'IPv6 link-local'],
  ['https://[fec0::1]/hook', 'deprecated site-local'],
  ['https://0.0.0.0/hook', 'unspecified'],
  ['https://0/hook', 'unspecified, one number'],
  ['https://[::]/hook', 'IPv6 unspecified'],
  ['https://224.0.0.1/hook', 'multicast'],
  ['https://[ff02::1]/hook', 'IPv6 multicast'],
  ['https://255.255.255.255/hook', 'broadcast'],
  ['https://240.0.0.1/hook', 'reserved 240/4'],
  ['https://192.0.2.1/hook', 'documentation TEST-NET-1'],
  ['https://198.18.0.1/hook', 'benchmarking'],
  ['https://192.0.0.1/hook', 'IETF protocol assignments'],
  ['https://[2001:db8::1]/hook', 'IPv6 documentation'],
  ['https://[100::1]/hook', 'IPv6 discard-only'],
  ['https://localhost/hook', 'a name resolving to loopback'],
  ['https://LOCALHOST:8443/hook', 'a name resolving to loopback, upper case'],
  ['http://93.184.216.34/hook', 'public, but not https'],
  ['ftp://93.184.216.34/hook', 'not https'],
  ['javascript:alert(1)', 'not a URL to deliver to'],
  ['//127.0.0.1/hook', 'scheme-relative'],
];

describe('registration', () => {
  it(`has at least 40 spellings in the table (${refused.length})`, () => {
    expect(refused.length).toBeGreaterThanOrEqual(40);
  });

  it.each(refused)('refuses %s (%s), creating nothing', async (url) => {
    const before = await t.db.prisma.webhook.count();
    const { status, body } = await t.graphql(create, { url }, bearer());
    expect(status).toBe(400);
    expect(body.errors![0]!.extensions).toMatchObject({ code: 'BAD_REQUEST' });
    expect(body.errors![0]!.message).toMatch(/^url (must|host)/);
    expect(await t.db.prisma.webhook.count()).toBe(before);
  });

  it.each(['https://93.184.216.34/hook', 'https://[2606:4700:4700::1111]/hook', 'https://8.8.8.8:8443/x?y=1'])('accepts the public address %s', async (url) => {
    const { body } = await t.graphql(create, { url }, bearer());
    expect(body.data.createWebhook.data.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('lets WEBHOOK_ALLOW_PRIVATE_TARGETS lift the address check but never the https rule', async () => {
    const dev = await createTestApp({ webhookApiKey: webhookKey, webhookAllowPrivateTargets: true }, t.db);
    try {
      expect((await dev.graphql(create, { url: 'https://127.0.0.1:8443/hook' }, bearer())).body.data.createWebhook.data.id).toBeTruthy();
      expect((await dev.graphql(create, { url: 'http://127.0.0.1/hook' }, bearer())).status).toBe(400);
    } finally {
      await dev.close();
    }
  });
});

describe('address classification', () => {
  it.each([
    ['8.8.8.8', true],
    ['93.184.216.34', true],
    ['2606:4700:4700::1111', true],
    ['[2a00:1450:4001:80b::200e]', true],
    ['127.0.0.1', false],
    ['::1', false],
    ['::ffff:8.8.8.8', false],
    ['64:ff9b::808:808', false],
    ['2002:808:808::1', false],
    ['::2', false],
    ['fe80::1%eth0', false],
    ['100.127.255.255', false],
    ['not an address', false],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('delivery time', () => {
  // Registered through an app that allows private targets, so only the delivery-time check stands.
  async function registerThroughDevApp(url: string) {
    const dev = await createTestApp({ webhookApiKey: webhookKey, webhookAllowPrivateTargets: true }, t.db);
    try {
      return await createWebhook(dev, url);
    } finally {
      await dev.close();
    }
  }

  async function deliverPing(webhookId: string, lookup?: LookupFunction, allowPrivateTargets = false) {
    await t.db.prisma.webhookDelivery.create({ data: { webhookId, kind: 'ping', payload: Buffer.from(JSON.stringify({ event: 'ping', webhookId })) } });
    const worker = createDeliveryWorker({ db: t.db, log }, { allowPrivateTargets, ca: testCertificate().cert, lookup, timeoutMs: 3000 });
    await worker.runOnce();
    await worker.stop();
    return t.db.prisma.webhookDelivery.findFirstOrThrow({ where: { webhookId }, orderBy: { createdAt: 'desc' }, include: { attemptLog: true } });
  }

  // A resolver for a name we control: what DNS rebinding looks like from the worker's side.
  const rebinding: LookupFunction = (hostname, options, callback) => {
    if (hostname !== 'rebind.test') return (dnsLookup as unknown as LookupFunction)(hostname, options, callback);
    const addresses = [{ address: '127.0.0.1', family: 4 }];
    return options.all ? callback(null, addresses) : callback(null, '127.0.0.1', 4);
  };

  it('refuses a name that resolves to a loopback address when connecting, sending nothing', async () => {
    const hook = await registerThroughDevApp(`https://localhost:${receiver.port}/dns-local`);
    const delivery = await deliverPing(hook.id);
    expect(delivery.status).toBe('dead');
    expect(delivery.attemptLog).toHaveLength(1);
    expect(delivery.attemptLog[0]!.error).toMatch(/^refused: target resolves to a non-public address \((127\.0\.0\.1|::1)\)$/);
    expect(receiver.requests.filter((r) => r.path === '/dns-local')).toHaveLength(0);
  });

  it('refuses a rebound name on the address the connection would dial', async () => {
    const hook = await registerThroughDevApp(`https://rebind.test:${receiver.port}/rebind`);
    const refusedDelivery = await deliverPing(hook.id, rebinding);
    expect(refusedDelivery.attemptLog[0]!.error).toBe('refused: target resolves to a non-public address (127.0.0.1)');
    expect(receiver.requests.filter((r) => r.path === '/rebind')).toHaveLength(0);
    // Control: the same resolver with the check lifted really dials that address.
    const allowed = await deliverPing(hook.id, rebinding, true);
    expect(allowed.attemptLog[0]!.statusCode).toBe(204);
    expect(receiver.requests.filter((r) => r.path === '/rebind')).toHaveLength(1);
  });

  it('refuses a private literal address stored before the rules tightened', async () => {
    const hook = await registerThroughDevApp(receiver.url('/literal'));
    const delivery = await deliverPing(hook.id);
    expect(delivery.attemptLog[0]!.error).toBe('refused: target address 127.0.0.1 is not public');
    expect(receiver.requests.filter((r) => r.path === '/literal')).toHaveLength(0);
  });
});
