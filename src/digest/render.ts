// The daily digest's Markdown, a briefing before a list: the day's top items ranked by
// exploitation (known exploited, then EPSS), severity and reach, each with one line on what to do;
// what is exploited now (AI software added to CISA KEV in the week to the day); the day's attack
// types against the seven days before; a line on how fresh the feed is; then every item of the
// day, grouped by severity and then by issue type, each linking to its source.
import type { Prisma } from '../generated/prisma/client.js';
import type { IssueType } from '../generated/prisma/enums.js';
import type { Freshness } from '../issues/freshness.js';
import { isKnownExploited } from '../ingest/classifier/exploitation.js';
import { severities } from '../issues/severities.js';

/** The issue columns a digest reads. */
export const digestIssueSelect = {
  title: true,
  headline: true,
  summary: true,
  sourceUrl: true,
  severity: true,
  issueType: true,
  cveId: true,
  publishedAt: true,
  cvssScore: true,
  epssScore: true,
  kevDateAdded: true,
  exploitMaturity: true,
  solution: true,
  attackType: true,
  crossRefCount: true,
  affectedPackageRefs: true,
} satisfies Prisma.IssueSelect;
export type DigestIssue = Prisma.IssueGetPayload<{ select: typeof digestIssueSelect }>;

/** What a digest says beyond the day's own issues. */
export interface DigestContext {
  /** Served issues whose CVE CISA added to KEV in the seven days to the digest's date. */
  exploitedNow: DigestIssue[];
  /** Attack types of the served issues published in the seven days before the date. */
  previousWeek: Map<string, number>;
  freshness: Freshness;
}

export const TOP_ITEMS = 5;
/** An EPSS score from which exploitation is likely enough to rank above severity alone. */
const EPSS_LIKELY = 0.1;

const typeOrder: IssueType[] = ['vulnerability', 'incident', 'research', 'regulatory', 'news'];
const typeHeading: Record<IssueType, string> = {
  vulnerability: 'Vulnerabilities',
  incident: 'Incidents',
  research: 'Research',
  regulatory: 'Regulatory',
  news: 'News',
};
const capitalise = (s: string) => s[0]!.toUpperCase() + s.slice(1);

/** Link text must not close the link or break the line. */
function linkText(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/([\\[\]*_`<>])/g, '\\$1');
}

/** Plain text in a Markdown line: nothing in it may start emphasis, a link or HTML. */
const inline = (text: string) => text.replace(/\s+/g, ' ').replace(/([\\[\]*_`<>])/g, '\\$1');

function firstSentence(text: string | null): string | null {
  if (!text) return null;
  const sentence = /^.{20,280}?[.!?](\s|$)/.exec(text)?.[0] ?? (text.length > 280 ? `${text.slice(0, 279)}…` : text);
  return sentence.trim().replace(/\s+/g, ' ');
}

const knownExploited = (issue: DigestIssue) => isKnownExploited(issue.exploitMaturity);
const reach = (issue: DigestIssue) => issue.affectedPackageRefs.length + issue.crossRefCount;

/** Newest first; the link decides a tie, so a digest written twice reads the same. */
const newestFirst = (a: DigestIssue, b: DigestIssue) => b.publishedAt.getTime() - a.publishedAt.getTime() || a.sourceUrl.localeCompare(b.sourceUrl);

/**
 * Most urgent first: known exploited, then likely to be (EPSS), then severity, then the EPSS score
 * itself, then reach (packages affected and issues sharing a key), then the newest.
 */
export function rankIssues(issues: DigestIssue[]): DigestIssue[] {
  const tier = (i: DigestIssue) => (knownExploited(i) ? 2 : (i.epssScore ?? 0) >= EPSS_LIKELY ? 1 : 0);
  return [...issues].sort(
    (a, b) =>
      tier(b) - tier(a) ||
      severities.indexOf(a.severity) - severities.indexOf(b.severity) ||
      (b.epssScore ?? 0) - (a.epssScore ?? 0) ||
      reach(b) - reach(a) ||
      newestFirst(a, b),
  );
}

/** What to do, in one line: the issue's solution (built from its fixed versions, or its source's mitigation). */
export function actionLine(issue: DigestIssue): string {
  const solution = issue.solution?.replace(/\s+/g, ' ').trim();
  if (!solution || /^N\/A\b/.test(solution)) {
    return issue.issueType === 'vulnerability'
      ? 'No fixed version or mitigation published yet: limit exposure of the affected component and watch the advisory.'
      : 'Read the source; no product fix applies.';
  }
  return solution.length > 300 ? `${solution.slice(0, 299)}…` : solution;
}

function titleLink(issue: DigestIssue): string {
  const title = issue.headline ?? issue.title;
  const cve = issue.cveId && !title.includes(issue.cveId) ? ` (${issue.cveId})` : '';
  return `[${linkText(title)}](${issue.sourceUrl})${cve}`;
}

/** The facts an analyst ranks by, as written after an item. */
function facts(issue: DigestIssue): string {
  const parts: string[] = [issue.severity];
  if (issue.cvssScore !== null) parts.push(`CVSS ${Number(issue.cvssScore).toFixed(1)}`);
  if (issue.epssScore !== null) parts.push(`EPSS ${(issue.epssScore * 100).toFixed(1)}%`);
  if (knownExploited(issue)) parts.push(issue.kevDateAdded ? `known exploited (CISA KEV since ${issue.kevDateAdded})` : 'known exploited');
  const packages = issue.affectedPackageRefs.length;
  if (packages) parts.push(`${packages} ${packages === 1 ? 'package' : 'packages'}`);
  return parts.join(' · ');
}

const utcMinute = (date: Date) => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** One line on how current the feed is; it says so when nothing new arrived on the day or since. */
export function freshnessLine(date: string, { lastNewDataAt, newDataSources }: Freshness): string {
  // Without a source the time of the last change is only when the sample was loaded: not news.
  if (newDataSources.length === 0) return 'Freshness: no source has delivered data yet: the feed holds the bundled sample and items ingested by hand.';
  const latest = newDataSources[0]!.lastNewDataAt;
  const from = newDataSources
    .filter((s) => latest.getTime() - s.lastNewDataAt.getTime() < 24 * 3600_000)
    .slice(0, 5)
    .map((s) => s.name)
    .join(', ');
  const dayStart = new Date(`${date}T00:00:00.000Z`);
  if (!lastNewDataAt || lastNewDataAt < dayStart) {
    return `Freshness: nothing new arrived on ${date}; the feed last received data at ${utcMinute(latest)} (from ${from}).`;
  }
  return `Freshness: the feed last received new data at ${utcMinute(lastNewDataAt)} (latest sources: ${from}).`;
}

function attackTypeTable(date: string, issues: DigestIssue[], previousWeek: Map<string, number>): string[] {
  const today = new Map<string, number>();
  for (const issue of issues) for (const type of issue.attackType) today.set(type, (today.get(type) ?? 0) + 1);
  const types = [...new Set([...today.keys(), ...previousWeek.keys()])].sort(
    (a, b) => (today.get(b) ?? 0) - (today.get(a) ?? 0) || (previousWeek.get(b) ?? 0) - (previousWeek.get(a) ?? 0) || a.localeCompare(b),
  );
  if (types.length === 0) return [`No attack type was identified on ${date} or in the seven days before.`];
  return [
    `| attack type | ${date} | previous 7 days |`,
    '|---|---:|---:|',
    ...types.map((type) => `| ${inline(type.replace(/_/g, ' '))} | ${today.get(type) ?? 0} | ${previousWeek.get(type) ?? 0} |`),
  ];
}

export function renderDigest(date: string, issues: DigestIssue[], context: DigestContext): string {
  const lines = [`# secwire daily digest: ${date}`, ''];
  if (issues.length === 0) lines.push(`No new AI-security issues were published on ${date} (UTC).`, '');
  else {
    const counts = severities
      .map((s) => [s, issues.filter((i) => i.severity === s).length] as const)
      .filter(([, n]) => n > 0)
      .map(([s, n]) => `${n} ${s}`)
      .join(', ');
    lines.push(`${issues.length} ${issues.length === 1 ? 'issue was' : 'issues were'} published on ${date} (UTC): ${counts}.`, '');
  }
  lines.push(freshnessLine(date, context.freshness), '');

  if (issues.length > 0) {
    lines.push('## Top items', '');
    rankIssues(issues)
      .slice(0, TOP_ITEMS)
      .forEach((issue, index) => {
        lines.push(`${index + 1}. ${titleLink(issue)}: ${facts(issue)}`, `   - Action: ${inline(actionLine(issue))}`);
      });
    lines.push('');
  }

  lines.push('## Exploited now', '');
  if (context.exploitedNow.length === 0) lines.push(`No AI software was added to CISA KEV in the seven days to ${date}.`);
  for (const issue of rankIssues(context.exploitedNow)) {
    lines.push(`- ${titleLink(issue)}: added to CISA KEV on ${issue.kevDateAdded}. Action: ${inline(actionLine(issue))}`);
  }
  lines.push('');

  lines.push('## Attack types', '', ...attackTypeTable(date, issues, context.previousWeek), '');

  for (const severity of severities) {
    const ofSeverity = issues.filter((i) => i.severity === severity);
    if (ofSeverity.length === 0) continue;
    lines.push(`## ${capitalise(severity)}`, '');
    for (const type of typeOrder) {
      const group = ofSeverity.filter((i) => i.issueType === type).sort(newestFirst);
      if (group.length === 0) continue;
      lines.push(`### ${typeHeading[type]}`, '');
      for (const issue of group) {
        const summary = firstSentence(issue.summary);
        lines.push(`- ${titleLink(issue)}${summary ? `: ${inline(summary)}` : ''}`);
      }
      lines.push('');
    }
  }
  lines.push('---', 'Data licensed CC-BY-4.0; each item links to its source.');
  return lines.join('\n') + '\n';
}
