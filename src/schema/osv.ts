// OSV output (Query.osvRecord). The record is a JSON scalar, so REST answers the record itself, as
// OSV clients expect. The bulk zip is a plain route (src/osv-output/route.ts).
import { notFound } from '../errors.js';
import { columnsSql } from '../db/driver-read.js';
import { readServedIssue } from '../issues/reads.js';
import { osvIssueSelect, osvRecordOf } from '../osv-output/record.js';
import { builder } from './builder.js';

const osvColumns = columnsSql(Object.keys(osvIssueSelect));

builder.queryField('osvRecord', (t) =>
  t.field({
    type: 'JSON',
    nullable: true,
    description:
      'One served issue as an OSV record (OSV schema 1.7): aliases, affected packages and ranges as ingested, CVSS severity, references, ' +
      'and the classification under database_specific. An issue from an OSV advisory keeps its id (GHSA-..., PYSEC-...); others are ' +
      'x_secwire-<issue id>. NOT_FOUND (404) as for the issue itself.',
    args: { id: t.arg.id({ required: true, description: 'The issue UUID.' }) },
    resolve: async (_root, { id }, { db }) => {
      const issue = await readServedIssue<Parameters<typeof osvRecordOf>[0]>(db.read, osvColumns, String(id));
      if (!issue) throw notFound('Issue not found');
      return osvRecordOf(issue);
    },
  }),
);
