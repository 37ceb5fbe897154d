// POST /api/v1/scan with an SBOM: a CycloneDX or SPDX JSON document as the body (by Content-Type)
// or under an `sbom` key, scanned component by component (purl with version) exactly as the same
// purls sent as `packages` would be. With `Accept: application/vnd.cyclonedx+json` any scan
// answers as a CycloneDX VEX document. Everything else goes on to the REST route: the REST body
// plugin (rest/body-plugin.ts) hands this the body it parsed, before reading it as the route's arguments.
import type { Services } from '../context.js';
import { badRequest } from '../errors.js';
import { oneOf, isAbsent } from '../params.js';
import { parseIssueFilters } from '../issues/filters.js';
import { severities } from '../issues/severities.js';
import { caughtFailure, errorResponse } from '../http/envelope.js';
import type { BodyHandler } from '../rest/body-plugin.js';
import { restBasePath } from '../rest/routes.js';
import { scanStack } from '../scan/scan.js';
import { parseStack } from '../scan/stack.js';
import { CYCLONEDX_MEDIA_TYPE, SPDX_MEDIA_TYPE, sbomComponents, type SbomComponent } from './parse.js';
import { vexDocument } from './vex.js';

const mediaTypeOf = (header: string | null) => header?.split(';')[0]!.trim().toLowerCase();
const wantsVex = (accept: string | null) => !!accept?.split(',').some((part) => mediaTypeOf(part) === CYCLONEDX_MEDIA_TYPE);

/** The scan's inputs from a JSON body: an SBOM (whole body or `sbom` key) or the plain packages/vendors. */
function scanInputs(body: unknown, mediaType: string | undefined): { components: SbomComponent[]; vendors?: unknown; severityMin?: unknown; since?: unknown } {
  if (mediaType === CYCLONEDX_MEDIA_TYPE || mediaType === SPDX_MEDIA_TYPE) return { components: sbomComponents(body, mediaType) };
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('The request body must be a JSON object');
  const { sbom, packages, vendors, severityMin, since, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown) throw badRequest(`Unknown field: ${unknown}`);
  if (sbom !== undefined) {
    if (packages !== undefined || vendors !== undefined) throw badRequest('Send either sbom or packages/vendors, not both');
    return { components: sbomComponents(sbom), severityMin, since };
  }
  // A plain scan asking for VEX: each package entry is its own component.
  const entries = Array.isArray(packages) ? packages.filter((p): p is string => typeof p === 'string') : [];
  return { components: entries.map((entry) => ({ ref: entry, purl: entry, name: entry })), vendors, severityMin, since };
}

export function sbomScan({ db, log }: Pick<Services, 'db' | 'log'>): BodyHandler {
  return async (request, parsed) => {
    const url = new URL(request.url);
    const mediaType = mediaTypeOf(request.headers.get('content-type'));
    const vex = wantsVex(request.headers.get('accept'));
    if ('invalid' in parsed) {
      if (!vex && mediaType !== CYCLONEDX_MEDIA_TYPE && mediaType !== SPDX_MEDIA_TYPE) return undefined; // the REST route's 400
      return errorResponse(400, 'The request body must be JSON');
    }
    const body = parsed.value;
    const isSbom = mediaType === CYCLONEDX_MEDIA_TYPE || mediaType === SPDX_MEDIA_TYPE || (!!body && typeof body === 'object' && 'sbom' in body);
    if (!isSbom && !vex) return undefined;
    try {
      const inputs = scanInputs(body, mediaType);
      const severityMin = isAbsent(inputs.severityMin) ? undefined : oneOf('severityMin', severities, inputs.severityMin);
      const { since } = parseIssueFilters({ since: inputs.since });
      const stack = parseStack(isSbom ? [...new Set(inputs.components.map((c) => c.purl))] : (body as { packages?: unknown }).packages, inputs.vendors);
      const result = await scanStack(db.read, stack, { severityMin, since });
      if (!vex) return Response.json(result);
      const document = vexDocument(result, inputs.components, { issueUrl: (id) => `${url.origin}${restBasePath}/issues/${id}` });
      return new Response(JSON.stringify(document), { headers: { 'Content-Type': `${CYCLONEDX_MEDIA_TYPE}; version=1.6` } });
    } catch (err) {
      const { status, message, headers } = caughtFailure(err, log);
      return errorResponse(status, message, headers);
    }
  };
}
