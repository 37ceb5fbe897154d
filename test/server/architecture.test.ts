// The import rules of .dependency-cruiser.cjs (README, "Architecture"), run by the maintained tool
// itself: no circular imports, and no import from a lower layer back up.
import { execFile } from 'node:child_process';
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
