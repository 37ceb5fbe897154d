// The foundation checks that never touch the test database: schema.prisma against the migrations
// (on a scratch embedded database, as db:diff runs), the embedded data directory's lock, the
// committed GraphQL schema and configuration errors. They run once per CI run (test/helpers/passes.ts).
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/client.js';
import { DataDirInUseError } from '../../src/db/data-dir-lock.js';
import { diffSchema } from '../../src/db/migrator.js';
import { schema } from '../../src/schema/index.js';

describe('migrations', () => {
  it('take the database exactly to prisma/schema.prisma (db:diff finds nothing to write)', async () => {
    const scratch = await openDatabase({ kind: 'pglite' });
    try {
      expect((await diffSchema(scratch.adapterFactory)).trim()).toBe('');
    } finally {
      await scratch.close();
    }
  }, 120_000);
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

describe('schema.graphql', () => {
  it('matches the Pothos schema (run `npm run codegen` when this fails)', async () => {
    const committed = buildSchema(await readFile(new URL('../../schema.graphql', import.meta.url), 'utf8'));
    expect(printSchema(lexicographicSortSchema(committed))).toBe(printSchema(lexicographicSortSchema(schema)));
  });
});

describe('configuration', () => {
  // The compiled server, as `npm start` runs it (build-setup.ts built it): the tsx loader would
  // transpile all of src/ again in each of these processes.
  const server = ['dist/server/main.js'];

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

  it("reads TRUST_PROXY as a boolean or as the proxies' addresses and ranges", () => {
    expect(parseConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(parseConfig({ TRUST_PROXY: 'no' }).trustProxy).toBe(false);
    expect(parseConfig({ TRUST_PROXY: '10.0.0.10, 10.0.1.0/24,2001:db8::/64 ,::1' }).trustProxy).toEqual(['10.0.0.10', '10.0.1.0/24', '2001:db8::/64', '::1']);
    for (const value of ['proxy.internal', '10.0.0.300', '10.0.0.0/33', '10.0.0.10,', '0x7f.1', 'maybe']) {
      expect(() => parseConfig({ TRUST_PROXY: value }), value).toThrow(/TRUST_PROXY: must be true, false, or the proxies' addresses/);
    }
  });

  it('takes an empty value as unset and only plain digits as a number', () => {
    expect(parseConfig({ PORT: '', RATE_LIMIT_PER_MINUTE: ' ', TRUST_PROXY: '' })).toMatchObject({ port: 3000, rateLimitPerMinute: 60, trustProxy: false });
    for (const [name, value] of [
      ['PORT', '0x10'],
      ['PORT', '1e3'],
      ['PORT', '65536'],
      ['RATE_LIMIT_PER_MINUTE', '-1'],
      ['RATE_LIMIT_PER_MINUTE', '2.5'],
    ]) {
      expect(() => parseConfig({ [name!]: value }), `${name}=${value}`).toThrow(ConfigError);
    }
  });

  it('looks up registry summaries from the public registries unless told otherwise', () => {
    expect(parseConfig({}).registryLookup).toEqual({ pypiUrl: 'https://pypi.org', npmUrl: 'https://registry.npmjs.org' });
    expect(parseConfig({ PYPI_URL: '', NPM_REGISTRY_URL: 'http://127.0.0.1:4873' }).registryLookup).toEqual({
      pypiUrl: 'https://pypi.org',
      npmUrl: 'http://127.0.0.1:4873',
    });
    expect(parseConfig({ REGISTRY_LOOKUP: 'false' }).registryLookup).toBeUndefined();
    expect(() => parseConfig({ PYPI_URL: 'ftp://mirror.example/pypi' })).toThrow(/^PYPI_URL: must be an http\(s\) URL$/);
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
      const env = {
        ...process.env,
        DATABASE_URL: '',
        DATA_DIR: dataDir,
        SEED_SAMPLE_DATA: 'false',
        SOURCES: '[]',
        HOST: '127.0.0.1',
        PORT: String((taken.address() as AddressInfo).port),
      };
      const err = await promisify(execFile)(process.execPath, server, { env, timeout: 90_000 }).catch((e) => e);
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
    const err = await run(process.execPath, server, {
      env: { ...process.env, PORT: 'abc', DATABASE_URL: 'mysql://x', SOURCES: '[]' },
      timeout: 90_000,
    }).catch((e) => e);
    expect(err.code).toBe(1);
    const lines = String(err.stderr).trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^secwire: invalid configuration: PORT: /);
    expect(lines[1]).toMatch(/^secwire: invalid configuration: DATABASE_URL: /);
    expect(String(err.stderr)).not.toMatch(/\bat .+:\d+:\d+/);
  }, 120_000);
});
