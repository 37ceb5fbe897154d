// GraphQL Code Generator: prints the Pothos schema to schema.graphql (committed, checked by a
// test) and writes typed documents for the named operations in test/operations (not committed).
// Run with `npm run codegen`.
import type { CodegenConfig } from '@graphql-codegen/cli';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from './src/schema/index.js';

const sdl = printSchema(lexicographicSortSchema(schema));

const config: CodegenConfig = {
  schema: sdl,
  documents: ['test/operations/**/*.graphql', 'src/rest/operations/**/*.graphql'],
  ignoreNoDocuments: true,
  generates: {
    'schema.graphql': { plugins: ['schema-ast'], config: { includeDirectives: false, sort: true } },
    'src/generated/graphql.ts': {
      plugins: ['typescript', 'typescript-operations', 'typed-document-node'],
      config: { useTypeImports: true, enumsAsTypes: true, scalars: { DateTime: 'string', JSON: 'unknown' } },
    },
  },
};

export default config;
