// Every error answer that is not JSON already gets the API's envelope: unknown paths anywhere
// (Yoga's bare 404), the rest of /api. GraphQL's own errors are JSON already and keep their shape.
import type { Plugin } from 'graphql-yoga';
import { restBasePath } from '../api-paths.js';
import { errorResponse } from './envelope.js';

/** The 404 of a path nothing answers, pointing at the REST docs. */
export const noRoute = (method: string, path: string) => errorResponse(404, `No route ${method} ${path} (see ${restBasePath}/docs)`);

export function useErrorEnvelope(): Plugin {
  return {
    onResponse({ request, response, setResponse }) {
      // JSON already (application/json, GraphQL's application/graphql-response+json), or a GraphQL
      // event stream, whose refusal (a subscription over its cap) is an error event in the stream.
      if (response.status < 400 || /[/+]json\b|^text\/event-stream/.test(response.headers.get('content-type') ?? '')) return;
      const enveloped = response.status === 404 ? noRoute(request.method, new URL(request.url).pathname) : errorResponse(response.status);
      response.headers.forEach((value, name) => {
        if (name !== 'content-type' && name !== 'content-length') enveloped.headers.set(name, value);
      });
      setResponse(enveloped);
    },
  };
}
