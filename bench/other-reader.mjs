// "Everyone else" in the loop benches (export-loop, stack-loop): one uncached list read after
// another until a line arrives on stdin, then the latencies and errors as JSON on stdout.
//   node bench/other-reader.mjs <base URL> [rotate]
// `rotate`: each read from another X-Forwarded-For address, so the reader never meets the rate limit.
const [base, rotate] = process.argv.slice(2);
const latencies = [];
let stop = false;
let errors = 0;
let n = 0;
process.stdin.on('data', () => (stop = true));
while (!stop) {
  const started = performance.now();
  n++;
  const headers = { 'cache-control': 'no-cache' };
  if (rotate) headers['x-forwarded-for'] = `10.2.${(n >> 8) & 255}.${n & 255}`;
  try {
    const res = await fetch(`${base}/api/v1/issues?limit=20`, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) errors++;
    else latencies.push(performance.now() - started);
  } catch {
    errors++;
  }
}
process.stdout.write(JSON.stringify({ latencies, errors }));
