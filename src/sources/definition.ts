// What an operator lists as sources (SOURCES or the file SOURCES_FILE names, read by
// src/config.ts): a name, a kind, an https URL or a local path, and how often to sync it.
import { z } from 'zod';
import { IssueType } from '../generated/prisma/enums.js';

/** The labels an issue may carry (the seed's set); each issue type implies its own (ingest/classifier/rules.ts). */
export const issueLabels = ['security', 'research', 'industry', 'policy', 'privacy', 'safety'] as const;
export type IssueLabel = (typeof issueLabels)[number];

export const sourceKinds = ['osv-zip', 'osv-dir', 'kev', 'epss', 'feed'] as const;

const location = z.string().refine((v) => {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) return v.length > 0;
  try {
    return new URL(v).protocol === 'https:';
  } catch {
    return false;
  }
}, 'must be an https:// URL or a local path');

export const sourceDefinition = z
  .strictObject({
    name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'must be lowercase letters, digits, - or _ (at most 63)'),
    kind: z.enum(sourceKinds),
    location,
    /** Minutes between syncs when the server runs them. */
    intervalMinutes: z
      .number()
      .int()
      .min(1)
      .max(7 * 24 * 60)
      .default(60),
    /**
     * feed only: the issue type of every entry (an arXiv listing is research, a regulator's feed
     * regulatory) and labels every entry carries, when the entry itself says nothing else.
     */
    issueType: z.enum(IssueType).optional(),
    labels: z.array(z.enum(issueLabels)).max(issueLabels.length).optional(),
    /**
     * feed only: false keeps each entry's title, link and date, never its summary text. For feeds
     * whose text is under terms the feed's own licence cannot carry (CC BY-SA, data/sources/README.md).
     */
    summaries: z.boolean().optional(),
  })
  .refine((s) => s.kind !== 'osv-dir' || !/^https:\/\//i.test(s.location), { message: 'an osv-dir location must be a local directory', path: ['location'] })
  .refine((s) => s.kind === 'feed' || (s.issueType === undefined && s.labels === undefined && s.summaries === undefined), {
    message: 'issueType, labels and summaries are for a feed source only',
    path: ['kind'],
  });

export type SourceDefinition = z.infer<typeof sourceDefinition>;

export const sourceList = z.array(sourceDefinition).refine((list) => new Set(list.map((s) => s.name)).size === list.length, 'source names must be unique');
