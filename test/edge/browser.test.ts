// A real browser against a real listening server: GraphiQL loads (its assets are served by us,
// nothing from a CDN), runs its example query and shows the issues; the docs page renders.
// Debian's Chromium driven by playwright-core. Skipped, saying why, only outside CI when the
// browser is not installed; in CI it always runs.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeIssue } from '../helpers/issues.js';

const executablePath = '/usr/bin/chromium';
const available = existsSync(executablePath);
const inCI = Boolean(process.env.CI);
const skipReason = `${executablePath} is not installed (apt-get install chromium); CI installs it and never skips`;
if (!available && !inCI) console.warn(`browser tests skipped: ${skipReason}`);

describe.skipIf(!available && !inCI)(`in Chromium${available ? '' : ` (${skipReason})`}`, () => {
  let t: TestApp;
  let server: Server;
  let base: string;
  let profile: string;
  let browser: BrowserContext;
  const requested: string[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    await t.db.prisma.issue.createMany({
      data: [
        makeIssue({ title: 'Model weights exfiltrated through a plugin', severity: 'critical', publishedAt: new Date('2025-03-02T00:00:00Z') }),
        makeIssue({ title: 'RAG poisoning of support bots', severity: 'high', publishedAt: new Date('2025-03-01T00:00:00Z') }),
      ],
    });
    server = createServer(t.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    profile = await mkdtemp(join(tmpdir(), 'secwire-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    // Everything the pages load must come from our server.
    browser.on('request', (request) => requested.push(request.url()));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await t?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
  });

  it('GraphiQL runs the example query and shows the issues', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(`${base}/graphql`);
    const run = page.locator('.graphiql-execute-button');
    await run.waitFor({ state: 'visible', timeout: 60_000 });
    // The editor holds the example query before anything is typed.
    await expect.poll(() => page.locator('.graphiql-query-editor').innerText(), { timeout: 30_000 }).toContain('LatestIssues');
    await run.click();
    const response = page.locator('.graphiql-response');
    // The result is shown by an editor that wraps lines and uses no-break spaces.
    const shown = async () => (await response.innerText()).replace(/\s+/g, ' ');
    await expect.poll(shown, { timeout: 30_000 }).toContain('"title": "Model weights exfiltrated through a plugin"');
    expect(await shown()).toContain('"title": "RAG poisoning of support bots"');
    expect(await shown()).toContain('"total": 2');
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('the docs page lists the routes and links to the OpenAPI document', async () => {
    const page = await browser.newPage();
    const res = await page.goto(`${base}/api/v1/docs`);
    expect(res?.status()).toBe(200);
    expect(await page.locator('h1').innerText()).toBe('secwire API');
    const routes = await page.locator('.operation h3').allInnerTexts();
    // Each heading ends in its section's self-link, '#'.
    expect(routes.map((r) => r.replace(/\s+/g, ' ').replace(/ #$/, '').trim())).toEqual(
      expect.arrayContaining(['GET /api/v1/issues', 'GET /api/v1/issues/:id', 'GET /api/v1/digest/latest', 'GET /api/v1/stats']),
    );
    // Every route shows a curl example.
    const sections = await page.locator('.operation').count();
    expect(sections).toBeGreaterThan(20);
    expect(await page.locator('.operation pre code', { hasText: /^curl / }).count()).toBe(sections);
    await page.getByRole('link', { name: 'OpenAPI document' }).click();
    await page.waitForURL(`${base}/api/v1/openapi.json`);
    expect(JSON.parse(await page.locator('body').innerText()).info.license.name).toBe('CC-BY-4.0');
    await page.close();
  }, 60_000);

  it('the docs page fits a 1,280 px window, and its examples name the origin it was served from', async () => {
    const page = await browser.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${base}/api/v1/docs`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
    const examples = await page.locator('.operation pre code').allInnerTexts();
    expect(examples.length).toBeGreaterThan(20);
    expect(examples.filter((e) => !e.includes(`'${base}/`))).toEqual([]);
    expect(examples.filter((e) => e.includes('localhost:3000'))).toEqual([]);
    await page.close();
  }, 60_000);

  it('loaded nothing from outside the server', () => {
    expect(requested.length).toBeGreaterThan(0);
    expect(requested.filter((url) => !url.startsWith(base) && !url.startsWith('blob:') && !url.startsWith('data:'))).toEqual([]);
  });
});
