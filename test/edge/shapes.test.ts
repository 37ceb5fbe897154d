// The shapes of the spec's Issue fields whose form was a choice: every
// affectedPackages entry reads `<package>@<range> (fixed: <version>)` with `none` for an unfixed
// range, and cvssVector is CVSS 3.1 wherever the source's metrics allow. Checked on the bundled
// advisories and items, ingested through the admin route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { adminHeaders, adminKey, loadAdvisories, loadItems } from '../helpers/samples.js';

let t: TestApp;
const issues: {
  affectedPackages: string[] | null;
  cvssVector: string | null;
  cvssScore: string | null;
  advisoryAliases: string[];
  patchAvailable: boolean | null;
}[] = [];

beforeAll(async () => {
  t = await createTestApp({ adminApiKey: adminKey });
  const items = [...loadAdvisories(), ...loadItems('news-and-regulation.json')];
  const res = await t.fetch('/api/v1/admin/ingest', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...adminHeaders },
    body: JSON.stringify(items),
  });
  expect(res.status).toBe(200);
  for (let offset = 0; ; offset += 100) {
    const page = (await (await t.fetch(`/api/v1/issues?limit=100&offset=${offset}`)).json()).data;
    issues.push(...page);
    if (page.length < 100) break;
  }
}, 120_000);
afterAll(async () => t?.close());

describe('Issue shapes', () => {
  it('every affectedPackages entry has the spec shape, with `none` only where no release fixes the range', () => {
    const entries = issues.flatMap((i) => i.affectedPackages ?? []);
    expect(entries.length).toBeGreaterThan(50);
    for (const entry of entries) expect(entry).toMatch(/^(.+)@(\S+) \(fixed: (\S+)\)$/);
    expect(entries.some((e) => e.endsWith('(fixed: none)'))).toBe(true);
    for (const issue of issues) {
      const fixed = (issue.affectedPackages ?? []).filter((e) => !e.endsWith('(fixed: none)'));
      if (issue.affectedPackages?.length) expect(issue.patchAvailable).toBe(fixed.length > 0);
    }
  });

  it('cvssVector is CVSS 3.1 for every advisory, including the 16 published with 3.0 vectors', () => {
    const scored = issues.filter((i) => i.cvssVector);
    expect(scored.length).toBeGreaterThan(50);
    for (const issue of scored) expect(issue.cvssVector, issue.advisoryAliases.join()).toMatch(/^CVSS:3\.1\//);
  });

  it('a 3.0 vector keeps its metrics and score under 3.1', async () => {
    const item = {
      title: 'LLM plugin RCE',
      url: 'https://example.org/cvss30',
      publishedAt: '2024-02-02',
      type: 'vulnerability',
      cvssVector: 'CVSS:3.0/AV:N/AC:L/PR:L/UI:R/S:C/C:H/I:H/A:H',
    };
    const res = await t.fetch('/api/v1/admin/ingest', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...adminHeaders },
      body: JSON.stringify([item]),
    });
    const [id] = (await res.json()).data.ids;
    const { data } = await (await t.fetch(`/api/v1/issues/${id}`)).json();
    expect(data).toMatchObject({ cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:L/UI:R/S:C/C:H/I:H/A:H', cvssScore: '9.0' });
  });
});
