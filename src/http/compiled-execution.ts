// Repeated operations run compiled (graphql-jit): the executor's per-field work (collecting fields,
// completing values by type, building paths) is generated once per document as straight-line
// code. Every REST route runs one fixed document and GraphQL clients repeat theirs (Yoga's parse
// cache hands back the same document for the same text), so nearly every request runs compiled.
//
// A document is compiled on its second execution: compiling costs more than one interpreted run,
// so one-off documents (and a client sending endless new ones) never pay for it. Compiled queries
// live as long as their document (a WeakMap): as long as Yoga's bounded parse cache or SOFA's
// routes keep it. Subscriptions stay with graphql-js. A document graphql-jit cannot compile
// runs interpreted, as before. Its results are given graphql-js's own shape (errors first, each a
// graphql-js GraphQLError placed in the document), so clients see no difference; variables that
// do not coerce are run again interpreted, so their errors (and the 400) stay graphql-js's own.
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { getOperationAST, GraphQLError, type DocumentNode, type ExecutionResult, type OperationDefinitionNode, type Source } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../log.js';

/** Per document: times seen before compiling, the compiled query, or null when it cannot be compiled. */
type Entry = { seen: number } | { compiled: CompiledQuery; operation: OperationDefinitionNode } | null;

export function useCompiledExecution(log: Logger): Plugin {
  const byDocument = new WeakMap<DocumentNode, Map<string | undefined, Entry>>();
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      let byOperation = byDocument.get(args.document);
      if (!byOperation) byDocument.set(args.document, (byOperation = new Map()));
      const operationName = args.operationName ?? undefined;
      let entry = byOperation.get(operationName);
      if (entry === undefined) return void byOperation.set(operationName, { seen: 1 });
      if (entry !== null && 'seen' in entry) {
        const compiled = compileQuery(args.schema, args.document, operationName);
        const operation = getOperationAST(args.document, operationName);
        if (!isCompiledQuery(compiled)) log.warn('operation not compiled; it runs interpreted', { errors: compiled.errors?.map((e) => e.message) });
        entry = isCompiledQuery(compiled) && operation ? { compiled, operation } : null;
        byOperation.set(operationName, entry);
      }
      if (entry === null) return;
      const query = entry.compiled.query;
      const source = args.document.loc?.source;
      setExecuteFn((execution) => {
        const result = query(execution.rootValue, execution.contextValue, execution.variableValues);
        if (result instanceof Promise) return result.then((r) => asGraphqlJs(r, source));
        // No data at all: a request error, before anything ran (GraphQL spec 7.1.2), which here is
        // variables that do not coerce. graphql-jit words those its own way (and Yoga would answer
        // them 200, not 400): the interpreted run gives graphql-js's.
        return 'data' in result ? asGraphqlJs(result, source) : executeFn(execution);
      });
    },
  };
}

/**
 * graphql-jit's errors carry line and column but not the source positions Yoga rebuilds errors
 * from (it would drop their locations), and its result puts data first: as graphql-js builds them.
 */
function asGraphqlJs(result: ExecutionResult, source: Source | undefined): ExecutionResult {
  if (!result.errors?.length) return result;
  const errors = result.errors.map(
    (error) =>
      new GraphQLError(error.message, {
        source,
        positions: source ? error.locations?.map((l) => offsetOf(source.body, l.line, l.column)) : undefined,
        path: error.path,
        originalError: error.originalError,
        extensions: error.extensions,
      }),
  );
  return { errors, data: result.data, ...(result.extensions ? { extensions: result.extensions } : {}) };
}

/** The character offset of a 1-based line and column. */
function offsetOf(body: string, line: number, column: number): number {
  let at = 0;
  for (let l = 1; l < line; l++) at = body.indexOf('\n', at) + 1;
  return at + column - 1;
}
