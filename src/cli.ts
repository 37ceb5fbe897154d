// Operator commands: `npm run cli -- <command>`; migrate and diff also have npm scripts.
import { mkdir, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ConfigError, parseConfig, readEnvironment, type Config } from './config.js';
import { openDatabase } from './db/client.js';
import { openConfiguredDatabase } from './db/open.js';
import { diffSchema, migrate, migrationsDir } from './db/migrator.js';
import { issueKey, listKeys, revokeKey } from './keys/api-keys.js';
import { createLogger } from './log.js';

type Command = (args: string[], config: Config) => Promise<void>;

const commands: Record<string, { help: string; run: Command }> = {
  migrate: {
    help: 'apply pending migrations to the configured database',
    run: async (_args, config) => {
      const db = await openConfiguredDatabase({ ...config, migrateOnStart: false }, createLogger('silent'));
      try {
        const applied = await migrate(db.adapterFactory);
        console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
      } finally {
        await db.close();
      }
    },
  },
  diff: {
    help: 'diff <name>: write a new migration that takes the history to prisma/schema.prisma',
    run: async (args) => {
      const name = args[0];
      if (!name || !/^[a-z0-9_]+$/.test(name)) throw new Error('usage: npm run db:diff -- <name> (lowercase, digits, _)');
      const scratch = openDatabase({ kind: 'pglite' });
      try {
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
      } finally {
        await scratch.close();
      }
    },
  },
  keys: {
    help: 'keys create --name <name> | keys list | keys revoke <id>: bearer keys for webhooks',
    run: async (args, config) => {
      const [action, ...rest] = args;
      const { values, positionals } = parseArgs({ args: rest, options: { name: { type: 'string' } }, allowPositionals: true });
      const db = await openConfiguredDatabase(config, createLogger('silent'));
      try {
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
      } finally {
        await db.close();
      }
    },
  },
};

async function main() {
  // Options belong to each command, so everything after the command name is handed over as is.
  const [name, ...rest] = process.argv.slice(2);
  const command = name ? commands[name] : undefined;
  if (!command) {
    console.log('usage: npm run cli -- <command>\n');
    for (const [n, c] of Object.entries(commands)) console.log(`  ${n.padEnd(10)} ${c.help}`);
    process.exit(name ? 1 : 0);
  }
  let config: Config;
  try {
    config = parseConfig(readEnvironment());
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    for (const problem of err.problems) console.error(`secwire: invalid configuration: ${problem}`);
    process.exit(1);
  }
  try {
    await command.run(rest, config);
  } catch (err) {
    console.error(`secwire ${name}: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}

await main();
