// Benchmarks that write their own results into bench/README.md or bench/components.md, each between
// its `<!-- name:begin -->` and `<!-- name:end -->` markers, in whichever page holds them (appended to
// README.md when neither does). README.md keeps the service-wide figures to one page.
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';

export async function writeReadmeSection(name: string, section: string): Promise<void> {
  const begin = `<!-- ${name}:begin -->`;
  const end = `<!-- ${name}:end -->`;
  for (const page of ['./README.md', './components.md']) {
    const path = new URL(page, import.meta.url);
    const text = await readFile(path, 'utf8').catch(() => '');
    const start = text.indexOf(begin);
    const stop = text.indexOf(end);
    if (start >= 0 && stop > start) return writeFile(path, text.slice(0, start) + section + text.slice(stop + end.length));
  }
  const readmePath = new URL('./README.md', import.meta.url);
  const readme = await readFile(readmePath, 'utf8').catch(() => '# Benchmarks\n');
  await writeFile(readmePath, `${readme.trimEnd()}\n\n${section}\n`);
}

/** The commit a bench measured, for its "Measured" line: `abc1234`, or `abc1234 + changes` when src/ differs from it. */
export function measuredCommit(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: new URL('..', import.meta.url), encoding: 'utf8' }).trim();
  return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--', 'src', 'bin', 'prisma') ? ' + changes' : ''}`;
}
