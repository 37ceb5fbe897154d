// The import rules of src/ (docs/architecture.md, "Architecture"): no cycles, and no import from a
// lower layer back up. Checked by test/server/architecture.test.ts and `npm run check:imports`.
const base = '^src/((config|log|errors|dates|params|redis|idle-collection|data-license|install-cache)\\.ts$|db/|generated/|sources/definition\\.ts$)';
const graphql = '^src/(schema/|context\\.ts$)';
const edgeRoutes = '^src/(rest|paging)/|^src/[^/]+/route\\.ts$';
const edge = `^src/http/|${edgeRoutes}`;
const composition = '^src/server/';

const uphill = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to: { path: to } });

module.exports = {
  forbidden: [
    { name: 'no-circular', comment: 'Modules that import each other, directly or around a loop.', severity: 'error', from: {}, to: { circular: true } },
    uphill('base-up', 'The base (config, log, errors, dates, params, install-cache, db, generated) imports only the base.', { path: base }, `^src/(?!${base.slice(5)})`),
    uphill('domain-up', 'Domain modules know nothing of GraphQL, HTTP or composition.', { path: '^src/', pathNot: [base, graphql, edge, composition] }, `${graphql}|${edge}|${composition}`),
    uphill('graphql-up', 'The schema and its context know nothing of HTTP routes or composition.', { path: graphql }, `${edge}|${composition}`),
    uphill('edge-up', 'The edge does not import composition.', { path: edge }, composition),
    uphill('http-routes', 'http/ is the plumbing every route plugin shares; it imports none of them.', { path: '^src/http/' }, edgeRoutes),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/generated/' },
    // Type-only imports count: a loop through types is still a loop.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
