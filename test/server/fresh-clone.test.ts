// A fresh clone is green on its own: the data the tests and benches read lives in the repository,
// never in a folder beside it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const sources = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.[cm]?[jt]s$/.test(e.name))
    .map((e) => join(e.parentPath, e.name));

describe('fresh clone', () => {
  it('vendors the OASIS STIX schemas with their licence notice', () => {
    const dir = join(root, 'data', 'stix2.1-schemas');
    for (const file of ['LICENSE.upstream.txt', 'NOTICE.txt', 'schemas/common/bundle.json', 'schemas/sdos/vulnerability.json']) {
      expect(existsSync(join(dir, file)), file).toBe(true);
    }
  });

  it('no test or bench reads a shared folder outside the repository', () => {
    const outside = /\.\.\/shared|\/work\/shared|['"]shared['"]\s*,\s*['"]data['"]/;
    const offenders = [...sources('test'), ...sources('bench')]
      .filter((file) => !file.endsWith('fresh-clone.test.ts'))
      .filter((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .some((line) => !line.trimStart().startsWith('//') && outside.test(line)),
      );
    expect(offenders).toEqual([]);
  });
});
