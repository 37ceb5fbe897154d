// GET /api/issues/export: the served issues as CSV (outside /api/v1, so a plain route rather than a
// SOFA one). The body streams from the database page by page; see src/issues/csv.ts.
import type { Plugin } from 'graphql-yoga';
import type { Services } from '../context.js';
import { issueCsvStream } from '../issues/csv.js';
import { servedIssue } from '../issues/served.js';

export const CSV_EXPORT_PATH = '/api/issues/export';
const LICENSE_LINK = '<https://creativecommons.org/licenses/by/4.0/>; rel="license"';

const envelope = (status: number, message: string, headers: Record<string, string> = {}) =>
  Response.json({ error: { message, status } }, { status, headers });

export function useCsvExport({ db, log }: Pick<Services, 'db' | 'log'>): Plugin {
  return {
    onRequest({ request, url, endResponse }) {
      if (url.pathname !== CSV_EXPORT_PATH) return;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return endResponse(envelope(405, `Method ${request.method} not allowed; use GET`, { Allow: 'GET, HEAD' }));
      }
      const date = new Date().toISOString().slice(0, 10);
      const headers = {
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': `attachment; filename="secwire-issues-${date}.csv"`,
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
        Link: LICENSE_LINK,
      };
      if (request.method === 'HEAD') return endResponse(new Response(null, { status: 200, headers }));
      const body = issueCsvStream(db.prisma, servedIssue, {
        onError: (err) => log.error('CSV export failed after the response started', { err }),
      });
      endResponse(new Response(body, { status: 200, headers }));
    },
  };
}
