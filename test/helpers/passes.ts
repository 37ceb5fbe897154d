// The test files that run once, in the default pass (embedded database, no Redis), and not again
// when TEST_DATABASE_URL or TEST_REDIS_URL is set (vitest.config.ts): none of them opens the
// database the run is configured with, reads either variable, or starts a process that would.
// What they open is always embedded (startup-seed, the PGlite template and checkpoint tests) or
// nothing at all. test/passes.test.ts checks each against that; a file that builds the app on the
// test database must not be listed, or the PostgreSQL pass would silently lose it.
export const databaseIndependent = [
  'test/architecture.test.ts',
  'test/classifier-eval.test.ts',
  'test/default-sources.test.ts',
  'test/fresh-clone.test.ts',
  'test/idle-collection.test.ts',
  'test/live-acceptance.test.ts',
  'test/name-list.test.ts',
  'test/passes.test.ts',
  'test/pglite-checkpoints.test.ts',
  'test/pglite-template.test.ts',
  'test/process.test.ts',
  'test/scan-matching.test.ts',
  'test/schema-and-config.test.ts',
  'test/startup-seed.test.ts',
  'test/webhooks-retry.test.ts',
];
