// A scan's matches as a CycloneDX 1.6 VEX document: the scanned components that matched, and one
// vulnerability per matching issue whose `affects` names those components' refs. The state is
// in_triage: the version lies in an affected range, which says nothing of reachability.
import { randomUUID } from 'node:crypto';
import packageJson from '../../package.json' with { type: 'json' };
import type { ScanResult } from '../scan/scan.js';
import type { SbomComponent } from './parse.js';

export interface VexOptions {
  issueUrl: (id: string) => string;
  /** When the document is one page of the findings (a watched stack's VEX): where it lies in them. */
  page?: { total: number; limit: number; offset: number };
}

export function vexDocument(result: ScanResult, components: SbomComponent[], { issueUrl, page }: VexOptions) {
  const byPurl = new Map<string, SbomComponent[]>();
  for (const c of components) byPurl.set(c.purl, [...(byPurl.get(c.purl) ?? []), c]);
  const matched = new Map<string, SbomComponent>();
  const vulnerabilities = result.data.map((match) => {
    const affected = match.matchedPackages.flatMap((purl) => byPurl.get(purl) ?? []);
    for (const c of affected) matched.set(c.ref, c);
    const source = { name: 'secwire', url: issueUrl(match.id) };
    return {
      'bom-ref': `secwire-issue-${match.id}`,
      id: match.cveId ?? match.id,
      source,
      ...(match.cveId ? { references: [{ id: match.id, source }] } : {}),
      ratings: [{ source, severity: match.severity, method: 'other' }],
      description: match.title,
      analysis: { state: 'in_triage', detail: 'The component version lies in an affected range of this issue.' },
      affects: [...new Set(affected.map((c) => c.ref))].map((ref) => ({ ref })),
    };
  });
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: `urn:uuid:${randomUUID()}`,
    version: 1,
    metadata: {
      timestamp: new Date().toISOString(),
      tools: { components: [{ type: 'application', name: 'secwire', version: packageJson.version }] },
      ...(page ? { properties: Object.entries(page).map(([name, value]) => ({ name: `secwire:${name}`, value: String(value) })) } : {}),
    },
    components: [...matched.values()].map((c) => ({
      type: 'library',
      'bom-ref': c.ref,
      name: c.name,
      ...(c.version ? { version: c.version } : {}),
      purl: c.purl,
    })),
    vulnerabilities,
  };
}
