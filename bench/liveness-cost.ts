// What src/db/liveness.ts costs a statement on a healthy PostgreSQL: `SELECT 1` through a pg.Pool
// with and without the watch, one at a time and 10 at once, the two pools in alternating rounds;
// this process's CPU per statement (the driver's and the watch's work; the database's is not in it)
// and the wall time per statement.
//
//   npx tsx bench/liveness-cost.ts [--statements 20000] [--rounds 4]
import { parseArgs } from 'node:util';
import pg from 'pg';
import { DatabaseLiveness } from '../src/db/liveness.js';
import { postgresUrl } from './scratch-databases.js';

const { values } = parseArgs({ options: { statements: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '4' } } });
const statements = Number(values.statements);
const rounds = Number(values.rounds);

const plain = new pg.Pool({ connectionString: postgresUrl, max: 10 });
const watched = new pg.Pool({ connectionString: postgresUrl, max: 10 });
const liveness = new DatabaseLiveness({ connectionString: postgresUrl });
liveness.watch(watched);

/** CPU µs and wall µs per statement, `concurrency` statements in flight at a time. */
async function run(pool: pg.Pool, concurrency: number): Promise<{ cpu: number; wall: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let left = statements;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) await pool.query('SELECT 1');
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  return { cpu: (cpu.user + cpu.system) / statements, wall: ((performance.now() - t0) * 1000) / statements };
}

const results: Record<string, { cpu: number[]; wall: number[] }> = {};
for (const concurrency of [1, 10]) {
  // Warm both pools (connections open, code optimised) before measuring.
  await run(plain, concurrency);
  await run(watched, concurrency);
  for (let round = 0; round < rounds; round++) {
    for (const [name, pool] of round % 2
      ? ([
          ['watched', watched],
          ['plain', plain],
        ] as const)
      : ([
          ['plain', plain],
          ['watched', watched],
        ] as const)) {
      const key = `${name}, ${concurrency} at once`;
      const r = await run(pool, concurrency);
      results[key] ??= { cpu: [], wall: [] };
      results[key].cpu.push(r.cpu);
      results[key].wall.push(r.wall);
    }
  }
}
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
console.log('| pool | CPU µs per statement (rounds) | wall µs per statement |\n|---|---|---|');
for (const [key, r] of Object.entries(results)) {
  console.log(`| ${key} | ${median(r.cpu).toFixed(1)} (${r.cpu.map((v) => v.toFixed(1)).join(', ')}) | ${median(r.wall).toFixed(0)} |`);
}
liveness.close();
await plain.end();
await watched.end();
