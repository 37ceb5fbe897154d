// The columns a GraphQL operation reads of a model (Issue, Digest), worked out once per operation
// document instead of per field and row (Pothos' prisma selection mapping wrapped every field of
// every row: a quarter of a list request's CPU). Every field of those types is the column of the
// same name, so the columns are the field names selected under its objects, plus the id; the
// Issue's raw source record and the other internal columns are never read because no field names them.
import { Kind, type FieldNode, type FragmentDefinitionNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import { columnsSql } from '../db/driver-read.js';
import { Prisma } from '../generated/prisma/client.js';

/** The fields of a selection set, through inline fragments and fragment spreads. */
function fieldsOf(set: SelectionSetNode | undefined, fragments: Record<string, FragmentDefinitionNode>, out: FieldNode[] = []): FieldNode[] {
  for (const selection of set?.selections ?? []) {
    if (selection.kind === Kind.FIELD) out.push(selection);
    else if (selection.kind === Kind.INLINE_FRAGMENT) fieldsOf(selection.selectionSet, fragments, out);
    else fieldsOf(fragments[selection.name.value]?.selectionSet, fragments, out);
  }
  return out;
}

/** @skip/@include are not evaluated: a field they may drop is still read, which is only a column more. */
function columnsFor(columns: ReadonlySet<string>, info: GraphQLResolveInfo, path: readonly string[]): Prisma.Sql {
  let nodes: FieldNode[] = [...info.fieldNodes];
  for (const name of path) nodes = nodes.flatMap((node) => fieldsOf(node.selectionSet, info.fragments).filter((f) => f.name.value === name));
  const selected = new Set(['id']);
  for (const node of nodes) {
    for (const field of fieldsOf(node.selectionSet, info.fragments)) if (columns.has(field.name.value)) selected.add(field.name.value);
  }
  // The names are the model's own columns.
  return columnsSql(selected);
}

/**
 * For a model's columns: the SELECT list (db/driver-read.ts) for its objects under `path` of the
 * resolving field (`['data']` for a `{data, meta}` envelope, `[]` for a field that returns them
 * itself).
 */
function columnList(columnNames: Record<string, string>) {
  const columns: ReadonlySet<string> = new Set(Object.values(columnNames));
  // Keyed by the operation's AST node: a parsed document is reused for every request that sends it
  // (Yoga's parse cache; SOFA's fixed operations), so each operation is walked once.
  const cache = new WeakMap<FieldNode, Map<string, Prisma.Sql>>();
  return (info: GraphQLResolveInfo, path: readonly string[]): Prisma.Sql => {
    const key = info.fieldNodes[0]!;
    let byPath = cache.get(key);
    if (!byPath) cache.set(key, (byPath = new Map()));
    const pathKey = path.join('.');
    let list = byPath.get(pathKey);
    if (!list) byPath.set(pathKey, (list = columnsFor(columns, info, path)));
    return list;
  };
}

export const issueColumns = columnList(Prisma.IssueScalarFieldEnum);
export const digestColumns = columnList(Prisma.DigestScalarFieldEnum);
