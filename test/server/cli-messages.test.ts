// The CLI says what happened, as a real process on a database of its own (embedded, or the
// PostgreSQL scratch database when TEST_DATABASE_URL is set): an unknown command and a bad date
// are named as such, an ingest of a few items says which are served and why the others are not
// (and gives no rate for a handful of records), a failing sync reports each failure once and no
// registry lookups it did not make, counts read "1 issue", and the server's start-up log tells to
// stop the server before `keys create` only where that is needed (the embedded database).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { cliScratch, runCli } from '../helpers/cli.js';
import { startServerProcess } from '../helpers/server-process.js';

const examples = fileURLToPath(new URL('../../examples/items.json', import.meta.url));
const scratch = cliScratch('secwire-cli-messages-');
const cli = (...args: string[]) => runCli(scratch.env, args);

it('names an unknown command before the usage', async () => {
  const { code, stdout, stderr } = await cli('ingset', 'examples/items.json');
  expect(code).toBe(1);
  expect(stdout).toBe('');
  expect(stderr).toMatch(/^secwire: unknown command ingset\n/);
  expect(stderr).toContain('usage: npm run cli -- <command>');
  expect(stderr).toMatch(/^ {2}ingest /m);
});

it('reports a date that is not one as an invalid date', async () => {
  const { code, stderr } = await cli('digest', '2024-02-30');
  expect(code).toBe(1);
  expect(stderr).toMatch(/^secwire digest: 2024-02-30 is not a date: give a calendar day as YYYY-MM-DD/);
});

it('an ingest of a few items says which are served and why the others are not, with no rate', async () => {
  const offTopic = join(scratch.dir, 'off-topic.json');
  await writeFile(
    offTopic,
    JSON.stringify({
      title: 'Village bakery wins the regional sourdough prize for the third year',
      url: 'https://example.org/bakery-prize',
      publishedAt: '2023-12-18',
      type: 'news',
      summary: 'The judges praised the crust and the open crumb of the winning loaf.',
    }),
  );
  const { code, stdout, stderr } = await cli('ingest', examples, offTopic);
  expect(code, stderr).toBe(0);
  expect(stdout).toMatch(/^received 3 records: created 3, updated 0, unchanged 0, rejected 0 in [\d.]+ s on (pglite|postgres)$/m);
  expect(stdout).not.toContain('records/s');
  expect(stdout).toMatch(/^served: 2 of 3 issues /m);
  expect(stdout).toMatch(/^ {2}served {6}\S+ {2}A car dealer's ChatGPT-based sales chatbot/m);
  expect(stdout).toMatch(/^ {2}served {6}\S+ {2}Many-shot jailbreaking/m);
  expect(stdout).toMatch(
    /^ {2}not served {2}\S+ {2}Village bakery wins the regional sourdough prize for the third year: judged not about the security of AI software \(probability 0\.\d\d; strongest evidence: /m,
  );

  const one = await cli('ingest', offTopic);
  expect(one.stdout).toMatch(/^received 1 record: created 0, updated 0, unchanged 1, rejected 0 in /m);
  expect(one.stdout).toMatch(/^served: 0 of 1 issue /m);

  const digest = await cli('digest', '2024-04-02');
  expect(digest.code, digest.stderr).toBe(0);
  expect(digest.stderr).toContain('digest 2024-04-02: 1 issue\n');
}, 300_000);

it('a sync that fails reports each failure once, and no registry lookups it did not make', async () => {
  const sources = JSON.stringify([
    { name: 'refused', kind: 'feed', location: 'https://127.0.0.1:9/feed.xml' },
    { name: 'missing', kind: 'osv-dir', location: join(scratch.dir, 'no-such-dir') },
  ]);
  const { code, stdout, stderr } = await runCli(
    {
      ...scratch.env,
      SOURCES: sources,
      SOURCES_ALLOW_PRIVATE: 'true',
      // The refused source's retries, sooner than in production (the wait is all they would add here).
      SOURCES_RETRY_MS: '20',
      REGISTRY_LOOKUP: 'true',
      PYPI_URL: 'http://127.0.0.1:9',
      NPM_REGISTRY_URL: 'http://127.0.0.1:9',
      LOG_LEVEL: 'info',
    },
    ['sync'],
  );
  expect(code).toBe(2);
  const output = stdout + stderr;
  expect(output).toMatch(/^refused \(feed\): failed in [\d.]+ s: fetch failed: ECONNREFUSED$/m);
  expect(output).toMatch(/^missing \(osv-dir\): failed in [\d.]+ s: cannot read /m);
  expect(output.match(/ECONNREFUSED/g)).toHaveLength(1);
  expect(output.match(/cannot read/g)).toHaveLength(1);
  expect(output).not.toContain('registry lookups');
}, 120_000);

it('the start-up log asks to stop the server before `keys create` only on the embedded database', async () => {
  const server = await startServerProcess({ ...scratch.env, LOG_LEVEL: 'info', WEBHOOK_API_KEY: '' });
  try {
    const at = await server.waitForLog((line) => line.msg === 'bearer keys');
    const webhooks = String((server.lines()[at] as { webhooks?: string }).webhooks);
    expect(webhooks).toContain('`npm run cli -- keys create`');
    if (scratch.pg) expect(webhooks).not.toContain('server stopped');
    else expect(webhooks).toContain('(server stopped: the embedded database serves one process)');
  } finally {
    await server.stop();
  }
}, 120_000);
