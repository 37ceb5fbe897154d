// The fuzz test (test/edge/fuzz.test.ts) at bench scale: at least 20,000 generated requests over every
// surface, the shapes of issue 27 included (forged cursors and TAXII tokens, deep SBOMs, lone
// surrogates, HEAD on streaming routes), with its invariants: never a 5xx, never a leak, the
// envelope for every error. CI runs the same file at about 12,000.
//
//   npx tsx bench/fuzz.ts [requests=20000]      (TEST_DATABASE_URL=... for PostgreSQL)
// Results replace the "Fuzzing" section of bench/README.md.
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { writeReadmeSection } from './readme.js';

const requests = Number(process.argv[2] ?? 20_000);
const database = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const load = loadavg()[0]!.toFixed(1);
const run = spawnSync('npx', ['vitest', 'run', 'test/edge/fuzz.test.ts'], {
  env: { ...process.env, FUZZ_REQUESTS: String(requests), NO_COLOR: '1', FORCE_COLOR: '0' },
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
});
const output = `${run.stdout}\n${run.stderr}`;
const summary = /fuzz: (\d+) generated requests in ([\d.]+) s \((\d+)\/s\): (.*)/.exec(output);
const tests = /Tests\s+(.*)\(\d+\)/.exec(output)?.[1]?.trim();
if (!summary) {
  console.error(output.slice(-4000));
  process.exit(1);
}
const [, sent, seconds, rate, breakdown] = summary;
const passed = run.status === 0;
const surfaces = breakdown!.split(/, (?=[^,]+ \d+ \()/).map((part) => {
  const [, surface, count, each] = /^(.*) (\d+) \(([\d.]+) ms each\)$/.exec(part) ?? [];
  return { surface: surface!, count: Number(count), each: Number(each) };
});
// The REST operations share one row: their range is the figure, not each operation's.
const rest = surfaces.filter((s) => s.surface.startsWith('REST '));
const restEach = rest.map((s) => s.each);
const restCounts = [...new Set(rest.map((s) => s.count))];
const rows = [
  ...(rest.length ? [`| REST, ${rest.length} operations | ${restCounts.join(' or ')} each | ${Math.min(...restEach)} to ${Math.max(...restEach)} |`] : []),
  ...surfaces.filter((s) => !s.surface.startsWith('REST ')).map((s) => `| ${s.surface} | ${s.count} | ${s.each} |`),
];
const section = `<!-- fuzz:begin -->
## Fuzzing (\`npx tsx bench/fuzz.ts ${requests}\`, ${database})

Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC (2 shared cores, load average ${load} at the start).
**${sent} generated requests in ${seconds} s (${rate}/s): ${passed ? '0 5xx, 0 leaks, every error the envelope' : 'FAILED (see the run)'}** (vitest: ${tests}).

| surface | requests | ms each |
|---|---|---|
${rows.join('\n')}
<!-- fuzz:end -->`;
console.log(section);
if (passed) await writeReadmeSection('fuzz', section);
else {
  console.error(output.slice(-4000));
  process.exit(1);
}
