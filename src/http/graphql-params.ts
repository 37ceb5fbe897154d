// GraphQL over GET (and form posts) carries `variables` and `extensions` as JSON text in the URL;
// Yoga parses it with JSON.parse and lets a SyntaxError through, which would be a masked 500.
// Broken JSON there is the client's mistake: a 400 that says which. A POST body that is not JSON
// is a 400 from Yoga already, but it copies the parser's own message into
// extensions.originalError; that is replaced by the same error without it.
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { badRequest } from '../errors.js';

export function useGraphQLParamErrors(): Plugin {
  return {
    onRequestParse({ requestParser, setRequestParser }) {
      if (!requestParser) return;
      const parse = requestParser;
      setRequestParser(async (request) => {
        try {
          return await parse(request);
        } catch (err) {
          if (err instanceof SyntaxError) throw badRequest('The variables and extensions parameters must be JSON');
          if (err instanceof GraphQLError && err.extensions.originalError) throw badRequest('The request body must be JSON');
          throw err;
        }
      });
    },
  };
}
