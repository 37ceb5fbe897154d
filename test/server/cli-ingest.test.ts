// The operator CLI as a real process: `ingest <dir>` on the embedded database (or the PostgreSQL
// scratch database when TEST_DATABASE_URL is set), its summary, rejections and exit code, and
// the event rows it leaves for the server's relay.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';
import { cliDatabase, runCli } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/database.js';
import { loadAdvisory } from '../helpers/samples.js';

let dir: string;
let pg: TestDatabase | undefined;
let env: Record<string, string>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'secwire-cli-'));
  await mkdir(join(dir, 'input', 'nested'), { recursive: true });
  await writeFile(join(dir, 'input', 'a.json'), JSON.stringify(loadAdvisory('GHSA-2jxw-4hm4-6w87')));
  await writeFile(
    join(dir, 'input', 'nested', 'b.json'),
    JSON.stringify([
      { title: 'Indirect prompt injection in an LLM email agent', url: 'https://example.org/cli', publishedAt: '2024-03-01', type: 'research' },
      { title: 'no url', publishedAt: '2024-03-01' },
    ]),
  );
  await writeFile(join(dir, 'input', 'c.json'), '{ not json');
  ({ env, pg } = await cliDatabase(dir));
});
afterAll(async () => {
  await pg?.close();
  await rm(dir, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli(env, args);

it('ingests a directory, reports a summary and rejections, and is idempotent', async () => {
  const first = await cli('ingest', join(dir, 'input'));
  expect(first.code, first.stderr).toBe(2); // something was rejected
  expect(first.stdout).toMatch(/^received 3 records: created 2, updated 0, unchanged 0, rejected 1 in [\d.]+ s on (pglite|postgres)$/m);
  expect(first.stdout).toContain(`rejected ${join(dir, 'input', 'nested', 'b.json')}#1: invalid item: url: `);
  expect(first.stderr).toContain(`skipped ${join(dir, 'input', 'c.json')}: not valid JSON`);

  const second = await cli('ingest', join(dir, 'input', 'a.json'), join(dir, 'input', 'nested'));
  expect(second.stdout).toMatch(/^received 3 records: created 0, updated 0, unchanged 2, rejected 1 /m);

  const digest = await cli('digest', '2024-01-22');
  expect(digest.code).toBe(0);
  expect(digest.stdout).toContain('[SQL injection in llama-index (CVE-2024-23751)](https://github.com/advisories/GHSA-2jxw-4hm4-6w87)');

  const db: Database = pg ?? (await openDatabase({ kind: 'pglite', dataDir: env.DATA_DIR }));
  try {
    expect(await db.prisma.issue.count()).toBe(2);
    // One batch, one event, left for the server's relay to publish.
    const events = await db.prisma.issueEvent.findMany();
    expect(events).toHaveLength(1);
    expect(events[0]!.relayedAt).toBeNull();
    expect(events[0]!.issueIds).toHaveLength(2);
  } finally {
    if (!pg) await db.close();
  }
}, 300_000);

it('explains its usage', async () => {
  const { code, stderr } = await cli('ingest');
  expect(code).toBe(1);
  expect(stderr).toContain('usage: npm run cli -- ingest <file|dir>...');
});

it('a missing path or an empty directory is an error with a clear message, not ENOENT', async () => {
  const missing = await cli('ingest', join(dir, 'no-such-file.json'));
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain(`secwire ingest: ${join(dir, 'no-such-file.json')}: no such file or directory`);
  expect(missing.stderr).not.toMatch(/ENOENT|\bat /);
  await mkdir(join(dir, 'empty'), { recursive: true });
  const empty = await cli('ingest', join(dir, 'empty'));
  expect(empty.code).toBe(1);
  expect(empty.stderr).toContain(`secwire ingest: ${join(dir, 'empty')}: no .json files in this directory`);
}, 120_000);

it('rejects a record with a date outside 1970-9999 on its own, and exits by itself', async () => {
  const file = join(dir, 'dates.json');
  await writeFile(
    file,
    JSON.stringify([{ title: 'LLM jailbreak before time', url: 'https://example.org/year0', publishedAt: '0000-01-01', type: 'research' }]),
  );
  // cli() resolves only once the process has exited on its own: no timer may keep it alive.
  const run = await cli('ingest', file);
  expect(run.code, run.stderr).toBe(2);
  expect(run.stdout).toContain(`rejected ${file}#0: invalid item: publishedAt: must be between 1970-01-01 and 9999-12-31`);
}, 120_000);
