// The daily digest's Markdown: what was published that UTC day, grouped by severity and then by
// issue type, each item linking to its source.
import type { Prisma } from '../generated/prisma/client.js';
import type { IssueType, Severity } from '../generated/prisma/enums.js';

/** The issue columns a digest reads. */
export const digestIssueSelect = { title: true, headline: true, summary: true, sourceUrl: true, severity: true, issueType: true, cveId: true, publishedAt: true } satisfies Prisma.IssueSelect;
export type DigestIssue = Prisma.IssueGetPayload<{ select: typeof digestIssueSelect }>;

const severityOrder: Severity[] = ['critical', 'high', 'medium', 'low', 'info'];
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
  return text.replace(/\s+/g, ' ').replace(/([\\[\]])/g, '\\$1');
}

function firstSentence(text: string | null): string | null {
  if (!text) return null;
  const sentence = /^.{20,280}?[.!?](\s|$)/.exec(text)?.[0] ?? (text.length > 280 ? `${text.slice(0, 279)}…` : text);
  return sentence.trim().replace(/\s+/g, ' ');
}

export function renderDigest(date: string, issues: DigestIssue[]): string {
  const lines = [`# secwire daily digest: ${date}`, ''];
  if (issues.length === 0) {
    lines.push(`No new AI-security issues were published on ${date} (UTC).`);
    return lines.join('\n') + '\n';
  }
  const sections = severityOrder.map((s) => [s, issues.filter((i) => i.severity === s)] as const).filter(([, of]) => of.length > 0);
  const counts = sections.map(([s, of]) => `${of.length} ${s}`).join(', ');
  lines.push(`${issues.length} ${issues.length === 1 ? 'issue was' : 'issues were'} published on ${date} (UTC): ${counts}.`, '');
  for (const [severity, ofSeverity] of sections) {
    lines.push(`## ${capitalise(severity)}`, '');
    for (const type of typeOrder) {
      const group = ofSeverity.filter((i) => i.issueType === type).sort((a, b) => b.publishedAt.getTime() - a.publishedAt.getTime());
      if (group.length === 0) continue;
      lines.push(`### ${typeHeading[type]}`, '');
      for (const issue of group) {
        const cve = issue.cveId && !(issue.headline ?? issue.title).includes(issue.cveId) ? ` (${issue.cveId})` : '';
        const summary = firstSentence(issue.summary);
        lines.push(`- [${linkText(issue.headline ?? issue.title)}](${issue.sourceUrl})${cve}${summary ? `: ${summary}` : ''}`);
      }
      lines.push('');
    }
  }
  lines.push('---', 'Data licensed CC-BY-4.0; each item links to its source.');
  return lines.join('\n') + '\n';
}
