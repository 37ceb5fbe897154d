// Benchmarks that write their own results into bench/README.md, each between its
// `<!-- name:begin -->` and `<!-- name:end -->` markers (appended when the markers are missing).
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';

export async function writeReadmeSection(name: string, section: string): Promise<void> {
  const readmePath = new URL('./README.md', import.meta.url);
  const readme = await readFile(readmePath, 'utf8').catch(() => '# Benchmarks\n');
  const begin = `<!-- ${name}:begin -->`;
  const end = `<!-- ${name}:end -->`;
  const start = readme.indexOf(begin);
  const stop = readme.indexOf(end);
  const next = start >= 0 && stop > start ? readme.slice(0, start) + section + readme.slice(stop + end.length) : `${readme.trimEnd()}\n\n${section}\n`;
  await writeFile(readmePath, next);
}

/** The commit a bench measured, for its "Measured" line: `abc1234`, or `abc1234 + changes` when src/ differs from it. */
export function measuredCommit(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: new URL('..', import.meta.url), encoding: 'utf8' }).trim();
  return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--', 'src', 'bin', 'prisma') ? ' + changes' : ''}`;
}
