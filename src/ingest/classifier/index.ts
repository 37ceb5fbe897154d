// The classifier seam. Facts (identifiers, CVSS, CWE/CAPEC, packages, vendors) are read from the
// record the same way whatever classifies it; a Classifier makes the judgements. The rule-based
// one is the default; a model-backed one implements the same interface and its own versions.
import type { Item, IssueType, Severity } from '../item.js';
import { readCvss, readSeverityCvss, type CvssFacts } from './cvss.js';
import { capecIdsFor } from './cwe.js';
import { packageFacts, type PackageFacts } from './packages.js';
import type { ExploitMaturity } from './exploitation.js';
import type { Provenance } from './relevance.js';
import type { AiComponent, AttackType } from './tables.js';
import { vendorFacts, type VendorFacts } from './vendors.js';

export interface Facts {
  cveId: string | null;
  advisoryAliases: string[];
  cweIds: string[];
  capecIds: string[];
  /** The vector the spec's CVSS fields show (3.1 where there is one). */
  cvss: CvssFacts | null;
  /** The vector severity follows when the source reviewed none (4.0 where there is one). */
  severityCvss: CvssFacts | null;
  packages: PackageFacts;
  vendors: VendorFacts;
  affectedPackagesSource: string | null;
}

export interface Classification {
  relevant: boolean;
  issueType: IssueType;
  severity: Severity;
  labels: string[];
  attackType: AttackType[];
  aiComponentTargeted: AiComponent | null;
  impactType: string[];
  attackSophistication: 'trivial' | 'moderate' | 'advanced';
  exploitMaturity: ExploitMaturity;
  llmSpecific: boolean;
  atlasIds: string[];
  headline: string;
  summary: string;
  solution: string;
  affectedVendors: string[];
  researchCategory: string | null;
  classifierConfidence: number;
  /** OWASP Top 10 for LLM Applications 2025 ids the attack types imply (LLM-specific issues only). */
  owaspIds: string[];
  /** Why the item was judged relevant or not, stored with the issue. */
  provenance: Provenance;
}

export interface Classifier {
  /** Goes to Issue.classifierModel. */
  readonly model: string;
  /** Goes to Issue.classifierPromptVersion; a new version reclassifies on re-ingest. */
  readonly promptVersion: string;
  /**
   * `lookedUp`: what registries said of the item's packages where no list knows them, as
   * src/registry stored it (summaries that speak of AI/ML, by packageLookupKey).
   */
  classify(item: Item, facts: Facts, lookedUp?: ReadonlyMap<string, string>): Promise<Classification>;
}

function packagesSource(item: Item): string | null {
  if (item.affected.length === 0) return null;
  if (item.format === 'native') return 'native';
  if (item.sourceId.startsWith('GHSA-')) return 'ghsa';
  if (item.sourceId.startsWith('PYSEC-')) return 'pypa';
  return 'osv';
}

export function extractFacts(item: Item): Facts {
  const cveId = item.cveIds[0] ?? null;
  return {
    cveId,
    // Every identifier but the CVE the issue is filed under: GHSA, PYSEC, other CVEs, ...
    advisoryAliases: [...new Set([...item.cveIds.slice(1), ...item.otherIds])],
    cweIds: item.cweIds,
    capecIds: capecIdsFor(item.cweIds),
    cvss: readCvss(item.cvssVectors),
    severityCvss: readSeverityCvss(item.cvssVectors),
    packages: packageFacts(item.affected),
    vendors: vendorFacts(item),
    affectedPackagesSource: packagesSource(item),
  };
}
