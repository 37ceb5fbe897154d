// Latency of GET /api/v1/issues on PGlite and PostgreSQL side by side, through the real app
// in-process (no network), for typical filters. For each filter it also times the two halves of a
// page separately over GraphQL (the rows alone, the total alone), to show what the count costs.
//
//   npx tsx bench/list-route.ts [rows=20000] [iterations=30]
// PostgreSQL: BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/postgres); a scratch
// database is created and dropped. Prints a Markdown table; neither bench page keeps its figures
// now (the last ones are in the history of bench/README.md, before efd5c6a).
import { createApp } from '../src/server/app.js';
import { testConfig } from '../src/config.js';
import type { Database } from '../src/db/client.js';
import type { Prisma } from '../src/generated/prisma/client.js';
import { createLogger } from '../src/log.js';
import { createIssuePubSub } from '../src/pubsub.js';
import { makeIssue } from '../test/helpers/issues.js';
import { median, onBothDatabases, time } from './scratch-databases.js';

const rows = Number(process.argv[2] ?? 20_000);
const iterations = Number(process.argv[3] ?? 30);

const severities = ['critical', 'high', 'medium', 'low', 'info'] as const;
const types = ['vulnerability', 'incident', 'news', 'regulatory', 'research'] as const;
const labels = ['security', 'research', 'industry', 'policy', 'privacy', 'safety'];
const vendors = ['openai', 'anthropic', 'google', 'meta', 'microsoft', 'langchain', 'huggingface', 'nvidia', 'mistral', 'cohere'];
const packages = ['langchain', 'llama-index', 'transformers', 'vllm', 'gradio', 'mlflow', 'ray', 'torch', 'openai', 'chromadb'];
const words = [
  'prompt',
  'injection',
  'jailbreak',
  'model',
  'agent',
  'plugin',
  'leak',
  'poisoning',
  'rag',
  'exfiltration',
  'supply',
  'chain',
  'remote',
  'code',
  'execution',
];

/** Deterministic pseudo-random numbers, so both databases hold the same rows. */
function random(seed: number) {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

function dataset(): Prisma.IssueCreateManyInput[] {
  const r = random(42);
  const pick = <T>(list: readonly T[]) => list[Math.floor(r() * list.length)]!;
  const start = Date.UTC(2023, 0, 1);
  return Array.from({ length: rows }, (_, i) => {
    const title = `${pick(words)} ${pick(words)} in ${pick(packages)} ${i}`;
    const vendor = pick(vendors);
    const pkg = pick(packages);
    return makeIssue({
      naturalKey: `bench:${i}`,
      title,
      summary: `${pick(words)} ${pick(words)} ${pick(words)} affecting ${vendor}.`,
      severity: pick(severities),
      issueType: pick(types),
      labels: [pick(labels), ...(r() < 0.3 ? [pick(labels)] : [])],
      affectedVendors: [vendor],
      vendorKeys: [vendor],
      affectedPackages: [`${pkg}@<1.0.0 (fixed: 1.0.0)`],
      packageNames: [pkg],
      classifierConfidence: Math.round(r() * 100) / 100,
      publishedAt: new Date(start + Math.floor(r() * 730 * 86_400_000)),
      relevant: r() < 0.9,
      searchText: `${title}\n${pick(words)} ${pick(words)}`.toLowerCase(),
    });
  });
}

const filters: [string, string][] = [
  ['no filter', ''],
  ['severity (20%)', 'severity=medium'],
  ['label, any of two', 'label=privacy&label=safety'],
  ['vendor', 'vendor=openai'],
  ['package', 'package=langchain'],
  ['search', 'search=injection'],
  ['since (last 30 days)', 'since=2024-12-01'],
  ['confidenceMin 0.9', 'confidenceMin=0.9'],
  ['offset 5000', 'offset=5000'],
];

async function measure(db: Database) {
  const data = dataset();
  for (let i = 0; i < data.length; i += 1000) await db.prisma.issue.createMany({ data: data.slice(i, i + 1000) });
  await db.prisma.$executeRawUnsafe('ANALYZE "Issue"');
  const { pubsub, close } = createIssuePubSub();
  const app = createApp({ config: testConfig(), db, log: createLogger('silent'), pubsub });
  const get = (path: string) => Promise.resolve(app.fetch(new Request(`http://localhost${path}`))).then((r) => r.text());
  const gql = (query: string, variables: Record<string, unknown>) =>
    Promise.resolve(
      app.fetch(
        new Request('http://localhost/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query, variables }),
        }),
      ),
    ).then((r) => r.text());
  const results = new Map<string, { page: number; rows: number; total: number }>();
  const listQuery = (selection: string) => `query($search: String, $label: [String!], $severity: Severity, $vendor: String, $package: String,
    $since: String, $confidenceMin: Float, $offset: Int) { issues(search: $search, label: $label, severity: $severity, vendor: $vendor,
    package: $package, since: $since, confidenceMin: $confidenceMin, offset: $offset) { ${selection} } }`;
  for (const [name, query] of filters) {
    const params = new URLSearchParams(query);
    const variables: Record<string, unknown> = Object.fromEntries(params);
    if (params.has('label')) variables.label = params.getAll('label');
    if (params.has('offset')) variables.offset = Number(params.get('offset'));
    if (params.has('confidenceMin')) variables.confidenceMin = Number(params.get('confidenceMin'));
    results.set(name, {
      page: median(await time(iterations, () => get(`/api/v1/issues${query ? `?${query}` : ''}`))),
      rows: median(await time(iterations, () => gql(listQuery('data { id title severity publishedAt cvssScore labels }'), variables))),
      total: median(await time(iterations, () => gql(listQuery('meta { total }'), variables))),
    });
  }
  await close();
  return results;
}

async function main() {
  const { onPGlite, onPostgres } = await onBothDatabases(measure);

  const ms = (v: number) => v.toFixed(1);
  console.log(`GET /api/v1/issues, ${rows} rows (90% served), median of ${iterations} in-process requests, milliseconds\n`);
  console.log(
    '| filter | PostgreSQL page | PostgreSQL rows only | PostgreSQL total only | PGlite page | PGlite rows only | PGlite total only | PGlite / PostgreSQL (page) |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [filter] of filters) {
    const p = onPostgres.get(filter)!;
    const l = onPGlite.get(filter)!;
    console.log(
      `| ${filter} | ${ms(p.page)} | ${ms(p.rows)} | ${ms(p.total)} | ${ms(l.page)} | ${ms(l.rows)} | ${ms(l.total)} | ${(l.page / p.page).toFixed(2)} |`,
    );
  }
}

await main();
