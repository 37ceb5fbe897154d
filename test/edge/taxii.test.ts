// The TAXII 2.1 server as a TAXII client walks it: discovery, the API root, collections, and
// objects paged with `next` while issues keep arriving (nothing skipped, nothing repeated), with
// every object valid STIX 2.1 and every reference resolvable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Prisma } from '../../src/generated/prisma/client.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeIssue } from '../helpers/issues.js';
import { checkBundle } from '../helpers/stix.js';

const TAXII = 'application/taxii+json;version=2.1';
type StixObject = { type: string; id: string; [key: string]: any };
type Envelope = { more: boolean; next?: string; objects?: StixObject[] };

let t: TestApp;
let batch = 0;

/** `count` served issues of every shape the STIX mapping branches on, plus unserved ones. */
function issues(count: number): Prisma.IssueCreateManyInput[] {
  batch++;
  const made = Array.from({ length: count }, (_, i) =>
    makeIssue({
      naturalKey: `taxii-${batch}-${i}`,
      title: `Batch ${batch} issue ${i}`,
      // Later batches publish older and newer items alike: an order by publication would put them mid-list.
      publishedAt: new Date(Date.UTC(2025, 0, 1) + (i % 2 ? 1 : -1) * (batch * 1000 + i) * 3600_000),
      severity: (['critical', 'high', 'medium', 'low', 'info'] as const)[i % 5],
      issueType: (['vulnerability', 'incident', 'news', 'regulatory', 'research'] as const)[i % 5],
      attackType: [['prompt_injection'], ['jailbreak', 'other'], ['model_inversion'], []][i % 4]!,
      atlasIds: i % 3 === 0 ? ['AML.T0051'] : i % 3 === 1 ? ['AML.T9999'] : [],
      solution: i % 2 ? 'Upgrade to 1.2.3.' : null,
    }),
  );
  return [...made, makeIssue({ naturalKey: `taxii-${batch}-hidden`, relevant: false })];
}

async function taxii(path: string, headers: Record<string, string> = { accept: TAXII }) {
  const res = await t.fetch(path, { headers });
  return { res, body: await res.json() };
}

const ALL = '/taxii2/api/collections/all/objects/';

/** Walks a collection with `next`; `between` runs after each page (to change the data mid-walk). */
async function walk(path: string, limit: number, between: (page: number) => Promise<void> = async () => {}) {
  const seen: StixObject[] = [];
  let next: string | undefined;
  let page = 0;
  do {
    const { res, body } = await taxii(`${path}?limit=${limit}${next ? `&next=${encodeURIComponent(next)}` : ''}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(TAXII);
    const envelope = body as Envelope;
    expect(envelope.objects?.length ?? 0).toBeLessThanOrEqual(limit);
    seen.push(...(envelope.objects ?? []));
    next = envelope.more ? envelope.next : undefined;
    if (envelope.more) expect(next).toBeTruthy();
    await between(++page);
  } while (next);
  return seen;
}

beforeAll(async () => {
  t = await createTestApp();
  await t.db.prisma.issue.createMany({ data: issues(40) });
});
afterAll(async () => t?.close());

describe('discovery, API root and collections', () => {
  it('discovery names the one API root', async () => {
    const { res, body } = await taxii('/taxii2/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(TAXII);
    expect(body).toMatchObject({ default: '/taxii2/api/', api_roots: ['/taxii2/api/'] });
    expect((await taxii('/taxii2')).body).toEqual(body);
  });

  it('the API root speaks TAXII 2.1', async () => {
    expect((await taxii('/taxii2/api/')).body).toMatchObject({ versions: [TAXII] });
  });

  it('lists all, per-type and per-severity collections, each readable by id', async () => {
    const { body } = await taxii('/taxii2/api/collections/');
    expect(body.collections.map((c: { alias: string }) => c.alias)).toEqual([
      'all',
      'type-vulnerability',
      'type-incident',
      'type-news',
      'type-regulatory',
      'type-research',
      'severity-critical',
      'severity-high',
      'severity-medium',
      'severity-low',
      'severity-info',
    ]);
    for (const c of body.collections) {
      expect(c).toMatchObject({ can_read: true, can_write: false, media_types: ['application/stix+json;version=2.1'] });
      expect(c.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect((await taxii(`/taxii2/api/collections/${c.id}/`)).body).toEqual(c);
    }
  });
});

describe('objects', () => {
  it('a walk with next returns valid STIX with every reference resolvable, each object once', async () => {
    const objects = await walk(ALL, 37);
    expect(new Set(objects.map((o) => o.id)).size).toBe(objects.length);
    // One object per issue: a vulnerability, or a report for what is not one.
    const perIssue = objects.filter((o) => o.type === 'vulnerability' || o.type === 'report');
    expect(perIssue).toHaveLength(40);
    expect(checkBundle({ type: 'bundle', id: 'bundle--5d0092c5-5f74-4287-9642-33f4c354e56d', objects })).toEqual({ schemaErrors: [], danglingRefs: [] });
  });

  it('the first page holds issues: before each comes only what it references that no earlier object gave', async () => {
    const { body } = await taxii(`${ALL}?limit=100`);
    const objects = body.objects as StixObject[];
    expect(objects.slice(0, 3).map((o) => o.type)).toEqual(['marking-definition', 'marking-definition', 'identity']);
    expect(objects.filter((o) => o.type === 'vulnerability' || o.type === 'report').length).toBeGreaterThanOrEqual(15);
    // An attack pattern comes once, before the first object that references it, and only when one
    // on the page does (unless the page ends inside that issue's group).
    const refs = (o: StixObject): string[] => [o.source_ref, ...(o.object_refs ?? [])].filter((r) => typeof r === 'string' && r.startsWith('attack-pattern--'));
    objects.forEach((o, i) => {
      for (const ref of refs(o))
        expect(
          objects.slice(0, i).some((p) => p.id === ref),
          `${o.id} references ${ref} after it`,
        ).toBe(true);
      const rest = objects.slice(i + 1);
      if (o.type === 'attack-pattern') expect(rest.some((u) => refs(u).includes(o.id)) || rest.every((u) => u.type === 'attack-pattern'), o.id).toBe(true);
    });
    expect(new Set(objects.map((o) => o.id)).size).toBe(objects.length);
  });

  it('nothing is skipped or repeated while issues are ingested mid-walk', async () => {
    const before = await walk(ALL, 1000);
    const walked = await walk(ALL, 9, async (page) => {
      if (page % 3 === 0 && page <= 9) await t.db.prisma.issue.createMany({ data: issues(5) });
    });
    const ids = walked.map((o) => o.id);
    expect(new Set(ids).size).toBe(ids.length);
    // Everything there at the start was seen, in the same order.
    const start = new Set(before.map((o) => o.id));
    expect(ids.filter((id) => start.has(id))).toEqual(before.map((o) => o.id));
    // The issues that arrived during the walk came after it, and a fresh walk sees the same list.
    expect(ids.length).toBeGreaterThan(before.length);
    expect((await walk(ALL, 1000)).map((o) => o.id)).toEqual(ids);
  });

  it('added_after and the X-TAXII-Date-Added headers let a client resume by date', async () => {
    const { res: first, body } = await taxii(`${ALL}?limit=1000`);
    expect(body.more).toBe(false);
    expect(first.headers.get('x-taxii-date-added-first')).toBe('2025-01-01T00:00:00.000Z');
    const lastAdded = first.headers.get('x-taxii-date-added-last')!;
    expect(lastAdded).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect((await taxii(`${ALL}?added_after=${lastAdded}`)).body).toEqual({ more: false });

    await t.db.prisma.issue.createMany({ data: issues(4) });
    const { res, body: after } = await taxii(`${ALL}?added_after=${lastAdded}&limit=1000`);
    expect(new Date(res.headers.get('x-taxii-date-added-first')!).getTime()).toBeGreaterThan(new Date(lastAdded).getTime());
    expect(
      after.objects
        .filter((o: StixObject) => o.type === 'vulnerability' || o.type === 'report')
        .map((o: StixObject) => o.name)
        .sort(),
    ).toEqual([0, 1, 2, 3].map((i) => `Batch ${batch} issue ${i}`));
  });

  it('match[type] and match[id] filter, and per-severity collections hold only their issues', async () => {
    const { body } = await taxii(`${ALL}?match[type]=vulnerability,course-of-action&limit=1000`);
    expect(new Set(body.objects.map((o: StixObject) => o.type))).toEqual(new Set(['vulnerability', 'course-of-action']));
    const one = body.objects[3] as StixObject;
    expect((await taxii(`${ALL}?match[id]=${one.id}`)).body.objects).toEqual([one]);
    const critical = (await walk('/taxii2/api/collections/severity-critical/objects/', 50)).filter((o) => o.type === 'vulnerability');
    expect(critical.length).toBeGreaterThan(0);
    expect(critical.every((o) => o.labels.includes('severity:critical'))).toBe(true);
  });

  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  it.each([
    ['limit=0', 400],
    ['next=bm9wZQ', 400],
    // Forged positions: a negative or out-of-range reference index, year 0, a negative object index.
    [`next=${b64({ r: -5 })}`, 400],
    [`next=${b64({ r: 1e6 })}`, 400],
    [`next=${b64({ t: '0000-01-01T00:00:00.000Z', id: '00000000-0000-4000-8000-000000000000', k: 0 })}`, 400],
    [`next=${b64({ t: '-000001-01-01T00:00:00.000Z', id: '00000000-0000-4000-8000-000000000000', k: 0 })}`, 400],
    [`next=${b64({ t: '2025-01-01T00:00:00.000Z', id: '00000000-0000-4000-8000-000000000000', k: -1 })}`, 400],
    ['added_after=yesterday', 400],
    ['match[version]=2020-01-01T00:00:00Z', 400],
    ['colour=red', 400],
  ])('refuses %s with a TAXII error message', async (query, status) => {
    const { res, body } = await taxii(`${ALL}?${query}`);
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toBe(TAXII);
    expect(body).toMatchObject({ http_status: String(status) });
    expect(body.title).toEqual(expect.any(String));
    if (query.startsWith('next=')) expect(body.title).toMatch(/\bnext\b/);
  });

  it('answers 404, 405 and 406 as TAXII errors', async () => {
    expect((await taxii('/taxii2/api/collections/nope/objects/')).res.status).toBe(404);
    expect((await taxii('/taxii2/api/nothing/')).res.status).toBe(404);
    const post = await t.fetch(ALL, { method: 'POST', headers: { accept: TAXII, 'content-type': TAXII }, body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect((await taxii('/taxii2/', { accept: 'application/xml' })).res.status).toBe(406);
    expect((await taxii('/taxii2/', { accept: 'application/taxii+json;version=2.0' })).res.status).toBe(406);
    expect((await taxii('/taxii2/', {})).res.status).toBe(200);
  });
});

describe('settling', () => {
  it('lists an issue only once it is older than the settle time', async () => {
    const settling = await createTestApp({ taxiiSettleSeconds: 3600 });
    try {
      await settling.db.prisma.issue.createMany({ data: issues(3) });
      const res = await settling.fetch(`${ALL}?match[type]=vulnerability,report`, { headers: { accept: TAXII } });
      expect(await res.json()).toEqual({ more: false });
      await settling.db.prisma.issue.updateMany({ data: { firstSeenAt: new Date(Date.now() - 7200_000) } });
      const later = await settling.fetch(`${ALL}?match[type]=vulnerability,report`, { headers: { accept: TAXII } });
      expect((await later.json()).objects).toHaveLength(3);
    } finally {
      await settling.close();
    }
  });
});
