// Validates STIX 2.1 bundles against the OASIS JSON schemas (draft 2020-12) and checks that every
// *_ref / *_refs property points at an object inside the bundle. The schemas are vendored in
// data/stix2.1-schemas (BSD-3-Clause, see its NOTICE.txt), so a fresh clone needs nothing beside it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const SCHEMA_BASE = 'http://raw.githubusercontent.com/oasis-open/cti-stix2-json-schemas/stix2.1/schemas/';

const SCHEMAS_DIR = fileURLToPath(new URL('../../data/stix2.1-schemas/schemas', import.meta.url));

function loadValidator() {
  const root = SCHEMAS_DIR;
  // strict: false: the OASIS schemas use annotations (e.g. "title" inside allOf) that strict mode rejects;
  // unicodeRegExp: false: their patterns escape "-" (\-), which is invalid in a unicode-mode RegExp.
  const ajv = new Ajv2020({ strict: false, allErrors: true, unicodeRegExp: false });
  addFormats.default(ajv);
  // Only the domain-name observable uses it and ajv-formats has no checker; accept it rather than warn.
  ajv.addFormat('idn-hostname', true);
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.json') ? [join(dir, e.name)] : []));
  const files = walk(root);
  if (files.length < 50) throw new Error(`expected the full OASIS schema tree in ${root}, found ${files.length} files`);
  for (const file of files) ajv.addSchema(JSON.parse(readFileSync(file, 'utf8')));
  const schema = (path: string) =>
    ajv.getSchema(SCHEMA_BASE + path) ??
    (() => {
      throw new Error(`schema ${path} missing`);
    })();
  return { bundle: schema('common/bundle.json') as ValidateFunction, schema };
}

let validator: ReturnType<typeof loadValidator> | undefined;

const schemaPathOf = (type: string) =>
  type === 'relationship' || type === 'sighting'
    ? `sros/${type}.json`
    : type === 'marking-definition' || type === 'language-content'
      ? `common/${type}.json`
      : `sdos/${type}.json`;

export interface StixProblems {
  schemaErrors: string[];
  danglingRefs: string[];
}

const describe = (where: string, errors: ErrorObject[] | null | undefined) =>
  (errors ?? []).map((e) => `${where}${e.instancePath} ${e.message} (${e.schemaPath})`);

/** Schema errors (whole bundle, then each object against its own type's schema) and dangling references. */
export function checkBundle(bundle: unknown): StixProblems {
  validator ??= loadValidator();
  const schemaErrors: string[] = [];
  if (!validator.bundle(bundle)) schemaErrors.push(...describe('bundle', validator.bundle.errors));
  const objects = (bundle as { objects?: { id: string; type: string }[] }).objects ?? [];
  for (const object of objects) {
    const validate = validator.schema(schemaPathOf(object.type));
    if (!validate(object)) schemaErrors.push(...describe(object.id, validate.errors));
  }
  const ids = new Set(objects.map((o) => o.id));
  const danglingRefs: string[] = [];
  const visit = (value: unknown, path: string) => {
    if (Array.isArray(value)) value.forEach((v, i) => visit(v, `${path}[${i}]`));
    else if (value && typeof value === 'object') {
      for (const [key, v] of Object.entries(value)) {
        const refs = key.endsWith('_ref') ? [v] : key.endsWith('_refs') && Array.isArray(v) ? v : [];
        for (const ref of refs) if (typeof ref !== 'string' || !ids.has(ref)) danglingRefs.push(`${path}.${key} -> ${String(ref)}`);
        visit(v, `${path}.${key}`);
      }
    }
  };
  for (const object of objects) visit(object, object.id);
  return { schemaErrors, danglingRefs };
}
