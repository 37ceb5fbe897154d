import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../src/config.js';
import { openDatabase } from '../src/db/client.js';
import { DataDirInUseError } from '../src/db/data-dir-lock.js';
import { diffSchema, migrate } from '../src/db/migrator.js';
import { schema } from '../src/schema/index.js';
import { createTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ logLevel: 'error' });
});
afterAll(async () => t?.close());

describe('health and readiness', () => {
  it('GET /health answers 200', async () => {
    const res = await t.fetch('/health');
    expect(res.status).toBe(200);
  });

  it('GET /ready answers 200 once migrated, and 503 before', async () => {
    // The first query of a cold embedded database can take longer than /ready's 1 s budget on a
    // loaded machine (a 503, as for any database that does not answer in time): ask until it is warm.
    let res = await t.fetch('/ready');
    while (res.status === 503) res = await t.fetch('/ready');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready' });
    const unmigrated = await openDatabase({ kind: 'pglite' });
    const early = await createTestApp({}, unmigrated);
    try {
      const notReady = await early.fetch('/ready');
      expect(notReady.status).toBe(503);
      expect(await notReady.json()).toEqual({ status: 'not ready' });
    } finally {
      await early.close();
      await unmigrated.close();
    }
  }, 120_000); // a fresh embedded database (initdb in Wasm) takes well over 30 s on a loaded machine

  it('serves GraphiQL to browsers on GET /graphql', async () => {
    const res = await t.fetch('/graphql', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('GraphiQL');
  });
});

describe('migrations', () => {
  it('take the database exactly to prisma/schema.prisma (db:diff finds nothing to write)', async () => {
    const scratch = await openDatabase({ kind: 'pglite' });
    try {
      expect((await diffSchema(scratch.adapterFactory)).trim()).toBe('');
    } finally {
      await scratch.close();
    }
  }, 120_000);

  it('applies nothing twice', async () => {
    expect(await migrate(t.db.adapterFactory)).toEqual([]);
    const rows = await t.db.prisma.$queryRaw<{ migration_name: string; n: bigint }[]>`
      SELECT migration_name, count(*) AS n FROM "_prisma_migrations" GROUP BY migration_name`;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(Number(row.n)).toBe(1);
  });
});

describe('embedded database directory', () => {
  it('is held by one opener at a time and given back on close', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'secwire-lock-'));
    try {
      const first = await openDatabase({ kind: 'pglite', dataDir });
      await expect(openDatabase({ kind: 'pglite', dataDir })).rejects.toBeInstanceOf(DataDirInUseError);
      await first.close();
      const second = await openDatabase({ kind: 'pglite', dataDir });
      await second.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
      await rm(`${dataDir}.lock`, { recursive: true, force: true });
      await rm(`${dataDir}.lock-holder`, { force: true });
    }
  }, 120_000); // two fresh embedded databases
});

describe('stats', () => {
  it('counts only served issues and digests', async () => {
    const base = {
      title: 't', sourceUrl: 'https://example.org/x', severity: 'high' as const, issueType: 'vulnerability' as const,
      classifierModel: 'test', classifierPromptVersion: 'v0', attackSophistication: 'trivial', llmSpecific: false,
      classifierConfidence: 0.5, contentHash: 'h', searchText: 't', source: {},
    };
    const now = Date.now();
    await t.db.prisma.issue.createMany({
      data: [
        { ...base, naturalKey: 'a', relevant: true, publishedAt: new Date(now - 3600_000) },
        { ...base, naturalKey: 'b', relevant: true, publishedAt: new Date(now - 3 * 24 * 3600_000) },
        { ...base, naturalKey: 'c', relevant: true, publishedAt: new Date(now - 30 * 24 * 3600_000) },
        { ...base, naturalKey: 'd', relevant: false, publishedAt: new Date(now - 3600_000) },
        { ...base, naturalKey: 'e', relevant: true, withdrawn: true, publishedAt: new Date(now - 3600_000) },
      ],
    });
    await t.db.prisma.digest.create({ data: { date: '2026-01-01', content: '# x', issueCount: 1 } });
    const { status, body } = await t.graphql('{ stats { data { totalIssues totalDigests last24h last7d } } }');
    expect(status).toBe(200);
    expect(body.data.stats.data).toEqual({ totalIssues: 3, totalDigests: 1, last24h: 1, last7d: 2 });
  });
});

describe('schema.graphql', () => {
  it('matches the Pothos schema (run `npm run codegen` when this fails)', async () => {
    const committed = buildSchema(await readFile(new URL('../schema.graphql', import.meta.url), 'utf8'));
    expect(printSchema(lexicographicSortSchema(committed))).toBe(printSchema(lexicographicSortSchema(schema)));
  });
});

describe('configuration', () => {
  it('reports each bad variable on its own line, naming it', () => {
    try {
      parseConfig({ PORT: 'abc', DATABASE_URL: 'mysql://x', RATE_LIMIT_PER_MINUTE: '-1' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems;
      expect(problems).toHaveLength(3);
      expect(problems.find((p) => p.startsWith('PORT:'))).toBeTruthy();
      expect(problems.find((p) => p.startsWith('DATABASE_URL:'))).toBeTruthy();
      expect(problems.find((p) => p.startsWith('RATE_LIMIT_PER_MINUTE:'))).toBeTruthy();
    }
  });

  it('takes an empty value as unset and only plain digits as a number', () => {
    expect(parseConfig({ PORT: '', RATE_LIMIT_PER_MINUTE: ' ', TRUST_PROXY: '' })).toMatchObject({ port: 3000, rateLimitPerMinute: 60, trustProxy: false });
    for (const [name, value] of [['PORT', '0x10'], ['PORT', '1e3'], ['PORT', '65536'], ['RATE_LIMIT_PER_MINUTE', '-1'], ['RATE_LIMIT_PER_MINUTE', '2.5']]) {
      expect(() => parseConfig({ [name!]: value }), `${name}=${value}`).toThrow(ConfigError);
    }
  });

  it('never repeats the value of a URL or key it refuses (it may hold a password)', () => {
    try {
      parseConfig({ DATABASE_URL: 'mysql://app:hunter2@db/prod', REDIS_URL: 'http://:hunter2@cache' });
      expect.unreachable();
    } catch (err) {
      expect((err as ConfigError).problems).toHaveLength(2);
      expect((err as ConfigError).message).not.toContain('hunter2');
    }
  });

  it('a port already taken ends the server with exit 1 and one line, and frees the data directory', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const dataDir = await mkdtemp(join(tmpdir(), 'secwire-port-'));
    try {
      const env = { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir, SEED_SAMPLE_DATA: 'false', HOST: '127.0.0.1', PORT: String((taken.address() as AddressInfo).port) };
      const err = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env, timeout: 90_000 }).catch((e) => e);
      expect(err.code).toBe(1);
      expect(String(err.stderr).trim()).toMatch(/^secwire: cannot listen on 127\.0\.0\.1:\d+: listen EADDRINUSE[^\n]*$/);
      const db = await openDatabase({ kind: 'pglite', dataDir });
      await db.close();
    } finally {
      taken.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('the server exits 1 with a one-line message and no stack trace', async () => {
    const run = promisify(execFile);
    const err = await run(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, PORT: 'abc', DATABASE_URL: 'mysql://x' },
      timeout: 90_000,
    }).catch((e) => e);
    expect(err.code).toBe(1);
    const lines = String(err.stderr).trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^secwire: invalid configuration: PORT: /);
    expect(lines[1]).toMatch(/^secwire: invalid configuration: DATABASE_URL: /);
    expect(String(err.stderr)).not.toMatch(/at .*\.ts:\d+/);
  }, 120_000);
});
