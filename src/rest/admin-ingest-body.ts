// POST /api/v1/admin/ingest takes one OSV record, an array of records, or {items: [...]} as its
// body. SOFA maps a body's top-level keys to arguments, so only the last form reaches
// Mutation.ingestItems(items) as it is; the other two are wrapped as {items: [...]} here, before
// the REST router reads the body. Bodies that are not JSON pass untouched and get the router's 400.
import type { Plugin } from 'graphql-yoga';
import { replacingRequest } from '../http/request-id.js';
import { restBasePath } from './routes.js';

export const adminIngestPath = `${restBasePath}/admin/ingest`;

const isItemsEnvelope = (value: unknown) =>
  !!value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 1 && 'items' in value;

export function useAdminIngestBody(): Plugin {
  return {
    async onRequest({ request, url, setRequest }) {
      if (request.method !== 'POST' || url.pathname !== adminIngestPath) return;
      const text = await request.clone().text();
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return;
      }
      if (isItemsEnvelope(value)) return;
      // Wrapped as text: the body already parsed, and re-serialising a deeply nested one would
      // overflow the stack (a 500 for anyone, key or not).
      const items = Array.isArray(value) ? text : `[${text}]`;
      setRequest(replacingRequest(request, new Request(request.url, { method: 'POST', headers: request.headers, body: `{"items":${items}}` })));
    },
  };
}
