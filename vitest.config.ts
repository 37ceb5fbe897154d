import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';
import { databaseIndependent } from './test/helpers/passes.js';
import { longestFirstSequencer, longestOnEmbedded, longestOnServers } from './test/helpers/sequencer.js';

const require = createRequire(import.meta.url);
const onServers = Boolean(process.env.TEST_DATABASE_URL || process.env.TEST_REDIS_URL);

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (main) and ESM (module) without an exports map: Node loads the CJS
    // build for Pothos and Yoga, so tests must get the same one or instanceof checks fail.
    alias: { graphql: require.resolve('graphql') },
  },
  test: {
    include: ['test/**/*.test.ts'],
    // CI runs the suite twice, on the embedded database and then on PostgreSQL and Redis. Files
    // whose outcome cannot depend on either variable would only repeat the first pass, so a run
    // with one set leaves them out (test/helpers/passes.ts lists them; test/server/passes.test.ts checks).
    exclude: onServers ? databaseIndependent : [],
    // The longest files first, so the two workers finish together (test/helpers/sequencer.ts).
    sequence: { sequencer: longestFirstSequencer(onServers ? longestOnServers : longestOnEmbedded) },
    globalSetup: ['test/helpers/build-setup.ts', 'test/helpers/global-setup.ts'],
    // Each file builds its own database; two workers match the machine's two cores.
    pool: 'forks',
    maxWorkers: 2,
    // A worker runs file after file in one process rather than a new one per file: the modules
    // every file imports (the app, Prisma's client) and the relevance model trained at first use
    // are loaded once per worker, not once per file, which about halved the suite's CPU time. Each
    // file still builds its own app on its own database, and no test mocks a module, writes
    // process.env or leaves a global it patched, so what one file leaves the next is only caches.
    isolate: false,
    // No test leaves the machine: a server or CLI a test starts syncs no default source unless
    // the test names its own (the helpers say so too; this covers any other child process).
    env: { SOURCES: '[]' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
