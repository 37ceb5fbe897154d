// What the OpenAPI document says beyond SOFA's routes: an example for every operation, and the
// plain routes (CSV, OSV zips, Atom feeds, TAXII) with their real media types. Examples are checked
// against their schemas by Redocly's linter in test/edge/openapi-tools.test.ts.
import { CYCLONEDX_MEDIA_TYPE, SPDX_MEDIA_TYPE } from '../sbom/parse.js';
import { TAXII_MEDIA_TYPE } from '../taxii/route.js';

type Json = Record<string, any>;

/** Parameter examples by name, wherever a route takes the parameter. */
export const parameterExamples: Record<string, unknown> = {
  id: '5d0092c5-5f74-4287-9642-33f4c354e56d',
  webhookId: '5d0092c5-5f74-4287-9642-33f4c354e56d',
  deliveryId: '0f8fad5b-d9cb-469f-a165-70867728950e',
  date: '2025-03-01',
  search: 'prompt injection',
  label: ['security'],
  severity: 'critical',
  issueType: 'vulnerability',
  vendor: 'openai',
  package: 'langchain',
  since: '2025-01-31',
  limit: 20,
  offset: 0,
  confidenceMin: 0.8,
  alias: 'CVE-2023-36258',
  cursor: 'WyIyMDI1LTAzLTAxVDEwOjAwOjAwLjAwMFoiLCI1ZDAwOTJjNS01Zjc0LTQyODctOTY0Mi0zM2Y0YzM1NGU1NmQiXQ',
  status: 'failed',
};

/** Request body examples, by operation (method and path as the document writes them). */
export const bodyExamples: Record<string, unknown> = {
  'post /scan': { packages: ['langchain@0.0.300', 'pkg:pypi/gradio@3.40.0'], vendors: ['openai'], severityMin: 'high' },
  'post /webhooks': { url: 'https://hooks.example.com/secwire', filters: { severity: 'critical' } },
  'patch /webhooks/{id}': { active: false },
  'post /admin/ingest': {
    items: [
      { title: 'Prompt injection worm hits LLM email assistants', url: 'https://example.org/worm', publishedAt: '2024-01-22T09:00:00Z', type: 'incident' },
    ],
  },
  'post /admin/digests': { date: '2025-03-01' },
  'post /admin/keys': { name: 'ci-pipeline' },
  'post /webhooks/{id}/rotate-secret': { overlapHours: 24 },
};

/** Response examples for the operations that take no input (the others show theirs on the input). */
export const responseExamples: Record<string, unknown> = {
  'get /stats': {
    data: {
      totalIssues: 1243,
      totalDigests: 380,
      last24h: 7,
      last7d: 52,
      lastNewDataAt: '2025-03-01T06:00:02.000Z',
      newDataSources: [
        { name: 'cisa-kev', lastNewDataAt: '2025-03-01T06:00:02.000Z' },
        { name: 'osv-pypi', lastNewDataAt: '2025-03-01T05:00:41.000Z' },
      ],
    },
  },
  'get /digest/latest': {
    data: { date: '2025-03-01', content: '# secwire daily digest: 2025-03-01\n', issueCount: 3, generatedAt: '2025-03-02T00:05:00.000Z' },
  },
  'post /admin/reclassify': { data: { version: 'rules-2.0.0+1a2b3c4d', examined: 146, updated: 146, newlyServed: 3, unserved: 1, failed: 0 } },
  'get /admin/sources': {
    data: [
      {
        name: 'kev',
        kind: 'kev',
        location: 'https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json',
        intervalMinutes: 1440,
        lastAttemptAt: '2025-03-01T06:00:00.000Z',
        lastSuccessAt: '2025-03-01T06:00:00.000Z',
        lastError: null,
        lastErrorAt: null,
        counts: { received: 1404, created: 0, updated: 3, unchanged: 1401, rejected: 0, skipped: 0, tooLarge: 0 },
      },
    ],
  },
  'get /webhooks': {
    data: [
      {
        id: '5d0092c5-5f74-4287-9642-33f4c354e56d',
        url: 'https://hooks.example.com/secwire',
        active: true,
        filters: { severity: 'critical' },
        watchedComponents: 0,
        deactivatedReason: null,
        previousSecretExpiresAt: null,
        consecutiveFailures: 0,
        createdAt: '2025-03-01T10:00:00.000Z',
      },
    ],
  },
};

const error = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
const taxiiError = (description: string) => ({
  description,
  content: { [TAXII_MEDIA_TYPE]: { schema: { type: 'object', properties: { title: { type: 'string' }, http_status: { type: 'string' } } } } },
});
const param = (name: string, description: string, schema: Json, example: unknown, where = 'query') => ({
  name,
  in: where,
  required: where === 'path',
  description,
  schema,
  example,
});
const binary = { type: 'string', format: 'binary' };

const listFilterNames = ['search', 'label', 'severity', 'issueType', 'vendor', 'package', 'since', 'confidenceMin', 'alias'];

/** A plain route's GET operation; its summary is its description too. */
function plainGet(operationId: string, tag: string, summary: string, responses: Json, parameters?: Json[]): Json {
  return { operationId, tags: [tag], summary, ...(parameters ? { parameters } : {}), responses, description: summary };
}

const zip = (description: string) => ({ '200': { description, content: { 'application/zip': { schema: binary } } } });
const taxiiServers = [{ url: '/taxii2' }];

/** The plain routes, each with the servers prefix it sits under (the document's default is /api/v1). */
export function plainPaths(listParameters: Json[]): Json {
  const filters = listParameters.filter((p) => listFilterNames.includes(p.name));
  const atomResponses = {
    '200': { description: 'An Atom 1.0 feed.', content: { 'application/atom+xml': { schema: { type: 'string' } } } },
    '400': error('Invalid parameters.'),
  };
  const limit = (max: number, dflt: number) =>
    param('limit', `Entries: at least 1; default ${dflt}; larger values are treated as ${max}.`, { type: 'integer', minimum: 1 }, dflt);
  return {
    '/issues.atom': {
      get: plainGet('issuesAtom', 'feeds', 'Atom feed of served issues, newest first, with the list filters.', atomResponses, [...filters, limit(100, 50)]),
    },
    '/digests.atom': {
      get: plainGet('digestsAtom', 'feeds', 'Atom feed of the daily digests that cover at least one issue, newest first.', atomResponses, [limit(100, 50)]),
    },
    '/osv/all.zip': {
      get: plainGet('osvAllZip', 'osv', 'Every served issue as an OSV record <id>.json in one zip, as OSV lays out its exports.', zip('A zip archive.')),
    },
    '/osv/{ecosystem}/all.zip': {
      get: plainGet(
        'osvEcosystemZip',
        'osv',
        'The OSV records affecting one ecosystem, in one zip.',
        zip('A zip archive (empty for an ecosystem no issue affects).'),
        [param('ecosystem', 'An OSV ecosystem name, as listed by /osv/ecosystems.txt.', { type: 'string' }, 'PyPI', 'path')],
      ),
    },
    '/osv/ecosystems.txt': {
      get: plainGet('osvEcosystems', 'osv', 'The ecosystems of the served OSV records, one a line.', {
        '200': { description: 'Plain text.', content: { 'text/plain': { schema: { type: 'string' }, example: 'Go\nPyPI\n' } } },
      }),
    },
    '/issues/export': {
      servers: [{ url: '/api' }],
      get: plainGet(
        'issuesCsv',
        'issues',
        'Served issues as CSV (every field of the Issue table as a column), with the list filters.',
        { '200': { description: 'RFC 4180 CSV.', content: { 'text/csv': { schema: { type: 'string' } } } }, '400': error('Invalid parameters.') },
        filters,
      ),
    },
    '/': {
      servers: taxiiServers,
      get: plainGet('taxiiDiscovery', 'taxii', 'TAXII 2.1 discovery: the one API root.', {
        '200': {
          description: 'TAXII discovery resource.',
          content: {
            [TAXII_MEDIA_TYPE]: { schema: { type: 'object' }, example: { title: 'secwire TAXII 2.1', default: '/taxii2/api/', api_roots: ['/taxii2/api/'] } },
          },
        },
        '406': taxiiError('Not a TAXII 2.1 media type.'),
      }),
    },
    '/api/collections': {
      servers: taxiiServers,
      get: plainGet('taxiiCollections', 'taxii', 'TAXII 2.1 collections: all issues, per issue type and per severity.', {
        '200': { description: 'TAXII collections resource.', content: { [TAXII_MEDIA_TYPE]: { schema: { type: 'object' } } } },
      }),
    },
    '/api/collections/{collectionId}/objects': {
      servers: taxiiServers,
      get: plainGet(
        'taxiiObjects',
        'taxii',
        "A collection's STIX 2.1 objects in a TAXII envelope, paged with next (stable while issues arrive).",
        {
          '200': {
            description: "A TAXII envelope; X-TAXII-Date-Added-First and -Last give the first and last object's date_added.",
            headers: { 'X-TAXII-Date-Added-First': { schema: { type: 'string' } }, 'X-TAXII-Date-Added-Last': { schema: { type: 'string' } } },
            content: {
              [TAXII_MEDIA_TYPE]: {
                schema: {
                  type: 'object',
                  properties: { more: { type: 'boolean' }, next: { type: 'string' }, objects: { type: 'array', items: { type: 'object' } } },
                },
              },
            },
          },
          '400': taxiiError('Invalid parameters.'),
          '404': taxiiError('No such collection.'),
        },
        [
          param('collectionId', 'Collection id or alias (all, type-vulnerability, severity-critical, ...).', { type: 'string' }, 'all', 'path'),
          param('added_after', 'Only objects added after this time.', { type: 'string' }, '2025-03-01T00:00:00Z'),
          limit(1000, 100),
          param('next', 'The next value of the previous page.', { type: 'string' }, 'eyJyIjo5OX0'),
          param('match[type]', 'STIX types, comma-separated.', { type: 'string' }, 'vulnerability'),
          param('match[id]', 'STIX ids, comma-separated.', { type: 'string' }, 'vulnerability--5d0092c5-5f74-4287-9642-33f4c354e56d'),
        ],
      ),
    },
  };
}

/** Tags with what they group, as tools list them. */
export const tags = [
  { name: 'issues', description: 'The issue list, one issue, CSV and STIX exports.' },
  { name: 'osv', description: 'Issues as OSV records, one by one and in bulk zips.' },
  { name: 'feeds', description: 'Atom feeds of issues and digests.' },
  { name: 'digest', description: 'Daily digests.' },
  { name: 'stats', description: 'Aggregate counts.' },
  { name: 'scan', description: 'Stack and SBOM scans.' },
  { name: 'webhooks', description: 'Signed webhooks for new issues.' },
  { name: 'admin', description: 'Ingest and digest generation (admin key).' },
  { name: 'taxii', description: 'TAXII 2.1 over the STIX objects (served under /taxii2).' },
];

/** $ref may not have siblings in OpenAPI 3.0 (SOFA puts descriptions beside them): wrapped in allOf. */
export function wrapRefSiblings(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(wrapRefSiblings);
  if (!value || typeof value !== 'object') return;
  const node = value as Json;
  if (typeof node.$ref === 'string' && Object.keys(node).length > 1 && node.$ref.startsWith('#/components/schemas/')) {
    node.allOf = [{ $ref: node.$ref }];
    delete node.$ref;
  }
  Object.values(node).forEach(wrapRefSiblings);
}

/** The SBOM media types POST /scan also takes and answers. */
export function addSbomMediaTypes(doc: Json): void {
  const scan = doc.paths['/scan']?.post;
  if (scan?.requestBody?.content) {
    const sbom = { schema: { type: 'object', description: 'The whole SBOM document.' } };
    scan.requestBody.content[CYCLONEDX_MEDIA_TYPE] = sbom;
    scan.requestBody.content[SPDX_MEDIA_TYPE] = sbom;
    scan.responses['200'].content[CYCLONEDX_MEDIA_TYPE] = {
      schema: { type: 'object', description: 'A CycloneDX 1.6 VEX document (Accept: application/vnd.cyclonedx+json).' },
    };
  }
}
