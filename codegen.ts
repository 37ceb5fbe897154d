// GraphQL Code Generator: prints the Pothos schema to schema.graphql (committed, checked by a
// test). Run with `npm run codegen`.
import type { CodegenConfig } from '@graphql-codegen/cli';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from './src/schema/index.js';

const config: CodegenConfig = {
  schema: printSchema(lexicographicSortSchema(schema)),
  generates: {
    'schema.graphql': { plugins: ['schema-ast'], config: { includeDirectives: false, sort: true } },
  },
};

export default config;
