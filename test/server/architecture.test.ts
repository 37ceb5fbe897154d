// The import rules of .dependency-cruiser.cjs (docs/architecture.md, "Architecture"), run by the
// maintained tool itself: no circular imports, and no import from a lower layer back up. And the one way to the
// database (docs/architecture.md): only db/ and each aggregate's module reach it.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

describe('architecture', () => {
  it('src/ has no import cycles and no uphill imports between layers', async () => {
    const args = ['node_modules/dependency-cruiser/bin/dependency-cruiser.mjs', 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'];
    const result = await run(process.execPath, args)
      .then(({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }))
      .catch((err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, output: err.stdout + err.stderr }));
    // The tool's own report names each cycle and uphill import when there is one.
    expect(result.output).toContain('no dependency violations found');
    expect(result.code).toBe(0);
  }, 120_000);
});

/** Each aggregate's module: the one place its SQL lives (docs/architecture.md says the style of each). */
const aggregateModules = {
  issues: ['src/issues/reads.ts', 'src/ingest/store.ts', 'src/ingest/changes.ts', 'src/ingest/dormant.ts'],
  sources: ['src/sources/store.ts', 'src/sources/lease.ts'],
  digests: ['src/digest/store.ts'],
  keys: ['src/keys/api-keys.ts'],
  registry: ['src/registry/profiles.ts'],
  stacks: ['src/stacks/store.ts'],
  webhooks: ['src/webhooks/store.ts', 'src/webhooks/outbox.ts'],
};

const models = [...readFileSync('prisma/schema.prisma', 'utf8').matchAll(/^model (\w+)/gm)].map(([, name]) => name![0]!.toLowerCase() + name!.slice(1));
const operations =
  'findMany|findFirst|findUnique|findFirstOrThrow|findUniqueOrThrow|create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert|delete|deleteMany|count|aggregate|groupBy';

/** The ways a file can reach the database, each with what it looks like in the source. */
const reaches: Record<string, RegExp> = {
  "Prisma's raw queries": /\$(queryRaw|executeRaw|queryRawUnsafe|executeRawUnsafe|transaction)\b/,
  "Prisma's model API": new RegExp(`\\.(${models.join('|')})\\.(${operations})\\(`),
  'a driver read or bulk client': /\bread(<[^>()]*>)?\(\s*Prisma\.|\bdb\.read(<[^>()]*>)?\(|\b(tx|client|bulk)\.(query|execute)(<[^>()]*>)?\(/,
  'SQL naming a table': /\b(FROM|INTO|UPDATE|JOIN)\s+"[A-Z]\w*"/,
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === 'src/generated' ? [] : sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('one way to the database', () => {
  const files = sourceFiles('src');
  const waysOf = (file: string) =>
    Object.entries(reaches)
      .filter(([, pattern]) => pattern.test(readFileSync(file, 'utf8')))
      .map(([way]) => way);

  it('only db/ and the aggregate modules reach it', () => {
    const allowed = new Set(Object.values(aggregateModules).flat());
    const outside = files.filter((file) => !file.startsWith('src/db/') && !allowed.has(file)).flatMap((file) => waysOf(file).map((way) => `${file}: ${way}`));
    expect(outside).toEqual([]);
  });

  it('the patterns see each way (so the check above can fail)', () => {
    expect(waysOf('src/issues/reads.ts')).toEqual(expect.arrayContaining(['a driver read or bulk client', 'SQL naming a table']));
    expect(waysOf('src/digest/store.ts')).toEqual(expect.arrayContaining(["Prisma's raw queries", "Prisma's model API"]));
  });
});
