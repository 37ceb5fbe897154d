// The test files that run once, in the default pass (embedded database, no Redis), and not again
// when TEST_DATABASE_URL or TEST_REDIS_URL is set (vitest.config.ts): none of them opens the
// database the run is configured with, reads either variable, or starts a process that would.
// What they open is always embedded (startup-seed, the PGlite template and checkpoint tests) or
// nothing at all. test/server/passes.test.ts checks each against that; a file that builds the app on the
// test database must not be listed, or the PostgreSQL pass would silently lose it.
export const databaseIndependent = [
  'test/server/architecture.test.ts',
  'test/domain/classifier-eval.test.ts',
  'test/server/default-sources.test.ts',
  'test/server/doc-names.test.ts',
  'test/server/fresh-clone.test.ts',
  'test/base/idle-collection.test.ts',
  'test/server/live-acceptance.test.ts',
  'test/domain/name-list.test.ts',
  'test/server/passes.test.ts',
  'test/base/pglite-checkpoints.test.ts',
  'test/base/pglite-template.test.ts',
  'test/server/process.test.ts',
  'test/server/resume-after-kill.test.ts',
  'test/domain/scan-matching.test.ts',
  'test/base/schema-and-config.test.ts',
  'test/server/startup-seed.test.ts',
  'test/domain/webhooks-retry.test.ts',
];
