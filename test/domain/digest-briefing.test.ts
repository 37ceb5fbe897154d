// The digest as an analyst reads it: the day's top items ranked by exploitation, severity and
// reach, each with its action line; what is exploited now; attack types against the week before;
// a freshness line. The Markdown is read with a Markdown parser (markdown-it's token stream), the
// Atom entry with a feed parser, where the digest is HTML with clickable links and escaped text.
import { parseFeed } from '@rowanmanning/feed-parser';
import MarkdownIt from 'markdown-it';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateDigest } from '../../src/digest/generate.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeIssue } from '../helpers/issues.js';

let t: TestApp;
const day = '2025-06-10';
const at = (iso: string) => new Date(iso);

beforeAll(async () => {
  t = await createTestApp();
  await t.db.prisma.issue.createMany({
    data: [
      // The day's items: a critical one without exploitation, a medium one in KEV, a high one
      // with a likely EPSS score, and a low one with a title that tries to be HTML.
      makeIssue({
        title: 'Critical RCE in model server',
        severity: 'critical',
        cvssScore: 9.8,
        publishedAt: at(`${day}T08:00:00Z`),
        attackType: ['code_execution'],
        solution: 'Upgrade model-server to 2.0.1 or later.',
        affectedPackageRefs: ['pypi:model-server'],
      }),
      makeIssue({
        title: 'Agent framework auth bypass',
        severity: 'medium',
        cveId: 'CVE-2025-0001',
        kevDateAdded: '2025-06-09',
        exploitMaturity: 'active',
        publishedAt: at(`${day}T09:00:00Z`),
        attackType: ['prompt_injection'],
        solution: 'Upgrade agentkit to 1.4.2 or later.',
        epssScore: 0.02,
      }),
      makeIssue({
        title: 'High SSRF in LLM gateway',
        severity: 'high',
        epssScore: 0.4,
        publishedAt: at(`${day}T10:00:00Z`),
        attackType: ['prompt_injection'],
        solution: 'N/A: no patch or mitigation has been published.',
      }),
      makeIssue({
        title: 'Low <img src=x onerror=alert(1)> in notebook',
        severity: 'low',
        publishedAt: at(`${day}T11:00:00Z`),
        issueType: 'research',
        solution: null,
      }),
      // The week before: two prompt injections and a data poisoning.
      makeIssue({ title: 'Earlier injection 1', publishedAt: at('2025-06-05T10:00:00Z'), attackType: ['prompt_injection'] }),
      makeIssue({ title: 'Earlier injection 2', publishedAt: at('2025-06-03T10:00:00Z'), attackType: ['prompt_injection', 'data_poisoning'] }),
      makeIssue({ title: 'Too early', publishedAt: at('2025-06-02T10:00:00Z'), attackType: ['model_theft'] }),
      // Published long ago, added to KEV this week: exploited now.
      makeIssue({
        title: 'Old notebook server flaw',
        cveId: 'CVE-2023-0002',
        kevDateAdded: '2025-06-08',
        exploitMaturity: 'active',
        publishedAt: at('2023-01-01T00:00:00Z'),
        solution: 'Upgrade notebook-server to 7.0.0 or later.',
      }),
    ],
  });
  await t.db.prisma.sourceState.create({
    data: { name: 'osv-pypi', kind: 'osv-zip', location: 'https://example.org/all.zip', lastNewDataAt: at('2025-06-10T06:00:00Z') },
  });
});
afterAll(async () => t?.close());

const md = new MarkdownIt();

/** The inline text of the items of the list under a level-2 heading. */
function listUnder(content: string, heading: string): string[] {
  const tokens = md.parse(content, {});
  const start = tokens.findIndex((tk, i) => tk.type === 'heading_open' && tk.tag === 'h2' && tokens[i + 1]?.content === heading);
  expect(start, `## ${heading}`).toBeGreaterThanOrEqual(0);
  const items: string[] = [];
  for (let i = start + 3; i < tokens.length && !(tokens[i]!.type === 'heading_open'); i++) {
    const tk = tokens[i]!;
    if (tk.type === 'inline' && tk.level === 3) items.push(tk.content);
  }
  return items;
}

it('ranks the top items by exploitation, then severity, each with its facts and one action line', async () => {
  const digest = await generateDigest(t.db.prisma, day);
  expect(digest.issueCount).toBe(4);
  const top = listUnder(digest.content, 'Top items');
  expect(top.map((line) => /^\[([^\]]+)\]/.exec(line)?.[1])).toEqual([
    'Agent framework auth bypass',
    'High SSRF in LLM gateway',
    'Critical RCE in model server',
    'Low \\<img src=x onerror=alert(1)\\> in notebook',
  ]);
  expect(top[0]).toMatch(/medium · EPSS 2\.0% · known exploited \(CISA KEV since 2025-06-09\)/);
  expect(top[2]).toMatch(/critical · CVSS 9\.8 · 1 package/);
  const tokens = md.parse(digest.content, {});
  const actions = tokens.filter((tk) => tk.type === 'inline' && tk.content.startsWith('Action: ')).map((tk) => tk.content);
  expect(actions).toEqual([
    'Action: Upgrade agentkit to 1.4.2 or later.',
    'Action: No fixed version or mitigation published yet: limit exposure of the affected component and watch the advisory.',
    'Action: Upgrade model-server to 2.0.1 or later.',
    'Action: Read the source; no product fix applies.',
  ]);
});

it('lists what is exploited now, the attack types against the week before, and how fresh the feed is', async () => {
  const { content } = await generateDigest(t.db.prisma, day);
  const exploited = listUnder(content, 'Exploited now');
  expect(exploited.map((line) => /^\[([^\]]+)\]/.exec(line)?.[1])).toEqual(['Agent framework auth bypass', 'Old notebook server flaw']);
  expect(exploited[1]).toContain('added to CISA KEV on 2025-06-08. Action: Upgrade notebook-server to 7.0.0 or later.');
  const tokens = md.parse(content, {});
  const table = tokens
    .slice(
      tokens.findIndex((tk) => tk.type === 'table_open'),
      tokens.findIndex((tk) => tk.type === 'table_close'),
    )
    .filter((tk) => tk.type === 'inline')
    .map((tk) => tk.content);
  // Header cells, then rows of [type, the day, the seven days before].
  expect(table.slice(0, 3)).toEqual(['attack type', day, 'previous 7 days']);
  const rows = [];
  for (let i = 3; i < table.length; i += 3) rows.push(table.slice(i, i + 3));
  expect(rows).toEqual([
    ['prompt injection', '2', '2'],
    ['code execution', '1', '0'],
    ['data poisoning', '0', '1'],
  ]);
  expect(content).toContain('Freshness: the feed last received new data at');
  expect(content).toContain('(latest sources: osv-pypi)');
  // A day after the feed's last data: the digest says nothing new arrived.
  await t.db.prisma.issue.updateMany({ data: { modifiedAt: at('2025-06-10T06:00:00Z') } });
  const later = await generateDigest(t.db.prisma, '2025-06-11');
  expect(later.content).toContain('Freshness: nothing new arrived on 2025-06-11; the feed last received data at 2025-06-10 06:00 UTC (from osv-pypi).');
});

it('the Atom digest is HTML: escaped text, clickable links, no Markdown in <pre>', async () => {
  await generateDigest(t.db.prisma, day);
  const xml = await (await t.fetch('/api/v1/digests.atom')).text();
  const feed = parseFeed(xml);
  const entry = feed.items.find((i) => i.url === `http://localhost/api/v1/digests/${day}`)!;
  const html = entry.content!;
  expect(html).not.toContain('<pre>');
  expect(html).toContain('<h2>Top items</h2>');
  expect(html).toMatch(/<ol>\s*<li><a href="https:\/\/example\.org\/[^"]+">Agent framework auth bypass<\/a> \(CVE-2025-0001\)/);
  expect(html).toContain('<table>');
  // The title that looked like HTML stays text: escaped in the entry's HTML as sent.
  expect(xml).toContain('Low &lt;img src=x onerror=alert(1)&gt; in notebook');
  expect(xml).not.toContain('<img');
});
