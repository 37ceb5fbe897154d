// Operator commands (run by cli.ts): `npm run cli -- <command>`; migrate and diff also have npm scripts.
import { mkdir, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { SingleBar, Presets } from 'cli-progress';
import { loadConfigOrExit, type Config } from '../config.js';
import { openDatabase, type Database } from '../db/client.js';
import { configuredTarget, openConfiguredDatabase } from '../db/open.js';
import { diffSchema, migrate, migrationsDir } from '../db/migrator.js';
import { isCalendarDate, yesterdayUtc } from '../dates.js';
import { generateDigest } from '../digest/generate.js';
import { readRecordFiles } from '../ingest/files.js';
import { ingest } from '../ingest/ingest.js';
import { reclassify } from '../ingest/reclassify.js';
import { issueKey, listKeys, revokeKey } from '../keys/api-keys.js';
import { createLogger } from '../log.js';
import { createIssuePubSub } from '../pubsub.js';
import { syncSource, type SyncDeps } from '../sources/sync.js';
import { ingestSummary, plural, servedReport } from './cli-report.js';

type Command = (args: string[], config: Config) => Promise<void>;

function progressBar(format: string): SingleBar {
  return new SingleBar({ format: `${format} | {eta_formatted} left`, hideCursor: true }, Presets.shades_classic);
}

/** Runs `use` on the database being opened and closes it, whatever happens. */
async function withDatabase(opening: Promise<Database>, use: (db: Database) => Promise<void>): Promise<void> {
  const db = await opening;
  try {
    await use(db);
  } finally {
    await db.close();
  }
}

// A foreground pipeline run (ingest, sync, reclassify): its events stay in the database for the
// server's relay to publish, so the CLI's pub/sub is only a local one, closed with the database.
async function withPipeline(config: Config, run: (pipeline: SyncDeps) => Promise<void>): Promise<void> {
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  await withDatabase(openConfiguredDatabase(config, log), async (db) => {
    const { pubsub, close } = createIssuePubSub();
    await run({ prisma: db.prisma, pubsub, log, db }).finally(close);
  });
}

/**
 * The registry lookups (REGISTRY_LOOKUP) after an ingest or sync, or on their own: about the
 * packages of these issues, or of every unserved one. After an ingest or sync, a lookup that asked
 * nothing says nothing.
 */
async function lookUp(
  config: Config,
  pipeline: SyncDeps,
  { issueIds, quietWhenIdle = true }: { issueIds?: string[]; quietWhenIdle?: boolean } = {},
): Promise<void> {
  if (!config.registryLookup) return;
  const { lookUpRegistries } = await import('../registry/lookup.js');
  const bar = progressBar('registry lookups [{bar}] {percentage}% | {value}/{total} packages');
  const started = performance.now();
  bar.start(0, 0);
  const r = await lookUpRegistries(pipeline, config.registryLookup, {
    issueIds,
    relay: false,
    onProgress: (done, total) => (bar.setTotal(total), bar.update(done)),
  }).finally(() => bar.stop());
  if (r.asked === 0 && quietWhenIdle) return;
  console.log(
    `registry lookups: asked ${r.asked} (found ${r.found}, missing ${r.missing}, failed ${r.failed}), summaries changed ${r.changed}, ` +
      `newly served ${r.reclassified?.newlyServed ?? 0}, no longer served ${r.reclassified?.unserved ?? 0} in ${((performance.now() - started) / 1000).toFixed(2)} s`,
  );
}

/** Every command, by the name the operator types; README.md and docs/ are checked against it. */
export const commands: Record<string, { help: string; run: Command }> = {
  migrate: {
    help: 'apply pending migrations to the configured database',
    run: async (_args, config) => {
      // Opened without migrating (the embedded database would otherwise be migrated on open).
      await withDatabase(openDatabase(configuredTarget(config)), async (db) => {
        const applied = await migrate(db.adapterFactory, { releaseConnections: db.kind === 'postgres' });
        console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
      });
    },
  },
  ingest: {
    help: 'ingest <file|dir>...: ingest OSV records and native items from JSON files',
    run: async (args, config) => {
      if (args.length === 0) throw new Error('usage: npm run cli -- ingest <file|dir>...');
      const input = await readRecordFiles(args);
      for (const bad of input.unreadable) console.error(`skipped ${bad.file}: not valid JSON (${bad.message})`);
      let incomplete = input.unreadable.length > 0;
      await withPipeline(config, async (pipeline) => {
        const bar = progressBar('ingest [{bar}] {percentage}% | {value}/{total} records');
        const started = performance.now();
        bar.start(input.records.length, 0);
        const result = await ingest(pipeline, input.records, { chunkSize: 200, relay: false, onProgress: (done) => bar.update(done) }).finally(() =>
          bar.stop(),
        );
        console.log(ingestSummary(result, (performance.now() - started) / 1000, pipeline.db.kind));
        for (const r of result.rejected) console.log(`  rejected ${input.origins[r.index]}: ${r.message}`);
        incomplete ||= result.rejected.length > 0;
        await lookUp(config, pipeline, { issueIds: result.ids });
        // After the lookups, which can make an issue served.
        for (const line of await servedReport(pipeline.prisma, result.ids)) console.log(line);
      });
      // Exit status 2: the load went through, but some records or files were not ingested.
      if (incomplete) process.exit(2);
    },
  },
  sync: {
    help: 'sync [source]: one pass over the configured sources (SOURCES / SOURCES_FILE), or only the one named',
    run: async (args, config) => {
      const sources = args[0] ? config.sources.filter((s) => s.name === args[0]) : config.sources;
      if (config.sources.length === 0) throw new Error('no sources configured: set SOURCES or SOURCES_FILE');
      if (sources.length === 0) throw new Error(`no source named ${args[0]}; configured: ${config.sources.map((s) => s.name).join(', ')}`);
      let failed = false;
      let stored = false;
      await withPipeline(config, async (pipeline) => {
        for (const source of sources) {
          const bar = progressBar(`${source.name} [{bar}] {percentage}% | {value}/{total}`);
          bar.start(0, 0);
          const outcome = await syncSource(pipeline, source, {
            allowPrivate: config.sourcesAllowPrivate,
            retryMs: config.sourcesRetryMs,
            relay: false,
            // The outcome line below reports a failure: the log says nothing more of it.
            repeatedFailure: () => true,
            onProgress: (done, total) => (bar.setTotal(total), bar.update(done)),
          }).finally(() => bar.stop());
          const c = outcome.counts;
          stored ||= c.created + c.updated > 0;
          const detail =
            outcome.error ??
            `received ${c.received}, created ${c.created}, updated ${c.updated}, unchanged ${c.unchanged}, rejected ${c.rejected}, skipped ${c.skipped}${c.tooLarge ? `, over the size limit ${c.tooLarge}` : ''}`;
          console.log(`${source.name} (${source.kind}): ${outcome.status} in ${outcome.seconds.toFixed(2)} s: ${detail}`);
          failed ||= outcome.status === 'failed';
        }
        // Lookups are for what a sync stored: a sync that stored nothing (offline, say) asks nothing.
        if (stored) await lookUp(config, pipeline);
      });
      if (failed) process.exit(2);
    },
  },
  reclassify: {
    help: 'reclassify [--batch-size N]: apply the current classifier to stored issues classified by another version',
    run: async (args, config) => {
      const { values } = parseArgs({ args, options: { 'batch-size': { type: 'string' } } });
      const batchSize = Number(values['batch-size'] ?? 500);
      if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error('usage: npm run cli -- reclassify [--batch-size N] (N a positive integer)');
      await withPipeline(config, async (pipeline) => {
        const bar = progressBar('reclassify [{bar}] {percentage}% | {value}/{total} issues');
        const started = performance.now();
        bar.start(0, 0);
        const result = await reclassify(pipeline, { batchSize, relay: false, onProgress: (done, total) => (bar.setTotal(total), bar.update(done)) }).finally(
          () => bar.stop(),
        );
        const seconds = (performance.now() - started) / 1000;
        console.log(
          `${result.version}: examined ${result.examined}, updated ${result.updated}, newly served ${result.newlyServed}, ` +
            `no longer served ${result.unserved}, failed ${result.failed} in ${seconds.toFixed(2)} s on ${pipeline.db.kind}`,
        );
        if (result.failed > 0) process.exitCode = 2;
      });
    },
  },
  lookup: {
    help: 'lookup: ask PyPI and npm what the packages of unserved issues are, where no list knows them (REGISTRY_LOOKUP)',
    run: async (_args, config) => {
      if (!config.registryLookup) throw new Error('registry lookups are off (REGISTRY_LOOKUP=false)');
      await withPipeline(config, (pipeline) => lookUp(config, pipeline, { quietWhenIdle: false }));
    },
  },
  digest: {
    help: "digest [YYYY-MM-DD]: (re)generate a UTC day's digest (default yesterday) and print it",
    run: async (args, config) => {
      const date = args[0] ?? yesterdayUtc();
      if (!isCalendarDate(date)) throw new Error(`${date} is not a date: give a calendar day as YYYY-MM-DD (usage: npm run cli -- digest [YYYY-MM-DD])`);
      await withDatabase(openConfiguredDatabase(config, createLogger('warn')), async (db) => {
        const digest = await generateDigest(db.prisma, date);
        process.stdout.write(digest.content);
        console.error(`digest ${digest.date}: ${plural(digest.issueCount, 'issue')}`);
      });
    },
  },
  diff: {
    help: 'diff <name>: write a new migration that takes the history to prisma/schema.prisma',
    run: async (args) => {
      const name = args[0];
      if (!name || !/^[a-z0-9_]+$/.test(name)) throw new Error('usage: npm run db:diff -- <name> (lowercase, digits, _)');
      await withDatabase(openDatabase({ kind: 'pglite' }), async (scratch) => {
        const sql = await diffSchema(scratch.adapterFactory);
        if (!sql.trim() || /^-- This is an empty migration/.test(sql.trim())) {
          console.log('schema.prisma matches the migrations: nothing to write');
          return;
        }
        const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
        const dir = `${migrationsDir}/${stamp}_${name}`;
        await mkdir(dir, { recursive: true });
        await writeFile(`${dir}/migration.sql`, sql);
        console.log(`wrote ${dir}/migration.sql`);
      });
    },
  },
  keys: {
    help: 'keys create --name <name> | keys list | keys revoke <id>: bearer keys for webhooks',
    run: async (args, config) => {
      const [action, ...rest] = args;
      const { values, positionals } = parseArgs({ args: rest, options: { name: { type: 'string' } }, allowPositionals: true });
      await withDatabase(openConfiguredDatabase(config, createLogger('silent')), async (db) => {
        if (action === 'create') {
          if (!values.name) throw new Error('usage: keys create --name <name>');
          const issued = await issueKey(db.prisma, values.name);
          console.log(`created key ${issued.id} (${issued.name})`);
          console.log(`key: ${issued.key}`);
          console.log('Store it now: only its SHA-256 is kept, it cannot be shown again.');
        } else if (action === 'list') {
          const keys = await listKeys(db.prisma);
          if (keys.length === 0) console.log('no keys');
          for (const k of keys) {
            const used = k.lastUsedAt ? `last used ${k.lastUsedAt.toISOString()}` : 'never used';
            console.log(`${k.id}  ${k.revoked ? 'revoked' : 'active '}  ${k.createdAt.toISOString()}  ${used}  ${k.name}`);
          }
        } else if (action === 'revoke') {
          const id = positionals[0];
          if (!id) throw new Error('usage: keys revoke <id>');
          if (!(await revokeKey(db.prisma, id))) throw new Error(`no key with id ${id}`);
          console.log(`revoked key ${id}`);
        } else {
          throw new Error('usage: keys create --name <name> | keys list | keys revoke <id>');
        }
      });
    },
  },
};

/** Runs the command that `argv` (the words after `npm run cli --`) names, and ends the process. */
export async function main(argv: string[]): Promise<never> {
  // Options belong to each command, so everything after the command name is handed over as is.
  const [name, ...rest] = argv;
  const command = name ? commands[name] : undefined;
  if (!command) {
    const asked = name === undefined || name === '--help' || name === '-h' || name === 'help';
    if (!asked) console.error(`secwire: unknown command ${name}\n`);
    (asked ? console.log : console.error)('usage: npm run cli -- <command>\n');
    for (const [n, c] of Object.entries(commands)) (asked ? console.log : console.error)(`  ${n.padEnd(10)} ${c.help}`);
    process.exit(asked ? 0 : 1);
  }
  const config = loadConfigOrExit();
  try {
    await command.run(rest, config);
  } catch (err) {
    console.error(`secwire ${name}: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
  // Done: PGlite and the migration engine leave timers behind that would keep the process alive
  // for about ten seconds after the work and the database are closed.
  process.exit(0);
}
