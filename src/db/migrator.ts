// Applies and authors migrations with Prisma's own schema engine compiled to Wasm, driven through
// our driver adapter: no native engine binary is ever needed, so an install downloads nothing.
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bindMigrationAwareSqlAdapterFactory, type SqlMigrationAwareDriverAdapterFactory, type SqlQueryable } from '@prisma/driver-adapter-utils';
import type { MigrationList, SchemaEngine } from '@prisma/schema-engine-wasm';
import * as bg from '@prisma/schema-engine-wasm/schema_engine_bg';

const prismaDir = fileURLToPath(new URL('../../prisma/', import.meta.url));
export const migrationsDir = `${prismaDir}migrations`;
const schemaPath = `${prismaDir}schema.prisma`;

let loaded: Promise<typeof bg> | undefined;

/** Instantiates the Wasm module once per process. */
function loadEngine(): Promise<typeof bg> {
  loaded ??= (async () => {
    // The package exports only its JS entry points; the .wasm file sits beside them.
    const entry = createRequire(import.meta.url).resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const wasmPath = join(dirname(entry), 'schema_engine_bg.wasm');
    const { instance } = await WebAssembly.instantiate(await readFile(wasmPath), { './schema_engine_bg.js': bg });
    const exports = instance.exports as unknown as { __wbindgen_start(): void };
    bg.__wbg_set_wasm(exports);
    exports.__wbindgen_start();
    return bg;
  })();
  return loaded;
}

async function startEngine(factory: SqlMigrationAwareDriverAdapterFactory): Promise<SchemaEngine> {
  const engine = await loadEngine();
  const datamodel = await readFile(schemaPath, 'utf8');
  const log = () => {};
  return engine.SchemaEngine.new({ datamodels: [[schemaPath, datamodel]] }, log, bindMigrationAwareSqlAdapterFactory(factory));
}

async function listMigrations(): Promise<MigrationList> {
  const entries = (await readdir(migrationsDir, { withFileTypes: true }).catch(() => []))
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const migrationDirectories = await Promise.all(
    entries.map(async (path) => ({
      path,
      migrationFile: {
        path: 'migration.sql',
        content: { tag: 'ok' as const, value: await readFile(`${migrationsDir}/${path}/migration.sql`, 'utf8') },
      },
    })),
  );
  const lockContent = await readFile(`${migrationsDir}/migration_lock.toml`, 'utf8').catch(() => null);
  return {
    baseDir: migrationsDir,
    lockfile: { path: 'migration_lock.toml', content: lockContent },
    shadowDbInitScript: '',
    migrationDirectories,
  };
}

const filters = { externalTables: [], externalEnums: [] };

/**
 * Whether every migration folder is already recorded as applied. Then the engine need not start:
 * compiling its Wasm module was most of a restart's time and memory peak (bench/README.md,
 * start-up). A database still being migrated by another instance is not up to date, so that case
 * still goes through the engine and its lock. (The engine's check that applied files were not
 * edited afterwards runs only when something is pending.)
 */
async function allRecorded(adapter: SqlQueryable, list: MigrationList): Promise<boolean> {
  try {
    const { rows } = await adapter.queryRaw({
      sql: 'SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
      args: [],
      argTypes: [],
    });
    const recorded = new Set(rows.map(([name]) => name));
    return list.migrationDirectories.every(({ path }) => recorded.has(path));
  } catch {
    return false; // no history table yet: a new database
  }
}

/**
 * Applies pending migrations; returns the names applied (empty when up to date).
 *
 * The engine takes PostgreSQL's migration advisory lock on a session of its own and never ends
 * that session, so the lock outlived migrate() until the pool dropped the idle connection, and
 * instances started together waited 10 to 25 s for each other. With `releaseConnections` every
 * connection the engine opened is ended when it is done, which releases the lock as its session
 * closes. (Not for the embedded database: its adapter is the app's own PGlite.)
 */
export async function migrate(factory: SqlMigrationAwareDriverAdapterFactory, { releaseConnections = false } = {}): Promise<string[]> {
  const opened: { dispose(): Promise<void> }[] = [];
  const tracked: SqlMigrationAwareDriverAdapterFactory = Object.assign(Object.create(factory) as SqlMigrationAwareDriverAdapterFactory, {
    connect: async () => {
      const adapter = await factory.connect();
      opened.push(adapter);
      return adapter;
    },
  });
  const migrationsList = await listMigrations();
  if (await allRecorded(await (releaseConnections ? tracked : factory).connect(), migrationsList)) {
    await Promise.all(opened.map((adapter) => adapter.dispose().catch(() => undefined)));
    return [];
  }
  const engine = await startEngine(releaseConnections ? tracked : factory);
  try {
    const { appliedMigrationNames } = await engine.applyMigrations({ migrationsList, filters });
    return appliedMigrationNames;
  } finally {
    engine.free();
    await Promise.all(opened.map((adapter) => adapter.dispose().catch(() => undefined)));
  }
}

/** Whether migrations exist that the database has not recorded (asked on one connection, ended at once). */
export async function migrationsPending(factory: SqlMigrationAwareDriverAdapterFactory): Promise<boolean> {
  const adapter = await factory.connect();
  return !(await allRecorded(adapter, await listMigrations()).finally(() => adapter.dispose()));
}

/** SQL that takes the migration history to the current schema.prisma (empty when in sync). */
export async function diffSchema(shadowFactory: SqlMigrationAwareDriverAdapterFactory): Promise<string> {
  const engine = await startEngine(shadowFactory);
  try {
    const datamodel = await readFile(schemaPath, 'utf8');
    const result = await engine.diff({
      from: { tag: 'migrations', ...(await listMigrations()) },
      to: { tag: 'schemaDatamodel', files: [{ path: schemaPath, content: datamodel }] },
      script: true,
      exitCode: null,
      filters,
    });
    // The engine emits CREATE EXTENSION pg_trgm on every diff (it does not see the extension the
    // init migration created); without it a schema that matches the migrations diffs to nothing.
    return (result.stdout ?? '').replace(/-- CreateExtension\nCREATE EXTENSION IF NOT EXISTS "pg_trgm";\n*/, '');
  } finally {
    engine.free();
  }
}
