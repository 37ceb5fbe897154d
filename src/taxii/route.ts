// A read-only TAXII 2.1 server (https://docs.oasis-open.org/cti/taxii/v2.1/taxii-v2.1.html) over
// the STIX objects of the export: discovery at /taxii2/, one API root at /taxii2/api/, its
// collections, and each collection's objects. Public like the rest of the API. Answers and
// errors use the TAXII media type and the TAXII error message, which TAXII clients read.
import type { Services } from '../context.js';
import { badRequest } from '../errors.js';
import { parsePage, parseSince } from '../issues/filters.js';
import { caughtFailure } from '../http/envelope.js';
import { pattern, type PathMatch, type PlainCall } from '../http/route-matcher.js';
import { rejectUnknownParameters, single } from '../params.js';
import { collectionResource, collections, findCollection } from './collections.js';
import { collectionObjects, decodeNext, TAXII_LIMIT } from './objects.js';

export const TAXII_MEDIA_TYPE = 'application/taxii+json;version=2.1';
export const TAXII_ROOT = '/taxii2';
const API_ROOT = `${TAXII_ROOT}/api/`;

function taxiiResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': TAXII_MEDIA_TYPE, ...headers } });
}

/** The TAXII error message (TAXII 2.1, 3.6.1). */
const taxiiError = (status: number, title: string, headers: Record<string, string> = {}) =>
  taxiiResponse({ title, http_status: String(status) }, status, headers);

/** TAXII clients ask for application/taxii+json (version 2.1 if any); browsers and curl accept anything. */
function acceptable(accept: string | null): boolean {
  if (!accept) return true;
  return accept.split(',').some((part) => {
    const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const version = params.find((p) => p.startsWith('version='));
    if (type === '*/*' || type === 'application/*' || type === 'application/json') return true;
    return type === 'application/taxii+json' && (!version || version === 'version=2.1');
  });
}

const objectParams = ['added_after', 'limit', 'next', 'match[type]', 'match[id]', 'match[version]', 'match[spec_version]'];

/** One value of a query parameter, or a 400 when it is repeated. */
function once(query: URLSearchParams, name: string): string | undefined {
  return (single(name, query.getAll(name)) as string | undefined) || undefined;
}

/** A comma-separated match[...] list (TAXII 2.1, 3.4.1). */
const list = (value: string | undefined) =>
  value
    ?.split(',')
    .map((v) => v.trim())
    .filter(Boolean);

/**
 * The TAXII resources, a trailing slash or more optional (TAXII URLs end with one; the same URL
 * without it names the same resource). Groups: api root, collections, a collection's id, its objects.
 */
export const TAXII_RESOURCE = pattern(TAXII_ROOT, new RegExp(`^${TAXII_ROOT}(/api(/collections(?:/([^/]+)(/objects)?)?)?)?/*$`));
/** Any other path under the root: TAXII's own 404, whatever the method. */
export const TAXII_OTHER = pattern(`${TAXII_ROOT}/`, /^/);

export const taxiiNotFound = ({ url }: PlainCall) => taxiiError(404, `No TAXII resource at ${url.pathname}`);
export const taxiiNotAllowed = (_method: string, _path: string, allowed: readonly string[]) =>
  taxiiError(405, 'This TAXII server is read-only; use GET', { Allow: allowed.join(', ') });

/** Whether a match of TAXII_RESOURCE names a collection's objects (they cost by the page). */
export const isTaxiiObjects = (match: PathMatch) => match[4] !== undefined;

export function taxiiResources({ db, config, log }: Pick<Services, 'db' | 'config' | 'log'>) {
  const discovery = {
    title: 'secwire TAXII 2.1',
    description: 'AI-security issues as STIX 2.1, read-only and public. Data licensed CC BY 4.0.',
    default: API_ROOT,
    api_roots: [API_ROOT],
  };
  const apiRoot = {
    title: 'secwire',
    description: 'Collections of served AI-security issues: all, per issue type and per severity.',
    versions: [TAXII_MEDIA_TYPE],
    max_content_length: 0,
  };

  async function objects(collectionId: string, query: URLSearchParams): Promise<Response> {
    const collection = findCollection(collectionId);
    if (!collection) return taxiiError(404, 'No such collection');
    rejectUnknownParameters(query, objectParams);
    const addedAfter = once(query, 'added_after');
    const next = once(query, 'next');
    const version = once(query, 'match[version]');
    if (version && !['last', 'first', 'all'].includes(version)) throw badRequest('match[version] must be last, first or all (each object has one version)');
    const specVersion = once(query, 'match[spec_version]');
    if (specVersion && specVersion !== '2.1') throw badRequest('match[spec_version] must be 2.1');
    const page = await collectionObjects(db.read, collection, {
      addedAfter: addedAfter ? parseSince('added_after', addedAfter) : undefined,
      limit: parsePage({ limit: once(query, 'limit') }, TAXII_LIMIT).limit,
      after: next ? decodeNext(next) : undefined,
      types: list(once(query, 'match[type]')),
      ids: list(once(query, 'match[id]')),
      settledBefore: new Date(Date.now() - config.taxiiSettleSeconds * 1000),
    });
    const headers: Record<string, string> = {};
    if (page.objects.length) {
      headers['X-TAXII-Date-Added-First'] = page.objects[0]!.dateAdded.toISOString();
      headers['X-TAXII-Date-Added-Last'] = page.objects[page.objects.length - 1]!.dateAdded.toISOString();
    }
    const envelope = {
      more: page.more,
      ...(page.next ? { next: page.next } : {}),
      ...(page.objects.length ? { objects: page.objects.map((o) => o.object) } : {}),
    };
    return taxiiResponse(envelope, 200, headers);
  }

  async function resource([, apiRootPath, collectionsPath, collectionId, objectsPath]: PathMatch, query: URLSearchParams): Promise<Response> {
    if (!apiRootPath) return taxiiResponse(discovery);
    if (!collectionsPath) return taxiiResponse(apiRoot);
    if (!collectionId) return taxiiResponse({ collections: collections.map(collectionResource) });
    if (objectsPath) return objects(collectionId, query);
    const collection = findCollection(collectionId);
    return collection ? taxiiResponse(collectionResource(collection)) : taxiiError(404, 'No such collection');
  }

  return async ({ request, url, match }: PlainCall): Promise<Response> => {
    try {
      if (!acceptable(request.headers.get('accept'))) return taxiiError(406, `Ask for ${TAXII_MEDIA_TYPE}`);
      return await resource(match, url.searchParams);
    } catch (err) {
      const { status, message, headers } = caughtFailure(err, log);
      return taxiiError(status, message, headers);
    }
  };
}
