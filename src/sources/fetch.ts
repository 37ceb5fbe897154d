// Brings a source's file to local disk, or says it has not changed. Remote sources are https only,
// through the webhooks' SSRF guard (checked before the request and again on the addresses dialled),
// with conditional requests, a timeout, retries with backoff and a size limit. Local paths are
// compared by modification time and size.
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { request, type RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { checkLiteralTarget, checkTargetUrl, guardedLookup, TargetRefused } from '../webhooks/ssrf.js';

/** What identifies the version fetched last: HTTP validators, or a local file's mtime and size. */
export interface Validators {
  etag?: string;
  lastModified?: string;
  mtimeMs?: number;
  size?: number;
}

export interface FetchOptions {
  allowPrivate: boolean;
  validators: Validators;
  timeoutMs?: number;
  maxBytes?: number;
  attempts?: number;
  /** The wait before the second attempt (SOURCES_RETRY_MS); each later one waits 4 times longer. */
  retryMs?: number;
  /** Extra CA certificates to trust (tests serve files over HTTPS with their own certificate). */
  ca?: string;
  onRetry?: (attempt: number, err: Error) => void;
}

export type Fetched = { changed: false } | { changed: true; path: string; validators: Validators; cleanup: () => Promise<void> };

/** A failure worth telling the operator as is (no stack, no library wording). */
export class SourceError extends Error {
  constructor(
    message: string,
    readonly retryable = false,
  ) {
    super(message);
  }
}

export const defaultMaxBytes = 1024 * 1024 * 1024;

export async function fetchSource(location: string, options: FetchOptions): Promise<Fetched> {
  if (!/^https:\/\//i.test(location)) return localFile(location, options.validators);
  const attempts = options.attempts ?? 3;
  for (let attempt = 1; ; attempt++) {
    try {
      return await download(location, options);
    } catch (err) {
      const error = err instanceof SourceError ? err : new SourceError(`fetch failed: ${(err as Error).message}`, true);
      if (!error.retryable || attempt >= attempts) throw error;
      options.onRetry?.(attempt, error);
      // 1 s, 4 s, 16 s, ... (by default) with jitter, so instances retrying together spread out.
      await sleep(4 ** (attempt - 1) * (options.retryMs ?? 1000) * (0.5 + Math.random() / 2));
    }
  }
}

async function localFile(path: string, previous: Validators): Promise<Fetched> {
  const info = await stat(path).catch(() => {
    throw new SourceError(`cannot read ${path}`);
  });
  const validators = { mtimeMs: info.mtimeMs, size: info.size };
  // A directory's own mtime says little about the files below it: it is always walked.
  if (!info.isDirectory() && previous.mtimeMs === info.mtimeMs && previous.size === info.size) return { changed: false };
  return { changed: true, path, validators, cleanup: async () => {} };
}

/** Redirects followed per fetch (EPSS's "current" file is a redirect to the day's file). */
const maxRedirects = 5;

async function download(location: string, options: FetchOptions, redirects = 0): Promise<Fetched> {
  let url: URL;
  try {
    url = await checkTargetUrl(location, { allowPrivate: options.allowPrivate });
    checkLiteralTarget(url, options.allowPrivate);
  } catch (err) {
    if (err instanceof TargetRefused) throw new SourceError(`source ${err.message.replace(/^url/, 'URL')}`);
    throw err;
  }
  const { etag, lastModified } = options.validators;
  const requestOptions: RequestOptions = {
    method: 'GET',
    headers: {
      'user-agent': 'secwire-sync',
      'accept-encoding': 'identity',
      ...(etag ? { 'if-none-match': etag } : {}),
      ...(lastModified ? { 'if-modified-since': lastModified } : {}),
    },
    timeout: options.timeoutMs ?? 30_000,
    ...(options.allowPrivate ? {} : { lookup: guardedLookup() }),
    ...(options.ca ? { ca: options.ca } : {}),
  };
  const maxBytes = options.maxBytes ?? defaultMaxBytes;
  const dir = await mkdtemp(join(tmpdir(), 'secwire-source-'));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    return await new Promise<Fetched>((resolve, reject) => {
      const req = request(url, requestOptions, (res) => {
        const status = res.statusCode ?? 0;
        if (status === 304) {
          res.resume();
          return resolve({ changed: false });
        }
        if ([301, 302, 303, 307, 308].includes(status) && res.headers.location) {
          res.resume();
          if (redirects >= maxRedirects) return reject(new SourceError(`source redirected more than ${maxRedirects} times`));
          // The target is checked like the first URL (https only, the SSRF guard) by the call itself.
          const target = new URL(res.headers.location, url).toString();
          return void cleanup().then(() => download(target, options, redirects + 1).then(resolve, reject));
        }
        if (status !== 200) {
          res.resume();
          return reject(new SourceError(`source answered HTTP ${status}`, status >= 500 || status === 429));
        }
        const declared = Number(res.headers['content-length'] ?? NaN);
        if (declared > maxBytes) {
          res.destroy();
          return reject(new SourceError(`source is ${declared} bytes, over the limit of ${maxBytes}`));
        }
        let received = 0;
        const limit = new Transform({
          transform(chunk: Buffer, _enc, done) {
            received += chunk.length;
            if (received > maxBytes) done(new SourceError(`source is over the limit of ${maxBytes} bytes`));
            else done(null, chunk);
          },
        });
        const path = join(dir, 'body');
        // An idle response is cut off by the socket timeout below as well as a slow start.
        pipeline(res, limit, createWriteStream(path)).then(
          () =>
            resolve({
              changed: true,
              path,
              validators: { etag: header(res.headers.etag), lastModified: header(res.headers['last-modified']) },
              cleanup,
            }),
          (err: Error) => reject(err instanceof SourceError ? err : new SourceError(`download failed: ${err.message}`, true)),
        );
      });
      req.on('timeout', () => req.destroy(new SourceError('source timed out', true)));
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (err instanceof SourceError) return reject(err);
        if (err.code === 'ETARGETREFUSED') return reject(new SourceError(`source ${err.message}`));
        reject(new SourceError(`fetch failed: ${err.code ?? err.message}`, true));
      });
      req.end();
    }).then((fetched) => {
      if (!fetched.changed) void cleanup();
      return fetched;
    });
  } catch (err) {
    await cleanup();
    throw err;
  }
}

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
