// The order test files start in. The two workers each take the next file as they finish one, so
// the run ends soonest when the longest files start first and the short ones fill in after: a long
// file started last keeps one worker busy while the other has nothing left to do. Vitest orders by
// the durations of the previous run, which a clean clone (CI) does not have, and which for the
// PostgreSQL pass are the embedded pass's (where the files that need a server are skipped). So
// the files known to take longest come first, in this order, in each pass; the rest follow in
// vitest's own order. A file missing from these lists only starts later than it could.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Longest first, on the embedded database without Redis (the default pass). */
export const longestOnEmbedded = [
  'test/server/process.test.ts',
  'test/server/resume-after-kill.test.ts',
  'test/domain/stack-contention.test.ts',
  'test/server/startup-seed.test.ts',
  'test/edge/fuzz.test.ts',
  'test/server/default-sources.test.ts',
  'test/server/cli-sync.test.ts',
  'test/server/cli-messages.test.ts',
  'test/base/schema-and-config.test.ts',
  'test/server/cli-ingest.test.ts',
  'test/domain/webhooks-crash.test.ts',
  'test/domain/outage.test.ts',
  'test/server/live-acceptance.test.ts',
  'test/domain/registry-lookup.test.ts',
  'test/domain/sources.test.ts',
  'test/edge/webhooks-api.test.ts',
  'test/base/pglite-checkpoints.test.ts',
  'test/edge/browser.test.ts',
];

/** Longest first, on PostgreSQL and Redis (the files of test/helpers/passes.ts do not run there). */
export const longestOnServers = [
  'test/edge/fuzz.test.ts',
  'test/server/scale-out.test.ts',
  'test/domain/redis-outage.test.ts',
  'test/server/cli-messages.test.ts',
  'test/server/slow-sources.test.ts',
  'test/server/cli-ingest.test.ts',
  'test/domain/webhooks-crash.test.ts',
  'test/domain/stack-contention.test.ts',
  'test/base/migration-lock.test.ts',
  'test/server/cli-sync.test.ts',
  'test/edge/webhooks-api.test.ts',
  'test/domain/registry-lookup.test.ts',
  'test/domain/hanging-postgres.test.ts',
  'test/domain/sources.test.ts',
  'test/edge/foundation.test.ts',
  'test/domain/outage.test.ts',
  'test/edge/export-failure.test.ts',
  'test/domain/pool-timeout.test.ts',
  'test/edge/browser.test.ts',
];

export function longestFirstSequencer(longest: string[]) {
  return class LongestFirst extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      const rank = (file: TestSpecification) => {
        const at = longest.indexOf(relative(file.project.config.root, file.moduleId));
        return at < 0 ? longest.length : at;
      };
      // Array.prototype.sort is stable: files outside the list keep vitest's order among themselves.
      return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
    }
  };
}
