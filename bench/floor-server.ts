// The stack floor: the cheapest server the project's own stack allows for the benchmarked requests.
// A minimal graphql-yoga app with Yoga's SOFA plugin (@graphql-yoga/plugin-sofa) for /api/v1, an SDL
// schema, Yoga's default execution and the raw server's SQL (raw-queries.ts), so that it answers
// with the same JSON as secwire and the raw server. No rate limit, cache, validation or envelope:
// what secwire costs above it is what its own code adds. Run as a child process like the raw server:
// DATABASE_URL or DATA_DIR, PORT (0 = any); it prints `listening <port>` once ready.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useSofa } from '@graphql-yoga/plugin-sofa';
import type { GraphQLResolveInfo } from 'graphql';
import { createSchema, createYoga } from 'graphql-yoga';
import { digest, issueColumns, issueJson, list, listItemJson, pool, scan, single, stats } from './raw-queries.js';

/** Each column of the raw server's issue SELECT, by its field name. */
const columnOf = new Map(
  issueColumns.split(',').map(
    (expression) =>
      [
        expression
          .trim()
          .replace(/::text$/, '')
          .replaceAll('"', ''),
        expression.trim(),
      ] as const,
  ),
);

// Values come as the raw server shapes them; JSON passes them through unchanged.
const typeDefs = /* GraphQL */ `
  scalar JSON
  type Issue { ${[...columnOf.keys()].map((field) => `${field}: JSON`).join(' ')} }
  type ListMeta { total: Int! limit: Int! offset: Int! }
  type IssueList { data: [Issue!]! meta: ListMeta! }
  type IssueAnswer { data: Issue }
  type Stats { totalIssues: Int! totalDigests: Int! last24h: Int! last7d: Int! lastNewDataAt: JSON newDataSources: JSON }
  type StatsAnswer { data: Stats! }
  type Digest { date: JSON content: String issueCount: Int generatedAt: JSON }
  type DigestAnswer { data: Digest }
  type ScanMatch { id: String! title: String severity: String cveId: String matchedPackages: [String!]! matchedVendors: [String!]! }
  type ScanMeta { total: Int! bySeverity: JSON }
  type ScanAnswer { data: [ScanMatch!]! meta: ScanMeta! }
  type Query {
    issues(limit: Int, severity: String, package: String, search: String): IssueList!
    issue(id: String!): IssueAnswer
    stats: StatsAnswer!
    latestDigest: DigestAnswer
    scan(packages: [String!]!): ScanAnswer!
  }
`;

/**
 * The raw server's SELECT for what the selection under `data` asks: every column for a REST list
 * (SOFA selects every field), only the asked ones for a GraphQL operation, as the raw server does.
 */
function listQuery(info: GraphQLResolveInfo): [columns: string, toJson: (row: Record<string, unknown>) => unknown] {
  const data = info.fieldNodes[0]?.selectionSet?.selections.find((s) => s.kind === 'Field' && s.name.value === 'data');
  const fields = data?.kind === 'Field' ? (data.selectionSet?.selections.flatMap((s) => (s.kind === 'Field' ? [s.name.value] : [])) ?? []) : [];
  return fields.length === columnOf.size ? [issueColumns, issueJson] : [fields.map((field) => columnOf.get(field)!).join(', '), listItemJson];
}

const schema = createSchema({
  typeDefs,
  resolvers: {
    JSON: { serialize: (value: unknown) => value },
    Query: {
      issues: (_: unknown, args: Record<string, string | number | null>, _context: unknown, info: GraphQLResolveInfo) => {
        const query = new URLSearchParams(Object.entries(args).flatMap(([k, v]) => (v === null || v === undefined ? [] : [[k, String(v)]])));
        return list(query, ...listQuery(info));
      },
      issue: (_: unknown, { id }: { id: string }) => single(id),
      stats: () => stats(),
      latestDigest: () => digest(),
      scan: (_: unknown, { packages }: { packages: string[] }) => scan(packages),
    },
  },
});

const routes = {
  'Query.issues': { method: 'GET', path: '/issues' },
  'Query.issue': { method: 'GET', path: '/issues/:id' },
  'Query.stats': { method: 'GET', path: '/stats' },
  'Query.latestDigest': { method: 'GET', path: '/digest/latest' },
  'Query.scan': { method: 'POST', path: '/scan' },
} as const;

const yoga = createYoga({ schema, logging: false, plugins: [useSofa({ basePath: '/api/v1', routes })] });
const server = createServer(yoga);
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log(`listening ${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => server.close(() => void pool.end()));
