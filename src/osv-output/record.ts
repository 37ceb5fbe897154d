// One served issue as an OSV record (https://ossf.github.io/osv-schema/): what osv-scanner and OSV
// clients read. An issue built from an OSV advisory keeps that advisory's id; any other issue gets
// an id under the private `x_secwire-` prefix, which the schema accepts. `affected` is the stored
// source's, as ingested; the classification goes in `database_specific`.
import ecosystemList from '../../data/osv-schema/ecosystems.json' with { type: 'json' };
import osvSchema from '../../data/osv-schema/schema.json' with { type: 'json' };
import type { Issue } from '../generated/prisma/client.js';
import type { OsvAffected, SourceRecord } from '../ingest/item.js';
import { contentChangedAt } from '../issues/content-changed.js';
import { formatCvssScore } from '../issues/served.js';

const OSV_SCHEMA_VERSION = '1.7.0';
const PRIVATE_ID_PREFIX = 'x_secwire-';

/** Ids the schema accepts: a registered prefix (GHSA-, PYSEC-, ...) or the private `x_`. */
const acceptedId = new RegExp(osvSchema.$defs.prefix.pattern);

/** OSV's own spelling of each ecosystem, by lower-cased name: native items may write "pypi". */
const ecosystemSpelling = new Map(Object.keys(ecosystemList).map((name) => [name.toLowerCase(), name]));

interface OsvReference {
  type: 'ADVISORY' | 'ARTICLE' | 'DETECTION' | 'DISCUSSION' | 'REPORT' | 'FIX' | 'INTRODUCED' | 'GIT' | 'PACKAGE' | 'EVIDENCE' | 'WEB';
  url: string;
}

export interface OsvRecord {
  schema_version: string;
  id: string;
  modified: string;
  published: string;
  aliases: string[];
  summary: string;
  details: string;
  severity?: { type: string; score: string }[];
  affected: OsvAffected[];
  references: OsvReference[];
  database_specific: Record<string, unknown>;
}

/** The issue's own fields under database_specific, in this order (the score as the API writes it). */
const classificationFields = [
  'severity',
  'issueType',
  'labels',
  'cvssSeverity',
  'cvssScore',
  'cweIds',
  'capecIds',
  'attackType',
  'atlasIds',
  'impactType',
  'attackSophistication',
  'aiComponentTargeted',
  'exploitMaturity',
  'llmSpecific',
  'epssScore',
  'kevDateAdded',
  'classifierModel',
  'classifierPromptVersion',
  'classifierConfidence',
] as const satisfies readonly (keyof Issue)[];

const recordFields = ['id', 'title', 'headline', 'summary', 'sourceUrl', 'publishedAt', 'changedHereAt', 'cvssVector', 'identifiers', 'source'] as const;

type OsvIssueField = (typeof recordFields)[number] | (typeof classificationFields)[number];
type OsvIssue = Pick<Issue, OsvIssueField>;

/** The columns a record is built from. */
export const osvIssueSelect = Object.fromEntries([...recordFields, ...classificationFields].map((name) => [name, true])) as Record<OsvIssueField, true>;

function osvIdOf(issue: OsvIssue, source: SourceRecord): string {
  return source.format === 'osv' && acceptedId.test(source.id) ? source.id : `${PRIVATE_ID_PREFIX}${issue.id}`;
}

function cvssSeverity(vector: string): { type: string; score: string } | undefined {
  if (/^CVSS:3\.[01]\//.test(vector)) return { type: 'CVSS_V3', score: vector };
  if (vector.startsWith('CVSS:4.0/')) return { type: 'CVSS_V4', score: vector };
  if (/^AV:[NAL]\//.test(vector)) return { type: 'CVSS_V2', score: vector };
  return undefined;
}

/** A URL as the schema's `uri` format wants it (spaces and the like escaped), or nothing. */
const uri = (raw: unknown) => (typeof raw === 'string' ? URL.parse(raw)?.href : undefined);

function referencesOf(issue: OsvIssue, source: SourceRecord): OsvReference[] {
  const record = source.record as { references?: { type?: string; url?: string }[] | string[] } | null;
  const given = (record?.references ?? []).map((r) =>
    typeof r === 'string' ? { type: 'WEB' as const, url: r } : { type: (r.type ?? 'WEB') as OsvReference['type'], url: r.url },
  );
  const byUrl = new Map<string, OsvReference>();
  for (const ref of [{ type: source.format === 'osv' ? 'ADVISORY' : 'WEB', url: issue.sourceUrl } as const, ...given]) {
    const url = uri(ref.url);
    if (url && !byUrl.has(url)) byUrl.set(url, { type: ref.type, url });
  }
  return [...byUrl.values()];
}

export function osvRecordOf(issue: OsvIssue): OsvRecord {
  const source = issue.source as unknown as SourceRecord;
  const id = osvIdOf(issue, source);
  const upstreamSeverity = source.format === 'osv' ? (source.record as { severity?: { type: string; score: string }[] }).severity : undefined;
  const severity = upstreamSeverity?.length ? upstreamSeverity : [issue.cvssVector && cvssSeverity(issue.cvssVector)].filter((s) => !!s);

  // An ecosystem OSV does not list would make the record invalid: it is kept, but beside `affected`.
  const affected: OsvAffected[] = [];
  const unlistedAffected: OsvAffected[] = [];
  for (const entry of source.affected ?? []) {
    const [name, ...suffix] = entry.package.ecosystem.split(':');
    const spelling = ecosystemSpelling.get((name ?? '').trim().toLowerCase());
    if (spelling) affected.push({ ...entry, package: { ...entry.package, ecosystem: [spelling, ...suffix].join(':') } });
    else unlistedAffected.push(entry);
  }

  return {
    schema_version: OSV_SCHEMA_VERSION,
    id,
    modified: contentChangedAt(issue).toISOString(),
    published: issue.publishedAt.toISOString(),
    aliases: issue.identifiers.filter((alias) => alias !== id && !alias.includes('://')).sort(),
    summary: issue.title,
    details: issue.summary ?? issue.headline ?? '',
    ...(severity.length ? { severity } : {}),
    affected,
    references: referencesOf(issue, source),
    database_specific: {
      secwireId: issue.id,
      ...Object.fromEntries(classificationFields.map((name) => [name, name === 'cvssScore' ? formatCvssScore(issue.cvssScore) : issue[name]])),
      ...(unlistedAffected.length ? { unlistedAffected } : {}),
    },
  };
}
