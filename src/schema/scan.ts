// Stack scan: Query.scan.
import { filterDescriptions, parseIssueFilters } from '../issues/filters.js';
import { scanStack, type ScanMatch, type ScanResult, type SeverityCounts } from '../scan/scan.js';
import { parseStack } from '../scan/stack.js';
import { builder, envelopeRef } from './builder.js';
import { SeverityEnum } from './issue-type.js';

export const ScanMatchRef = builder.objectRef<ScanMatch>('ScanMatch').implement({
  description: 'An issue that matches the scanned stack.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Issue id (UUID).' }),
    title: t.exposeString('title', { description: 'Issue title.' }),
    severity: t.expose('severity', { type: SeverityEnum, description: 'Issue severity.' }),
    cveId: t.exposeString('cveId', { nullable: true, description: 'CVE identifier.' }),
    matchedPackages: t.exposeStringList('matchedPackages', { description: 'The requested package entries that matched, as written; may be empty.' }),
    matchedVendors: t.exposeStringList('matchedVendors', { description: 'The requested vendor names that matched, as written; may be empty.' }),
  }),
});

const SeverityCountsRef = builder.objectRef<SeverityCounts>('SeverityCounts').implement({
  description: 'Number of matches per severity; every key is always present.',
  fields: (t) => ({
    critical: t.exposeInt('critical', { description: 'Critical matches.' }),
    high: t.exposeInt('high', { description: 'High matches.' }),
    medium: t.exposeInt('medium', { description: 'Medium matches.' }),
    low: t.exposeInt('low', { description: 'Low matches.' }),
    info: t.exposeInt('info', { description: 'Informational matches.' }),
  }),
});

const ScanMetaRef = builder.objectRef<ScanResult['meta']>('ScanMeta').implement({
  description: 'Totals of a scan.',
  fields: (t) => ({
    total: t.exposeInt('total', { description: 'Number of matching issues.' }),
    bySeverity: t.field({ type: SeverityCountsRef, description: 'Matches per severity; sums to total.', resolve: (meta) => meta.bySeverity }),
  }),
});

const ScanResultRef = envelopeRef('ScanResult', {
  description: 'A scan result under `data`.',
  data: { type: [ScanMatchRef], description: 'Matching issues, by severity (critical first), then newest first.' },
  meta: { type: ScanMetaRef, description: 'Total and severity histogram.' },
});

builder.queryField('scan', (t) =>
  t.field({
    type: ScanResultRef,
    description:
      'Served issues that affect a technology stack. A package entry is a name (case-insensitive), name@version or a purl; ' +
      'with a version, an issue matches only when that version lies inside one of its affected ranges, so fixed versions drop out ' +
      '(a version that cannot be ordered is reported rather than hidden). Vendors match normalised and raw vendor names. ' +
      'At least one package or vendor; at most 1000 of each, 200 characters each.',
    args: {
      packages: t.arg.stringList({ description: 'Package names, name@version entries or purls, e.g. langchain@0.0.300, pkg:npm/%40langchain/core@0.1.2.' }),
      vendors: t.arg.stringList({ description: 'Vendor names, e.g. openai.' }),
      severityMin: t.arg({ type: SeverityEnum, description: 'Minimum severity; critical > high > medium > low > info.' }),
      since: t.arg.string({ description: filterDescriptions.since }),
    },
    resolve: (_root, args, { db }) => {
      const stack = parseStack(args.packages, args.vendors);
      const { since } = parseIssueFilters({ since: args.since });
      return scanStack(db.read, stack, { severityMin: args.severityMin ?? undefined, since });
    },
  }),
);
