// The bulk exports are built once per data version and query and served from that build, and a
// client (and the instance) may only have so many downloading at once (issue 27: one client
// looping an export used to cost seconds of database work per request and stall everyone).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Prisma } from '../../src/generated/prisma/client.js';
import { EXPORTS_PER_CLIENT } from '../../src/http/export-builds.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { makeIssue } from '../helpers/issues.js';

let db: TestDatabase;
let t: TestApp;
let issueReads = 0;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.prisma.issue.createMany({ data: [makeIssue({ naturalKey: 'one' }), makeIssue({ naturalKey: 'two' })] as Prisma.IssueCreateManyInput[] });
  // The same database, counting the statements over "Issue" the app reads (they still run).
  const read: TestDatabase['read'] = (query, settings) => {
    if (query.text.includes('FROM "Issue"')) issueReads++;
    return db.read(query, settings);
  };
  t = await createTestApp({}, { ...db, read });
});
afterAll(async () => {
  await t?.close();
  await db?.close();
});

const exportsPaths = ['/api/issues/export', '/api/v1/osv/all.zip', '/api/v1/osv/ecosystems.txt'];

describe('export builds', () => {
  it('a repeated download at the same data version reads no issue again, and a change builds anew', async () => {
    const first = await Promise.all(exportsPaths.map(async (path) => Buffer.from(await (await t.fetch(path)).arrayBuffer())));
    const afterFirst = issueReads;
    expect(afterFirst).toBeGreaterThan(0);
    for (let round = 0; round < 3; round++) {
      const again = await Promise.all(exportsPaths.map(async (path) => Buffer.from(await (await t.fetch(path)).arrayBuffer())));
      expect(again).toEqual(first);
    }
    expect(issueReads).toBe(afterFirst);
    // A change of the data is a new version: the next download is built again and holds it.
    await db.prisma.issue.create({ data: makeIssue({ naturalKey: 'three' }) as Prisma.IssueCreateInput });
    await db.prisma.$executeRawUnsafe('UPDATE "DataVersion" SET version = version + 1 WHERE id = 1');
    const csv = await (await t.fetch('/api/issues/export')).text();
    expect(csv.trim().split('\r\n')).toHaveLength(4);
    expect(issueReads).toBeGreaterThan(afterFirst);
  });

  it(`refuses a client's download beyond ${EXPORTS_PER_CLIENT} at once with a 429 envelope and Retry-After`, async () => {
    // Bodies not read: each download holds its slot until its body is done or cancelled.
    const open = await Promise.all(Array.from({ length: EXPORTS_PER_CLIENT }, () => t.fetch('/api/v1/osv/all.zip')));
    for (const res of open) expect(res.status).toBe(200);
    const refused = await t.fetch('/api/v1/osv/all.zip');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeTruthy();
    expect(await refused.json()).toEqual({ error: { status: 429, message: expect.stringMatching(/At most 2 exports/) } });
    for (const res of open) await res.body!.cancel();
    // The slots come back once the files are closed.
    for (;;) {
      const res = await t.fetch('/api/v1/osv/ecosystems.txt');
      if (res.status === 200) break;
      await res.body?.cancel();
      await new Promise((r) => setTimeout(r, 20));
    }
  });
});
