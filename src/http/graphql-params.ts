// GraphQL over GET (and form posts) carries `variables` and `extensions` as JSON text in the URL;
// Yoga parses it with JSON.parse and lets a SyntaxError through, which would be a masked 500.
// Broken JSON there is the client's mistake: a 400 that says which.
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
          throw err;
        }
      });
    },
  };
}
