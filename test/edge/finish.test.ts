// finish() is the one place that adds what every answer carries (http/finish.ts): the same call
// writes a Fetch Response's headers on Yoga's path and a plain record for a cache hit written
// before Yoga; test/edge/cached-reply.test.ts compares the two paths' answers over a socket.
import { describe, expect, it } from 'vitest';
import { asHeaders, finish, licenseLink } from '../../src/http/finish.js';

const rateLimit = { 'RateLimit-Policy': '"default";q=60;w=60', RateLimit: '"default";r=59;t=60' };

describe('finish()', () => {
  it('writes the same headers on a Fetch Headers and on a record, whatever the case of the names already there', () => {
    const fetchHeaders = new Headers({ 'content-type': 'application/json', vary: 'Origin' });
    const record: Record<string, string> = { 'content-type': 'application/json', Vary: 'Origin' };
    const finishing = { requestId: 'req-1', rateLimit, cached: true, links: [licenseLink, '</api/v1/issues?offset=5>; rel="next"'] };
    finish(fetchHeaders, finishing);
    finish(asHeaders(record), finishing);
    const lower = (entries: [string, string][]) => Object.fromEntries(entries.map(([name, value]) => [name.toLowerCase(), value]));
    expect(lower(Object.entries(record))).toEqual(lower([...fetchHeaders]));
    expect(record).toEqual({
      'content-type': 'application/json',
      Vary: 'Origin, Accept-Encoding',
      Link: `${licenseLink}, </api/v1/issues?offset=5>; rel="next"`,
      ...rateLimit,
      'X-Request-Id': 'req-1',
    });
  });

  it('adds no Link or Vary where they do not belong, and names Accept-Encoding once', () => {
    const plain = new Headers({ link: '<kept>; rel="license"' });
    finish(plain, { requestId: 'req-2', cached: false });
    expect([...plain]).toEqual([
      ['link', '<kept>; rel="license"'],
      ['x-request-id', 'req-2'],
    ]);
    const again = new Headers({ vary: 'Accept-Encoding' });
    finish(again, { requestId: 'req-3', cached: true });
    expect(again.get('vary')).toBe('Accept-Encoding');
  });
});
