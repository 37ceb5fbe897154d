// A real HTTPS file server on 127.0.0.1 for source tests: serves bytes set per path, with an ETag,
// and answers 304 to a matching If-None-Match, like the upstreams the sources fetch from.
import { createHash } from 'node:crypto';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { testCertificate } from './https-receiver.js';

export interface FileServer {
  /** https://127.0.0.1:<port><path> */
  url(path: string): string;
  /** Serves `body` at `path` from now on (a new ETag when the bytes change). */
  set(path: string, body: Buffer | string): void;
  /** Answers `path` with a 302 to `to` (another path of this server) from now on. */
  redirect(path: string, to: string): void;
  /** Requests received per path, with the status answered. */
  log: { path: string; status: number }[];
  ca: string;
  close(): Promise<void>;
}

export async function startFileServer(): Promise<FileServer> {
  const { key, cert } = testCertificate();
  const files = new Map<string, { body: Buffer; etag: string }>();
  const redirects = new Map<string, string>();
  const log: FileServer['log'] = [];
  const server = createServer({ key, cert }, (req, res) => {
    const path = req.url ?? '/';
    const to = redirects.get(path);
    if (to) {
      log.push({ path, status: 302 });
      return res.writeHead(302, { location: to }).end();
    }
    const file = files.get(path);
    let status = 404;
    if (file && req.headers['if-none-match'] === file.etag) status = 304;
    else if (file) status = 200;
    log.push({ path, status });
    if (status !== 200) return res.writeHead(status, file ? { etag: file.etag } : {}).end();
    res.writeHead(200, { etag: file!.etag, 'content-length': file!.body.length }).end(file!.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `https://127.0.0.1:${port}${path}`,
    set(path, body) {
      const bytes = Buffer.from(body);
      files.set(path, { body: bytes, etag: `"${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}"` });
    },
    redirect: (path, to) => void redirects.set(path, to),
    log,
    ca: cert,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
