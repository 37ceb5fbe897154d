// The files that run only in the default pass (test/helpers/passes.ts) must really not depend on
// the database or Redis a run is configured with: neither they nor the helpers they import read
// either variable or open the test database (helpers/database.ts, which the app and CLI helpers
// build on).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { databaseIndependent } from '../helpers/passes.js';
import { longestOnEmbedded, longestOnServers } from '../helpers/sequencer.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The file and every test helper it imports, directly or through another helper. */
function withHelpers(file: string, seen = new Set<string>()): Set<string> {
  seen.add(file);
  for (const [, specifier] of readFileSync(join(root, file), 'utf8').matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)) {
    const imported = relative(root, join(root, dirname(file), `${specifier}.ts`));
    if (imported.startsWith('test/') && !seen.has(imported)) withHelpers(imported, seen);
  }
  return seen;
}

/** Why a file's outcome may depend on the configured database or Redis (none: it does not). */
function dependsOnConfiguredServices(file: string): string[] {
  return [...withHelpers(file)].flatMap((source) => {
    if (source === 'test/helpers/database.ts') return [`imports ${source}`];
    const code = readFileSync(join(root, source), 'utf8')
      .split('\n')
      .filter((line) => !line.trimStart().startsWith('//'));
    return code.filter((line) => /\bTEST_(DATABASE|REDIS)_URL\b/.test(line)).map((line) => `${source}: ${line.trim()}`);
  });
}

it.each(databaseIndependent)('%s depends on neither the test database nor Redis', (file) => {
  expect(existsSync(join(root, file))).toBe(true);
  expect(dependsOnConfiguredServices(file)).toEqual([]);
});

it('the check sees files that do', () => {
  expect(dependsOnConfiguredServices('test/edge/foundation.test.ts')).toContain('imports test/helpers/database.ts');
  expect(dependsOnConfiguredServices('test/domain/redis-outage.test.ts')[0]).toMatch(/^test\/domain\/redis-outage\.test\.ts: /);
});

it('the longest-first lists of test/helpers/sequencer.ts name files that exist and run in their pass', () => {
  for (const file of [...longestOnEmbedded, ...longestOnServers]) expect(existsSync(join(root, file)), file).toBe(true);
  expect(longestOnServers.filter((file) => databaseIndependent.includes(file))).toEqual([]);
});
