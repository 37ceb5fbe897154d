// Migrates one template database per test run with the real migrator; each test file then starts
// from a copy of it (CREATE DATABASE ... TEMPLATE on PostgreSQL, a data-dir tarball on PGlite),
// which is much cheaper than running the Wasm schema engine in every file.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/client.js';
import { migrate, migrationsDir } from '../../src/db/migrator.js';
import { installedTemplates } from '../../src/db/pglite-template.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PostgreSQL: name of the migrated template database. PGlite: path of the migrated tarball. */
    testDatabaseTemplate: string;
  }
}

const adminQuery = async (url: string, sql: string) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
};

export default async function setup(project: TestProject) {
  const serverUrl = process.env.TEST_DATABASE_URL || undefined;
  if (serverUrl) {
    const name = `secwire_template_${randomBytes(6).toString('hex')}`;
    await adminQuery(serverUrl, `CREATE DATABASE ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    const db = await openDatabase({ kind: 'postgres', url: url.toString() });
    await migrate(db.adapterFactory);
    await db.close();
    // The schema engine's adapter keeps its own idle connection for a while; a template with any
    // session on it cannot be copied, so end them now.
    await adminQuery(serverUrl, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`);
    project.provide('testDatabaseTemplate', name);
    return () => adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'secwire-template-'));
  const db = (await openInstalledCluster()) ?? (await openDatabase({ kind: 'pglite' }));
  await migrate(db.adapterFactory);
  const path = join(dir, 'template.tar.gz');
  const dump = await db.pglite!.dumpDataDir('gzip');
  await writeFile(path, Buffer.from(await dump.arrayBuffer()));
  await db.close();
  project.provide('testDatabaseTemplate', path);
  return () => rm(dir, { recursive: true, force: true });
}

/**
 * The migrated, empty cluster `npm install` made, when every migration it recorded is still the
 * file it was applied from: initdb in Wasm is about 10 s before any test file can start, and
 * migrate() then applies only what was added since the install. A migration edited or removed
 * since then means a fresh cluster, as before, so the edit is tested.
 */
async function openInstalledCluster() {
  if (!existsSync(installedTemplates.empty)) return undefined;
  const db = await openDatabase({ kind: 'pglite', loadDataDir: new Blob([await readFile(installedTemplates.empty)]) });
  const applied = await db.prisma.$queryRaw<{ migration_name: string; checksum: string }[]>`SELECT migration_name, checksum FROM "_prisma_migrations"`;
  const unchanged = await Promise.all(
    applied.map(({ migration_name, checksum }) =>
      readFile(join(migrationsDir, migration_name, 'migration.sql')).then(
        (sql) => createHash('sha256').update(sql).digest('hex') === checksum,
        () => false,
      ),
    ),
  );
  if (unchanged.every(Boolean)) return db;
  await db.close();
  return undefined;
}
