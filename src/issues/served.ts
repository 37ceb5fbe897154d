import type { Prisma } from '../generated/prisma/client.js';

/** Only relevant, processed, non-withdrawn issues are ever served, on any surface. */
export const servedIssue = { relevant: true, processed: true, withdrawn: false } satisfies Prisma.IssueWhereInput;
