// The components of an SBOM that scan can check: each one's reference in the document and its
// purl with a version. CycloneDX JSON 1.4 to 1.6 (nested components included) and SPDX 2.3 JSON.
import { PackageURL } from 'packageurl-js';
import { badRequest, appError } from '../errors.js';
import { MAX_ENTRIES } from '../scan/stack.js';

export const CYCLONEDX_MEDIA_TYPE = 'application/vnd.cyclonedx+json';
export const SPDX_MEDIA_TYPE = 'application/spdx+json';
const CYCLONEDX_VERSIONS = ['1.4', '1.5', '1.6'];

/** How deep CycloneDX components may nest: real ones nest a few levels (a package in an image). */
export const MAX_COMPONENT_DEPTH = 32;
/** How many components (with or without a purl) a document may list, nested ones included. */
export const MAX_COMPONENTS = 10 * MAX_ENTRIES;

export interface SbomComponent {
  /** bom-ref (CycloneDX) or SPDXID (SPDX); made from the purl when the document gives none. */
  ref: string;
  /** With the version, when the document gives one. */
  purl: string;
  name: string;
  version?: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);
/** A non-empty string field; text that is not well-formed Unicode (a lone surrogate) is refused. */
function text(value: unknown): string | undefined {
  if (typeof value !== 'string' || !value.trim()) return undefined;
  if (/\p{Cs}/u.test(value)) throw badRequest('The SBOM holds text that is not valid Unicode (a lone surrogate)');
  return value.trim();
}

function tooMany(count: number): never {
  throw appError('PAYLOAD_TOO_LARGE', `The SBOM lists more than ${MAX_COMPONENTS} components (${count} so far); split it`);
}

/** The purl with the component's version added when the purl itself has none. */
function versioned(purl: string, version: string | undefined): string {
  if (!version || /@[^/]+$/.test(purl.split(/[?#]/)[0]!)) return purl;
  const [base, ...rest] = purl.split(/(?=[?#])/);
  return `${base}@${encodeURIComponent(version)}${rest.join('')}`;
}

/**
 * A CycloneDX machine-learning-model component without a purl: its Hugging Face id (group/name, or
 * a name such as "meta-llama/Llama-3.1-8B") as a pkg:huggingface purl, so it is watched and scanned
 * like any component.
 */
function modelPurl(component: Record<string, unknown>): string | undefined {
  const name = text(component.name);
  if (component.type !== 'machine-learning-model' || !name) return undefined;
  const full = [text(component.group), name].filter(Boolean).join('/');
  const slash = full.lastIndexOf('/');
  return new PackageURL('huggingface', slash > 0 ? full.slice(0, slash) : undefined, full.slice(slash + 1), undefined, undefined, undefined).toString();
}

function cycloneDxComponents(bom: Record<string, unknown>): SbomComponent[] {
  if (!CYCLONEDX_VERSIONS.includes(String(bom.specVersion))) {
    throw badRequest(`CycloneDX specVersion must be one of ${CYCLONEDX_VERSIONS.join(', ')}`);
  }
  const found: SbomComponent[] = [];
  // Depth first with an explicit stack, in document order (a component, then the ones inside it):
  // a document nested thousands deep is refused at the bound instead of overflowing the call stack.
  const open: { list: unknown[]; next: number }[] = [];
  let seen = 0;
  const enter = (list: unknown) => {
    if (list === undefined) return;
    if (!Array.isArray(list)) throw badRequest('CycloneDX components must be a list');
    if (open.length >= MAX_COMPONENT_DEPTH) throw badRequest(`CycloneDX components may nest at most ${MAX_COMPONENT_DEPTH} levels deep`);
    if ((seen += list.length) > MAX_COMPONENTS) tooMany(seen);
    open.push({ list, next: 0 });
  };
  enter(bom.components);
  while (open.length) {
    const top = open[open.length - 1]!;
    if (top.next === top.list.length) {
      open.pop();
      continue;
    }
    const component = top.list[top.next++];
    if (!isObject(component)) throw badRequest('each CycloneDX component must be an object');
    const purl = text(component.purl) ?? modelPurl(component);
    const version = text(component.version);
    if (purl) found.push({ ref: text(component['bom-ref']) ?? purl, purl: versioned(purl, version), name: text(component.name) ?? purl, version });
    enter(component.components);
  }
  return found;
}

function spdxComponents(doc: Record<string, unknown>): SbomComponent[] {
  if (doc.spdxVersion !== 'SPDX-2.3') throw badRequest('SPDX spdxVersion must be SPDX-2.3');
  if (doc.packages !== undefined && !Array.isArray(doc.packages)) throw badRequest('SPDX packages must be a list');
  const found: SbomComponent[] = [];
  const packages = (doc.packages as unknown[] | undefined) ?? [];
  if (packages.length > MAX_COMPONENTS) tooMany(packages.length);
  for (const pkg of packages) {
    if (!isObject(pkg)) throw badRequest('each SPDX package must be an object');
    const refs = Array.isArray(pkg.externalRefs) ? pkg.externalRefs.filter(isObject) : [];
    const version = text(pkg.versionInfo);
    for (const ref of refs) {
      const purl = ref.referenceType === 'purl' ? text(ref.referenceLocator) : undefined;
      if (purl) found.push({ ref: text(pkg.SPDXID) ?? purl, purl: versioned(purl, version), name: text(pkg.name) ?? purl, version });
    }
  }
  return found;
}

/** The document's format from the media type, or else from its own marker fields. */
export function sbomComponents(document: unknown, mediaType?: string): SbomComponent[] {
  if (!isObject(document)) throw badRequest('The SBOM must be a JSON object');
  const spdx = mediaType === SPDX_MEDIA_TYPE || (mediaType !== CYCLONEDX_MEDIA_TYPE && typeof document.spdxVersion === 'string');
  if (!spdx && document.bomFormat !== 'CycloneDX') throw badRequest('The SBOM must be CycloneDX JSON (bomFormat "CycloneDX") or SPDX 2.3 JSON');
  const components = spdx ? spdxComponents(document) : cycloneDxComponents(document);
  if (components.length === 0) throw badRequest('The SBOM lists no component with a purl');
  const purls = new Set(components.map((c) => c.purl));
  if (purls.size > MAX_ENTRIES) {
    throw appError('PAYLOAD_TOO_LARGE', `The SBOM lists ${purls.size} distinct purls; at most ${MAX_ENTRIES} are scanned per request`);
  }
  return components;
}
