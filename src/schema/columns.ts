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

type Select = Record<string, true>;

/** @skip/@include are not evaluated: a field they may drop is still read, which is only a column more. */
function selectFor(columns: ReadonlySet<string>, info: GraphQLResolveInfo, path: readonly string[]): Select {
  let nodes: FieldNode[] = [...info.fieldNodes];
  for (const name of path) nodes = nodes.flatMap((node) => fieldsOf(node.selectionSet, info.fragments).filter((f) => f.name.value === name));
  const select: Select = { id: true };
  for (const node of nodes) {
    for (const field of fieldsOf(node.selectionSet, info.fragments)) if (columns.has(field.name.value)) select[field.name.value] = true;
  }
  return select;
}

/**
 * For a model's columns: the Prisma `select` for its objects under `path` of the resolving field
 * (`['data']` for a `{data, meta}` envelope, `[]` for a field that returns them itself), to spread
 * into the Prisma call. Typed as `{}` so the call keeps the model's row type. Callers must not
 * change it (it is shared).
 */
function columnSelection(columnNames: Record<string, string>) {
  const columns: ReadonlySet<string> = new Set(Object.values(columnNames));
  // Keyed by the operation's AST node: a parsed document is reused for every request that sends it
  // (Yoga's parse cache; the REST gate's fixed operations), so each operation is walked once.
  const cache = new WeakMap<FieldNode, Map<string, Select>>();
  return (info: GraphQLResolveInfo, path: readonly string[]): {} => {
    const key = info.fieldNodes[0]!;
    let byPath = cache.get(key);
    if (!byPath) cache.set(key, (byPath = new Map()));
    const pathKey = path.join('.');
    let select = byPath.get(pathKey);
    if (!select) byPath.set(pathKey, (select = selectFor(columns, info, path)));
    return { select };
  };
}

/** The same columns as a SELECT list, for a statement written in SQL (db/driver-read.ts). */
function columnList(selection: ReturnType<typeof columnSelection>) {
  const lists = new WeakMap<Select, Prisma.Sql>();
  return (info: GraphQLResolveInfo, path: readonly string[]): Prisma.Sql => {
    const { select } = selection(info, path) as { select: Select };
    let list = lists.get(select);
    // The names are the model's own columns (selectFor keeps no other).
    if (!list) lists.set(select, (list = columnsSql(Object.keys(select))));
    return list;
  };
}

export const issueSelection = columnSelection(Prisma.IssueScalarFieldEnum);
export const digestSelection = columnSelection(Prisma.DigestScalarFieldEnum);
export const issueColumns = columnList(issueSelection);
export const digestColumns = columnList(digestSelection);
