// The bundled sample as served holds no residue of its sources' markup: no summary opens with the
// text of a lone leading link, ends with a heading answered "No" (GitHub's advisory form), or
// carries an HTML entity as text. Checked on every served issue of a seeded sample, through REST.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedSampleData } from '../../src/server/seed.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { recordingLog } from '../helpers/recording-log.js';

type Served = { id: string; summary: string; advisoryAliases: string[]; sourceUrl: string };
let t: TestApp;
let issues: Served[];

beforeAll(async () => {
  t = await createTestApp();
  await seedSampleData({ prisma: t.db.prisma, pubsub: t.pubsub, log: recordingLog(), db: t.db });
  issues = [];
  for (let offset = 0; ; offset += 100) {
    const { data, meta } = await (await t.fetch(`/api/v1/issues?limit=100&offset=${offset}`)).json();
    issues.push(...data);
    if (offset + 100 >= meta.total) break;
  }
}, 180_000);
afterAll(async () => t?.close());

const byAlias = (alias: string) => issues.find((i) => i.advisoryAliases.includes(alias))!.summary;

it('serves the whole sample', () => {
  expect(issues.length).toBeGreaterThan(100);
});

it('no summary carries an HTML entity as text', () => {
  expect(issues.filter((i) => /&(?:lt|gt|amp|quot|#39|nbsp);/.test(i.summary)).map((i) => i.sourceUrl)).toEqual([]);
  const atlas = issues.find((i) => i.sourceUrl === 'https://atlas.mitre.org/studies/AML.CS0046')!.summary;
  expect(atlas).toMatch(/<IMPORTANT>$/);
});

it('no summary ends with a heading of the advisory form or its bare "No"', () => {
  const ending = /(?:\b(?:Workarounds?|Patches|References|Impact|Details)\s*:?|\bNo\.?)$/;
  expect(issues.filter((i) => ending.test(i.summary.trim())).map((i) => `${i.sourceUrl}: ...${i.summary.slice(-80)}`)).toEqual([]);
  expect(byAlias('GHSA-45gq-q4xh-cp53')).toMatch(/This could aid attackers in credential attacks$/);
  expect(byAlias('GHSA-m678-f26j-3hrp')).toContain('Users should upgrade to jupyter_core>=4.11.2. Similar advisory in IPython');
});

it("no summary opens with the text of a lone link above the advisory's first heading", () => {
  expect(byAlias('GHSA-c7vm-f5p4-8fqh')).toMatch(/^Open redirect vulnerability - a maliciously crafted link/);
});
