// GET /api/v1/docs: a human-readable page rendered on the server from the OpenAPI document, so it
// always matches the routes, needs no CDN, and works offline. It is built once for every caller,
// so its examples name a fixed origin, which one line of script replaces with the origin the page
// was served from (without script they keep the default local one).
type Json = Record<string, any>;

/** The origin the examples are written with: a default local start's. */
const EXAMPLE_ORIGIN = 'http://localhost:3000';

const escape = (value: unknown) =>
  String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Inline `code` and [links](url) from the descriptions' Markdown; everything else stays text. */
function inline(markdown: string): string {
  return escape(markdown)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\[([^\]]+)\]\((https?:[^)\s]+)\)/g, '<a href="$2">$1</a>');
}

function typeOf(schema: Json | undefined): string {
  if (!schema) return '';
  if (schema.$ref) return schema.$ref.split('/').pop();
  if (schema.allOf?.[0]?.$ref) return schema.allOf[0].$ref.split('/').pop();
  if (schema.type === 'array') return `${typeOf(schema.items)}[]`;
  return [schema.type, schema.format && `(${schema.format})`].filter(Boolean).join(' ');
}

function schemaTable(name: string, schema: Json): string {
  const required = new Set(schema.required ?? []);
  const rows = Object.entries<Json>(schema.properties ?? {})
    .map(([field, s]) => {
      const values = s.enum ? ` One of: ${s.enum.map((v: string) => `<code>${escape(v)}</code>`).join(', ')}.` : '';
      return `<tr><td><code>${escape(field)}</code></td><td>${escape(typeOf(s))}${required.has(field) ? '' : ' | null'}</td><td>${inline(s.description ?? '')}${values}</td></tr>`;
    })
    .join('');
  return `<section id="schema-${escape(name)}"><h3>${escape(name)} ${selfLink(`schema-${name}`)}</h3><p>${inline(schema.description ?? '')}</p>
<table><thead><tr><th>Field</th><th>Type</th><th>Meaning</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

/** A heading's own link, so any part of the page can be linked to. */
const selfLink = (id: string) => `<a class="anchor" href="#${escape(id)}" aria-label="link to this section">#</a>`;

interface Operation {
  id: string;
  /** `GET /api/v1/issues`, for the table of contents. */
  label: string;
  html: string;
}

function operationSection(doc: Json, path: string, method: string, op: Json, basePath: string): Operation {
  const params = (op.parameters ?? []) as Json[];
  const paramRows = params
    .map((p) => {
      const bounds = ['minimum', 'maximum', 'maxLength'].filter((k) => p.schema?.[k] !== undefined).map((k) => `${k} ${p.schema[k]}`);
      return `<tr><td><code>${escape(p.name)}</code></td><td>${escape(p.in)}</td><td>${escape(typeOf(p.schema))}${bounds.length ? ` (${escape(bounds.join(', '))})` : ''}</td><td>${inline(p.description ?? '')}</td></tr>`;
    })
    .join('');
  const responses = Object.entries<Json>(op.responses ?? {})
    .map(([status, given]) => {
      const r: Json = given.$ref ? { ...doc.components.responses?.[given.$ref.split('/').pop()], $ref: given.$ref } : given;
      const schema = r.content?.['application/json']?.schema;
      const target = schema ? typeOf(schema) : r.$ref ? 'Error' : '';
      return `<li><strong>${escape(status)}</strong> ${target ? `<a href="#schema-${escape(target)}">${escape(target)}</a>` : ''} ${escape(r.description ?? '')}</li>`;
    })
    .join('');
  const body: Json | undefined = op.requestBody?.content?.['application/json']?.schema;
  const bodyRequired = new Set(body?.required ?? []);
  const bodyRows = Object.entries<Json>(body?.properties ?? {})
    .map(
      ([name, s]) =>
        `<tr><td><code>${escape(name)}</code></td><td>${escape(typeOf(s))}${bodyRequired.has(name) ? ', required' : ''}</td><td>${inline(s.description ?? '')}</td></tr>`,
    )
    .join('');
  const example = `${basePath}${path.replace(/\{(\w+)\}/g, ':$1')}`;
  const request = curlExample(op, method, `${basePath}${path}`);
  const id = String(op.operationId ?? `${method}-${path}`);
  const html = `<section class="operation" id="${escape(id)}">
<h3><span class="method">${escape(method.toUpperCase())}</span> <code>${escape(example)}</code> ${selfLink(id)}</h3>
<p>${inline(op.description ?? '')}</p>
${op.security ? '<p>Requires <code>Authorization: Bearer &lt;key&gt;</code>.</p>' : ''}
${paramRows ? `<table><thead><tr><th>Parameter</th><th>In</th><th>Type</th><th>Meaning</th></tr></thead><tbody>${paramRows}</tbody></table>` : ''}
${bodyRows ? `<p>JSON body:</p><table><thead><tr><th>Field</th><th>Type</th><th>Meaning</th></tr></thead><tbody>${bodyRows}</tbody></table>` : ''}
${!paramRows && !bodyRows ? '<p>No parameters.</p>' : ''}
<p>Example:</p><pre><code>${escape(request)}</code></pre>
<p>Responses:</p><ul>${responses}</ul></section>`;
  return { id, label: `${method.toUpperCase()} ${example}`, html };
}

/** A curl command for the operation, its parameters and body filled in from the document's examples. */
function curlExample(op: Json, method: string, template: string): string {
  const params = (op.parameters ?? []) as Json[];
  let url = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(params.find((p) => p.name === name)?.example ?? name)));
  const query = params.filter((p) => p.in === 'query' && p.example !== undefined).slice(0, 2);
  if (query.length) url += `?${query.map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(String(p.example))}`).join('&')}`;
  const body = op.requestBody?.content?.['application/json']?.example;
  return [
    `curl${method === 'get' ? '' : ` -X ${method.toUpperCase()}`} '${EXAMPLE_ORIGIN}${url}'`,
    ...(op.security ? ["-H 'Authorization: Bearer <key>'"] : []),
    ...(body ? ["-H 'Content-Type: application/json'", `-d '${JSON.stringify(body)}'`] : []),
  ].join(' \\\n  ');
}

export function renderDocs(doc: Json, { basePath, graphqlEndpoint }: { basePath: string; graphqlEndpoint: string }): string {
  // A path item with its own servers (the plain routes outside /api/v1) sits under that prefix.
  const operations = Object.entries<Json>(doc.paths).flatMap(([path, { servers, ...ops }]) =>
    Object.entries<Json>(ops).map(([method, op]) => operationSection(doc, path, method, op, servers?.[0]?.url ?? basePath)),
  );
  const schemaNames = Object.entries<Json>(doc.components.schemas)
    .filter(([, s]) => s.type === 'object')
    .map(([name]) => name);
  const schemas = schemaNames.map((name) => schemaTable(name, doc.components.schemas[name]));
  const contents = `<nav class="contents" aria-label="Contents"><h2 id="contents">Contents</h2><ol>
<li><a href="#endpoints">Endpoints</a><ol>${operations.map((o) => `<li><a href="#${escape(o.id)}"><code>${escape(o.label)}</code></a></li>`).join('')}</ol></li>
<li><a href="#errors">Errors</a></li>
<li><a href="#schemas">Schemas</a><ol>${schemaNames.map((name) => `<li><a href="#schema-${escape(name)}">${escape(name)}</a></li>`).join('')}</ol></li>
</ol></nav>`;
  const intro = String(doc.info.description ?? '')
    .split(/\n\n+/)
    .map((p) => `<p>${inline(p)}</p>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(doc.info.title)} documentation</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem 1.5rem;color:#1b1b1b}
h1{margin-bottom:0}h2{border-bottom:1px solid #ddd;margin-top:2.5rem}code{background:#f3f3f3;padding:0 .25rem;border-radius:3px}
table{border-collapse:collapse;width:100%;font-size:.92rem}th,td{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#fafafa}.method{background:#0b6e4f;color:#fff;border-radius:3px;padding:0 .4rem;font-size:.85rem}
.operation{margin-bottom:2rem}header nav a{margin-right:1rem}.anchor{color:#888;text-decoration:none;font-size:.85em}
.contents ol{padding-left:1.25rem}.contents li{margin:.1rem 0}
pre{white-space:pre-wrap;background:#f3f3f3;padding:.5rem;border-radius:3px}code,td,th{overflow-wrap:anywhere}
</style></head>
<body>
<header><h1>${escape(doc.info.title)}</h1><p>Version ${escape(doc.info.version)} · Data licence <a href="${escape(doc.info.license?.url)}">${escape(doc.info.license?.name)}</a></p>
<nav><a href="${escape(basePath)}/openapi.json">OpenAPI document</a><a href="${escape(graphqlEndpoint)}">GraphiQL</a></nav></header>
<main>
${intro}
${contents}
<h2 id="endpoints">Endpoints ${selfLink('endpoints')}</h2>
${operations.map((o) => o.html).join('\n')}
<h2 id="errors">Errors ${selfLink('errors')}</h2>
<p>Every response that is not a success has the body <code>{"error": {"message": string, "status": integer}}</code>, where <code>status</code> equals the HTTP status: 400 for invalid parameters (the message names the parameter), 404 for unknown routes and resources, 429 above the rate limit (the <code>Retry-After</code> header says when to retry), 500 for server errors (quote the <code>X-Request-Id</code> response header when reporting one).</p>
<h2 id="schemas">Schemas ${selfLink('schemas')}</h2>
${schemas.join('\n')}
</main>
<script>for (const code of document.querySelectorAll('pre code')) code.textContent = code.textContent.replaceAll(${JSON.stringify(EXAMPLE_ORIGIN)}, location.origin);</script>
</body></html>`;
}
