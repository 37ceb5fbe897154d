// The scan's worst shape: one package at many versions against many issues of that package.
// Checking each version against each issue one by one grew with their product (1,000 versions
// against 2,000 issues took 57 s and starved every other request); the scan now checks each
// issue's ranges against the sorted versions at once (src/scan/version-set.ts). POST /api/v1/scan
// with 1,000 versions of one npm package against `issues` issues of it, on PGlite and PostgreSQL,
// through the real app in-process; the target is under 2 s at 5,000 issues.
//
//   npx tsx bench/scan-versions.ts [issues=5000] [iterations=5]
// Writes its section of bench/components.md.
import { cpus, loadavg } from 'node:os';
import { createApp } from '../src/server/app.js';
import { testConfig } from '../src/config.js';
import type { Database } from '../src/db/client.js';
import { createLogger } from '../src/log.js';
import { createIssuePubSub } from '../src/pubsub.js';
import { writeReadmeSection } from './readme.js';
import { median, onBothDatabases, time } from './scratch-databases.js';

const issues = Number(process.argv[2] ?? 5000);
const iterations = Number(process.argv[3] ?? 5);

// Issue g affects hot-pkg from 1.<g % 500>.0 up to (not including) 1.<g % 500 + 1>.0; every
// seventh issue also lists two versions and has a SEMVER range with a last_affected event.
const insertSql = `
INSERT INTO "Issue" (id, title, "sourceUrl", "publishedAt", severity, "issueType", "classifierModel", "classifierPromptVersion",
  "attackSophistication", "llmSpecific", "classifierConfidence", "naturalKey", identifiers, "contentHash", relevant, "searchText",
  "packageNames", "vendorKeys", source, "updatedAt")
SELECT md5('hot:' || g)::uuid, 'hot-pkg issue ' || g, 'https://example.org/' || g,
  timestamptz '2024-01-01 00:00:00+00' + g * interval '1 minute',
  (ARRAY['critical','high','medium','low','info'])[1 + g % 5]::"Severity", 'vulnerability', 'bench', 'v1', 'moderate', false, 1,
  'hot:' || g, ARRAY['hot:' || g], md5('c' || g), true, 'hot-pkg issue ' || g,
  ARRAY['hot-pkg'], ARRAY[]::text[],
  jsonb_build_object('id', 'GHSA-hot-' || g, 'affected', jsonb_build_array(jsonb_build_object(
    'package', jsonb_build_object('ecosystem', 'npm', 'name', 'hot-pkg'),
    'versions', CASE WHEN g % 7 = 0 THEN jsonb_build_array('0.9.' || g % 50, '0.8.0') ELSE '[]'::jsonb END,
    'ranges', jsonb_build_array(
      jsonb_build_object('type', 'ECOSYSTEM', 'events', jsonb_build_array(
        jsonb_build_object('introduced', '1.' || (g % 500) || '.0'), jsonb_build_object('fixed', '1.' || (g % 500 + 1) || '.0'))),
      jsonb_build_object('type', 'SEMVER', 'events', CASE WHEN g % 7 = 0
        THEN jsonb_build_array(jsonb_build_object('introduced', '3.0.0'), jsonb_build_object('last_affected', '3.' || g % 20 || '.0'))
        ELSE '[]'::jsonb END))))),
  now()
FROM generate_series(1, ${issues}) AS g`;

/** 1,000 entries: 1.0.0, 1.0.1, 1.1.0, 1.1.1, ... 1.499.1. */
const packages = Array.from({ length: 1000 }, (_, i) => `hot-pkg@1.${Math.floor(i / 2)}.${i % 2}`);

async function measure(db: Database): Promise<{ ms: number; max: number; matches: number }> {
  await db.prisma.$executeRawUnsafe(insertSql);
  const { pubsub, close } = createIssuePubSub();
  const app = createApp({ config: testConfig(), db, log: createLogger('error'), pubsub });
  let matches = 0;
  const post = async () => {
    const res = await app.fetch(
      new Request('http://localhost/api/v1/scan', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ packages }) }),
    );
    if (res.status !== 200) throw new Error(`scan answered ${res.status}: ${await res.text()}`);
    matches = ((await res.json()) as { meta: { total: number } }).meta.total;
  };
  const samples = await time(iterations, post);
  await close();
  return { ms: median(samples), max: samples[samples.length - 1]!, matches };
}

const loadStart = loadavg()[0]!.toFixed(1);
const { onPGlite, onPostgres } = await onBothDatabases(measure);
if (onPGlite.matches !== onPostgres.matches) throw new Error(`PGlite found ${onPGlite.matches} matches, PostgreSQL ${onPostgres.matches}`);
const at = new Date().toISOString().slice(0, 16).replace('T', ' ');
const section = `<!-- scan-versions:begin -->
## Scan: one package at 1,000 versions (\`npx tsx bench/scan-versions.ts ${issues} ${iterations}\`)

Measured ${at} UTC on this machine (${cpus().length} shared cores, load average ${loadStart} at the start, ${loadavg()[0]!.toFixed(1)} at the end).
${issues.toLocaleString('en')} issues of one npm package, each with an ECOSYSTEM range over one minor version (every seventh
also with listed versions and a SEMVER \`last_affected\` range); \`POST /api/v1/scan\` with 1,000 versions of
that package through the real app in-process; median (max) of ${iterations} requests after warm-up. Target: under 2 s.

| database | matches | route ms |
|---|---|---|
| PostgreSQL | ${onPostgres.matches} | **${onPostgres.ms.toFixed(0)}** (${onPostgres.max.toFixed(0)}) |
| PGlite | ${onPGlite.matches} | **${onPGlite.ms.toFixed(0)}** (${onPGlite.max.toFixed(0)}) |

Each issue's ranges are checked against the stack's distinct versions of the package sorted once
(a binary search per range event, src/scan/version-set.ts), so the work grows with issues x events
x log(versions) plus the matches, not with issues x versions.
<!-- scan-versions:end -->`;
console.log(section);
await writeReadmeSection('scan-versions', section);
