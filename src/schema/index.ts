// Importing each domain file registers its types and fields on the builder.
import { builder } from './builder.js';
import './issue-type.js';
import './issue.js';
import './digest.js';
import './stats.js';
import './admin.js';
import './source.js';
import './scan.js';
import './stix.js';
import './osv.js';
import './webhook.js';
import './stack.js';
import './new-issues.js';
import { withStorableText } from './storable-text.js';

export const schema = withStorableText(builder.toSchema({ sortSchema: false }));
