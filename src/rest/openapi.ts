// GET /api/v1/openapi.json: SOFA's description of the routes (paths, parameters and response
// schemas come from the GraphQL schema), completed with what SOFA leaves out: the service's info
// and licence, operation descriptions, nullable fields, parameter bounds and the error envelope.
import type { GraphQLSchema } from 'graphql';
import { DATA_LICENSE } from '../data-license.js';
import { SEARCH_MAX_LENGTH } from '../issues/filters.js';
import { addSbomMediaTypes, bodyExamples, parameterExamples, plainPaths, responseExamples, tags, wrapRefSiblings } from './openapi-interop.js';
import type { RestRoute } from './routes.js';

export type Json = Record<string, any>;

const errorSchema = {
  type: 'object',
  description: 'Every non-2xx response under /api. `status` equals the HTTP status.',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['message', 'status'],
      additionalProperties: false,
      properties: {
        message: { type: 'string', description: 'What went wrong, for a person to read.' },
        status: { type: 'integer', description: 'The HTTP status.' },
      },
    },
  },
};

const errorResponses: Record<string, { description: string; example: string }> = {
  '400': { description: 'Invalid parameters; the message names the parameter.', example: 'limit must be an integer' },
  '401': { description: 'Missing or wrong bearer key.', example: 'Missing or invalid bearer key' },
  '404': { description: 'Unknown route, or the resource does not exist (or is not served).', example: 'Issue not found' },
  '429': { description: 'Rate limit exceeded (60 requests per minute per client).', example: 'Rate limit exceeded: maximum of 60 requests per minute' },
  '500': { description: 'Internal server error; the cause is logged with the X-Request-Id.', example: 'Internal server error' },
};

/** Bounds of well-known parameters, wherever a route takes them. */
const parameterBounds: Record<string, Json> = {
  limit: { minimum: 1 },
  offset: { minimum: 0 },
  confidenceMin: { minimum: 0, maximum: 1 },
  search: { maxLength: SEARCH_MAX_LENGTH },
};

const NAME = 'secwire';

/** Fields that are not required are nullable: the key is always present, possibly null. */
function markNullable(schema: Json, schemas: Json): void {
  const required = new Set<string>(schema.required ?? []);
  for (const [name, property] of Object.entries<Json>(schema.properties ?? {})) {
    if (required.has(name)) continue;
    // OAS 3.0 ignores `nullable` without a `type` beside it (validators reject the pair): repeat
    // the referenced schema's type.
    const type = property.$ref ? schemas[String(property.$ref).split('/').pop()!]?.type : undefined;
    if (property.$ref) schema.properties[name] = { type, allOf: [{ $ref: property.$ref }], nullable: true, description: property.description };
    // A JSON scalar (a stack's sbom) is any value already: OAS 3.0 has no type to repeat for it.
    else if (property.type) property.nullable = true;
  }
}

export function buildOpenAPI(
  sofaDocument: Json,
  { schema, routes, basePath, version }: { schema: GraphQLSchema; routes: Record<string, RestRoute>; basePath: string; version: string },
): Json {
  const doc: Json = structuredClone(sofaDocument);
  doc.openapi = '3.0.3';
  doc.info = {
    title: `${NAME} API`,
    version,
    description: [
      'A curated, classified feed of AI-security issues (vulnerabilities, incidents, news, research, regulation).',
      '',
      `Reads need no key. Responses are JSON and readable from any origin (CORS). Every error is \`{"error": {"message", "status"}}\`.`,
      'The same data is served over GraphQL at `/graphql` (GraphiQL in a browser), where you choose the fields.',
      '',
      `The data is licensed [CC-BY-4.0](${DATA_LICENSE.url}); each issue's \`sourceUrl\` is its attribution.`,
    ].join('\n'),
    license: { name: DATA_LICENSE.name, url: DATA_LICENSE.url },
    contact: { name: NAME },
  };
  doc.tags = tags;
  doc.servers = [{ url: basePath }];

  const schemas: Json = doc.components.schemas;
  delete schemas.Query;
  delete schemas.Mutation;
  for (const s of Object.values<Json>(schemas)) if (s.type === 'object') markNullable(s, schemas);
  schemas.Error = errorSchema;
  doc.components.responses = Object.fromEntries(
    Object.entries(errorResponses).map(([status, { description, example }]) => [
      `Error${status}`,
      {
        description,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example: { error: { message: example, status: Number(status) } } } },
      },
    ]),
  );

  doc.components.securitySchemes = { bearer: { type: 'http', scheme: 'bearer', description: 'An API key, sent as `Authorization: Bearer <key>`.' } };

  const byOperation = new Map<string, { description: string; route: RestRoute; operationId: string }>();
  for (const [key, route] of Object.entries(routes)) {
    const [typeName, fieldName] = key.split('.') as [string, string];
    const type = typeName === 'Mutation' ? schema.getMutationType() : schema.getQueryType();
    const field = type?.getFields()[fieldName];
    // SOFA names query operations but not mutations, so operations are found by method and path.
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    if (field) byOperation.set(`${route.method.toLowerCase()} ${path}`, { description: field.description ?? '', route, operationId: fieldName });
  }

  for (const [path, operations] of Object.entries<Json>(doc.paths)) {
    for (const [method, operation] of Object.entries<Json>(operations)) {
      const operationKey = `${method} ${path}`;
      const known = byOperation.get(operationKey);
      if (known) {
        operation.description ||= known.description;
        // The GraphQL field's name: the same operation on both surfaces has the same name.
        operation.operationId = known.operationId;
      }
      const body = operation.requestBody?.content?.['application/json'];
      if (body && bodyExamples[operationKey]) body.example = bodyExamples[operationKey];
      const ok = operation.responses?.['200']?.content?.['application/json'];
      if (ok && responseExamples[operationKey]) ok.example = responseExamples[operationKey];
      operation.summary ||= operation.description?.split(/(?<=\.)\s/)[0];
      if (known?.route.bearer) operation.security = [{ bearer: [] }];
      // SOFA lists a body's fields as query parameters too, and path parameters as body fields; each
      // is documented once, where a client sends it.
      const bodySchema: Json | undefined = body?.schema;
      for (const p of (operation.parameters ?? []) as Json[]) {
        if (p.in !== 'path' || !bodySchema?.properties?.[p.name]) continue;
        delete bodySchema.properties[p.name];
        bodySchema.required = (bodySchema.required ?? []).filter((name: string) => name !== p.name);
        if (!bodySchema.required.length) delete bodySchema.required;
      }
      if (bodySchema && !Object.keys(bodySchema.properties ?? {}).length) delete operation.requestBody;
      const bodyFields = Object.keys(bodySchema?.properties ?? {});
      operation.parameters = (operation.parameters ?? []).filter((p: Json) => !(p.in === 'query' && bodyFields.includes(p.name)));
      if (!operation.parameters.length) delete operation.parameters;
      for (const parameter of operation.parameters ?? []) {
        // OpenAPI wants a parameter's description on the parameter, not inside its schema.
        if (parameter.schema?.description) {
          parameter.description ??= parameter.schema.description;
          delete parameter.schema.description;
        }
        if (parameter.schema?.$ref) parameter.schema = { allOf: [{ $ref: parameter.schema.$ref }] };
        Object.assign(parameter.schema, parameterBounds[parameter.name] ?? {});
        if (parameter.in === 'path' && parameter.name === 'id') parameter.schema.format = 'uuid';
        if (parameter.name in parameterExamples) parameter.example = parameterExamples[parameter.name];
      }
      for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
        response.description ||= status === '201' ? 'Created' : 'OK';
      }
      const takesInput = operation.requestBody || operation.parameters?.some((p: Json) => p.in === 'query');
      const statuses = [...(takesInput ? ['400'] : []), ...(known?.route.bearer ? ['401'] : []), '404', '429', '500'];
      for (const status of statuses) operation.responses[status] ??= { $ref: `#/components/responses/Error${status}` };
    }
  }
  addSbomMediaTypes(doc);
  wrapRefSiblings(doc);
  Object.assign(doc.paths, plainPaths(doc.paths['/issues']?.get?.parameters ?? []));
  return doc;
}
