// Generates benchmark issues inside the database with one INSERT ... SELECT over generate_series
// (row-by-row inserts from the client would take longer than the benchmarks themselves). Values
// are deterministic functions of the row number, so PostgreSQL and PGlite hold the same rows.
//
// Packages: each issue affects two names out of PACKAGE_UNIVERSE ("pkg-<n>", PyPI), with OSV ranges
// (first name: introduced 0, fixed 1.<(g/3) % 10>.0, plus introduced 2.0.0, fixed 2.0.x for every
// third issue; second name: introduced 0, fixed <g % 4>.0.0) stored in `source` as ingestion
// stores them, so a version check drops some candidates and keeps others. Vendors: one of 5,000.
// 90% of rows are served (g % 10 <> 7).
export const PACKAGE_UNIVERSE = 50_000;

/** The package names of row g, as the SQL below computes them. */
export const packagesOf = (g: number) => [`pkg-${(g * 7919) % PACKAGE_UNIVERSE}`, `pkg-${(g * 104_729 + 17) % PACKAGE_UNIVERSE}`];

export function insertIssuesSql(from: number, to: number): string {
  return `
INSERT INTO "Issue" (
  id, title, headline, summary, "sourceUrl", "publishedAt", severity, "cvssSeverity", "cvssScore", labels, "issueType", "cveId",
  "cweIds", "affectedPackages", "affectedPackageRefs", "affectedVendors", "affectedVendorsRaw", "classifierModel",
  "classifierPromptVersion", solution, "attackType", "cvssVector", "attackVector", "attackComplexity", "privilegesRequired",
  "userInteraction", "exploitMaturity", "epssScore", "advisoryAliases", "affectedPackagesSource", "patchAvailable",
  "capecIds", "crossRefCount", "attackSophistication", "impactType", "aiComponentTargeted", "llmSpecific",
  "classifierConfidence", "atlasIds", "naturalKey", identifiers, "contentHash", relevant, "packageNames", "vendorKeys",
  "searchText", source, "updatedAt")
SELECT
  md5('issue:' || g)::uuid,
  'Remote code execution via crafted prompt in pkg-' || p1 || ' agent toolkit (' || g || ')',
  CASE WHEN g % 3 = 0 THEN 'RCE in pkg-' || p1 END,
  'A crafted document processed by pkg-' || p1 || ' lets an attacker run arbitrary code in the host process. '
    || 'Affected deployments expose tools to the model without sandboxing; an indirect prompt injection, "quoted" and, '
    || 'with commas, reaches the code interpreter. Upgrade to a fixed release or disable the tool.',
  'https://github.com/advisories/GHSA-bench-' || g,
  timestamptz '2022-01-01 00:00:00+00' + (g % 1096) * interval '1 day' + (g % 86400) * interval '1 second',
  (ARRAY['critical','high','medium','low','info'])[1 + g % 5]::"Severity",
  (ARRAY['critical','high','medium','low',NULL])[1 + g % 5],
  CASE WHEN g % 5 < 4 THEN (ARRAY[9.8, 7.5, 5.3, 3.1])[1 + g % 5] END,
  ARRAY['security', (ARRAY['research','industry','policy','privacy','safety'])[1 + g % 5]],
  (ARRAY['vulnerability','incident','news','regulatory','research'])[1 + g % 5]::"IssueType",
  CASE WHEN g % 2 = 0 THEN 'CVE-2024-' || (10000 + g) END,
  ARRAY['CWE-' || (20 + g % 900)],
  ARRAY['pkg-' || p1 || '@<1.' || (g / 3 % 10) || '.0 (fixed: 1.' || (g / 3 % 10) || '.0)', 'pkg-' || p2 || '@<' || (g % 4) || '.0.0 (fixed: ' || (g % 4) || '.0.0)'],
  ARRAY['PyPI:pkg-' || p1, 'PyPI:pkg-' || p2],
  ARRAY['Vendor ' || (g % 5000)],
  ARRAY['Vendor ' || (g % 5000) || ' Inc.'],
  'secwire-rules', 'v1',
  CASE WHEN g % 4 = 0 THEN 'N/A: no mitigation is known yet.' ELSE '=Upgrade pkg-' || p1 || ' to 1.' || (g / 3 % 10) || '.0 or later.' END,
  ARRAY[(ARRAY['prompt_injection','jailbreak','rag_poisoning','data_extraction','supply_chain'])[1 + g % 5]],
  'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 'network', 'low', 'none', 'none', 'unknown',
  (g % 1000) / 1000.0,
  ARRAY['GHSA-bench-' || g, 'PYSEC-2024-' || g],
  'ghsa', g % 4 <> 0,
  ARRAY['CAPEC-' || (g % 600)],
  g % 3, 'moderate', ARRAY['confidentiality','integrity'], 'framework', g % 2 = 0,
  (g % 100) / 100.0,
  ARRAY['AML.T0051'],
  'bench:' || g, ARRAY['bench:' || g], md5('content:' || g), g % 10 <> 7,
  ARRAY['pkg-' || p1, 'pkg-' || p2],
  ARRAY['vendor ' || (g % 5000), 'vendor ' || (g % 5000) || ' inc.'],
  lower('remote code execution via crafted prompt in pkg-' || p1 || ' ' || g),
  jsonb_build_object('id', 'GHSA-bench-' || g, 'affected', jsonb_build_array(
    jsonb_build_object('package', jsonb_build_object('ecosystem', 'PyPI', 'name', 'pkg-' || p1),
      'ranges', CASE WHEN g % 3 = 0
        THEN jsonb_build_array(jsonb_build_object('type', 'ECOSYSTEM', 'events', jsonb_build_array(
          jsonb_build_object('introduced', '0'), jsonb_build_object('fixed', '1.' || (g / 3 % 10) || '.0'),
          jsonb_build_object('introduced', '2.0.0'), jsonb_build_object('fixed', '2.0.' || (g % 7 + 1)))))
        ELSE jsonb_build_array(jsonb_build_object('type', 'ECOSYSTEM', 'events', jsonb_build_array(
          jsonb_build_object('introduced', '0'), jsonb_build_object('fixed', '1.' || (g / 3 % 10) || '.0'))))
      END),
    jsonb_build_object('package', jsonb_build_object('ecosystem', 'PyPI', 'name', 'pkg-' || p2),
      'ranges', jsonb_build_array(jsonb_build_object('type', 'ECOSYSTEM', 'events', jsonb_build_array(
        jsonb_build_object('introduced', '0'), jsonb_build_object('fixed', (g % 4) || '.0.0'))))))),
  now()
FROM (
  SELECT g, (g::bigint * 7919) % ${PACKAGE_UNIVERSE} AS p1, (g::bigint * 104729 + 17) % ${PACKAGE_UNIVERSE} AS p2
  FROM generate_series(${from}, ${to}) AS g
) AS rows`;
}

/**
 * Runs a bulk load the way bulk loads are done: the secondary indexes are dropped first and built
 * again after, which ends in the same schema much faster than maintaining six GIN indexes row by
 * row. Then refreshes the planner statistics.
 */
export async function withoutSecondaryIndexes(sql: <T>(query: string) => Promise<T[]>, load: () => Promise<void>): Promise<void> {
  const indexes = await sql<{ indexname: string; indexdef: string }>(
    `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'Issue' AND indexname NOT IN ('Issue_pkey', 'Issue_naturalKey_key')`,
  );
  for (const { indexname } of indexes) await sql(`DROP INDEX "${indexname}"`);
  await load();
  for (const { indexdef } of indexes) await sql(indexdef);
  await sql('ANALYZE "Issue"');
}

/** Inserts rows 1..count in chunks (each chunk one statement), without the secondary indexes meanwhile. */
export async function generateIssues(sql: <T>(query: string) => Promise<T[]>, count: number, chunk = 100_000): Promise<void> {
  await withoutSecondaryIndexes(sql, async () => {
    for (let from = 1; from <= count; from += chunk) await sql(insertIssuesSql(from, Math.min(count, from + chunk - 1)));
  });
}

/**
 * The scan's candidate statement (src/scan/scan.ts) as plain SQL for baselines: $1 package keys,
 * $2 vendor keys; `affected` is what it selects for the version checks.
 */
export const scanCandidatesSql = (affected = `source->'affected'`) => `
  SELECT id::text AS id, title, severity::text AS severity, "cveId", "packageNames", "vendorKeys", ${affected} AS affected
  FROM "Issue"
  WHERE id = ANY(ARRAY(
      SELECT i.id FROM unnest($1::text[]) AS k(name) JOIN "Issue" i ON i."packageNames" @> ARRAY[k.name]
      UNION ALL
      SELECT i.id FROM unnest($2::text[]) AS k(name) JOIN "Issue" i ON i."vendorKeys" @> ARRAY[k.name]))
    AND relevant AND processed AND NOT withdrawn
  ORDER BY "Issue".severity, "Issue"."publishedAt" DESC, "Issue".id DESC`;
