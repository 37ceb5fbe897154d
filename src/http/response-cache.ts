// Whole GET responses of the public read routes, kept per data version (src/db/data-version.ts) in
// a bounded LRU: a repeated request at the same version is answered from memory, with an ETag, a
// 304 for a client that already holds it, and the body compressed when the client accepts it
// (compressed once per entry and encoding, then kept with it).
//
// What is kept is what every caller of the same URL gets: the body, its Content-Type and its Link
// headers (licence and paging). What belongs to one request (RateLimit, X-Request-Id, the CORS
// headers) is never kept: finish() (finish.ts) and Yoga's CORS add them to a replay as to any
// response, and to a hit answered over a socket before Yoga (early-reply.ts).
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import type { DataVersionReader } from '../db/data-version.js';
import { withinDeadline } from '../db/deadline.js';

/** Below this many bytes a body is sent as it is: compressing would save less than it costs. */
export const COMPRESSION_THRESHOLD = 1024;

/**
 * Revalidate before every use: the data can change at any ingest, and a revalidation the entry
 * still matches is a 304 without a body.
 */
export const CACHE_CONTROL = 'no-cache';

/**
 * How long a request waits for the data version before it is served uncached: a database that
 * hangs must not hold every cacheable read for the pool's own time-out before routing starts.
 * The requests that share one read (DataVersionReader) share its deadline, counted from the first
 * of them: none waits longer.
 */
export const VERSION_READ_TIMEOUT_MS = 250;

export type Encoding = 'br' | 'gzip';

// Brotli at quality 5 and gzip at level 6: most of the size saving for a few milliseconds on the
// largest bodies, paid once per entry; in the thread pool, so the event loop keeps serving
// meanwhile.
export const compressors: Record<Encoding, (body: Buffer) => Promise<Buffer>> = {
  br: (body) => promisify(brotliCompress)(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } }),
  gzip: (body) => promisify(gzip)(body, { level: 6 }),
};

/** The response headers an entry keeps: the same for every caller of its URL. */
const keptHeaders = new Set(['content-type', 'link']);

interface Entry {
  body: Buffer;
  /** The kept headers with the validators: what every 200 of the entry starts from. */
  headers: Record<string, string>;
  etag: string;
  encoded: Partial<Record<Encoding, Buffer>>;
}

/** The encoding to answer with: brotli before gzip, by the client's Accept-Encoding (q=0 refuses). */
export function chooseEncoding(acceptEncoding: string | null): Encoding | undefined {
  if (!acceptEncoding) return undefined;
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find(Boolean);
    accepted.set(name!.trim(), q ? Number(q[1]) : 1);
  }
  const allowed = (name: Encoding) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  return (['br', 'gzip'] as const).find(allowed);
}

/** Whether If-None-Match names this ETag (weak comparison, RFC 9110 13.1.2). */
function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => opaque(tag) === opaque(etag));
}

/**
 * The Vary of an answer from a cached route: Accept-Encoding added beside what is there (Yoga's
 * CORS sets `Vary: Origin` when it echoes an origin), once the other headers are in.
 */
export function varyOnEncoding(vary: string | null): string {
  if (!vary) return 'Accept-Encoding';
  return /\baccept-encoding\b/i.test(vary) ? vary : `${vary}, Accept-Encoding`;
}

/** What an entry is revalidated by, on its 200s and 304s. */
const validatorsOf = (etag: string) => ({ ETag: etag, 'Cache-Control': CACHE_CONTROL });

/** Requests answered from the cache, by server context (one object per request): later hooks leave them as they are. */
const replays = new WeakSet<object>();

/** Whether this request's response came from the cache (it already carries every kept header). */
export const isReplay = (serverContext: object) => replays.has(serverContext);

/** The request headers read here: a Fetch Request's, or node's (src/http/early-reply.ts). */
export type HeaderReader = Pick<Headers, 'get'>;

/** A cached answer before it becomes a Fetch Response (in Yoga) or is written to node's response (before it). */
export interface Reply {
  status: 200 | 304;
  headers: Record<string, string>;
  body: Buffer | null;
}

type ResponseClass = typeof Response;

/** The Fetch Response of a reply, for the plugin path. */
export const replyResponse = (reply: Reply, ResponseClass: ResponseClass) =>
  new ResponseClass(reply.body as Uint8Array<ArrayBuffer> | null, { status: reply.status, headers: reply.headers });

export class ResponseCache {
  private readonly entries: LRUCache<string, Entry>;
  /** Compressions under way, by the entry they are for (gone with it). */
  private readonly compressing = new WeakMap<Entry, Partial<Record<Encoding, Promise<Buffer>>>>();

  /** `pathPrefix`: where the entries live (the REST routes); no other path waits for a key. */
  constructor(
    maxBytes: number,
    private readonly versions: DataVersionReader,
    private readonly pathPrefix = '/',
  ) {
    this.entries = new LRUCache<string, Entry>({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (e) => e.body.length + (e.encoded.br?.length ?? 0) + (e.encoded.gzip?.length ?? 0) + 256,
    });
    this.enabled = maxBytes > 0;
  }

  readonly enabled: boolean;

  /** Each data-version read with its deadline, shared by the requests that wait for it. */
  private readonly timedReads = new WeakMap<Promise<string>, Promise<string | undefined>>();

  /** Whether a request with these headers is answered fresh whatever its path: the cache is off, or the client asked for a fresh answer (Cache-Control: no-cache). */
  bypassedBy(headers: HeaderReader): boolean {
    return !this.enabled || /\bno-cache\b/i.test(headers.get('cache-control') ?? '');
  }

  /**
   * The key of a request at the current data version, or undefined when it is not to be cached
   * (bypassedBy, the path is not a cached one, or the data version did not come within
   * VERSION_READ_TIMEOUT_MS; `readVersion`: the request's own read, edge.ts dataVersionOf). The
   * URL is taken as sent: the paging links repeat its parameters in their order.
   */
  async keyOf(headers: HeaderReader, url: Pick<URL, 'pathname' | 'search'>, readVersion = () => this.versions.current()): Promise<string | undefined> {
    if (!url.pathname.startsWith(this.pathPrefix) || this.bypassedBy(headers)) return undefined;
    const read = readVersion();
    let timed = this.timedReads.get(read);
    if (!timed) {
      timed = withinDeadline(
        read.catch(() => undefined),
        VERSION_READ_TIMEOUT_MS,
      );
      this.timedReads.set(read, timed);
    }
    const version = await timed;
    return version === undefined ? undefined : `${version} ${url.pathname}${url.search}`;
  }

  /** The cached answer to a request with these headers, or undefined on a miss. */
  async reply(key: string, headers: HeaderReader): Promise<Reply | undefined> {
    const entry = this.entries.get(key);
    return entry && this.answer(key, entry, headers);
  }

  /** The cached answer to this request as a Response (the plugin path), or undefined on a miss. */
  async replay(key: string, request: Request, serverContext: object, ResponseClass: ResponseClass): Promise<Response | undefined> {
    const reply = await this.reply(key, request.headers);
    if (!reply) return undefined;
    replays.add(serverContext);
    return replyResponse(reply, ResponseClass);
  }

  /**
   * Keeps a 200 just produced for this key (once every plugin has added its headers), and answers
   * it the way a replay would: with its ETag, compressed if asked, or a 304.
   */
  async store(key: string, request: Request, response: Response, ResponseClass: ResponseClass, ttlSeconds?: number): Promise<Response> {
    const headers: [string, string][] = [];
    response.headers.forEach((value, name) => headers.push([name, value]));
    const answer = replyResponse(await this.keep(key, Buffer.from(await response.arrayBuffer()), headers, request.headers, ttlSeconds), ResponseClass);
    // The request's own headers, added before this point, go on the answer (never into the entry).
    response.headers.forEach((value, name) => {
      if (!keptHeaders.has(name) && name !== 'content-length' && !answer.headers.has(name)) answer.headers.set(name, value);
    });
    return answer;
  }

  /**
   * Keeps a 200 body with its headers (lower-case names; only the kept ones are kept) and answers
   * it as a hit would be: the bytes-level half of store(), for an answer built without a Response.
   */
  async keep(key: string, body: Buffer, headers: [string, string][], request: HeaderReader, ttlSeconds?: number): Promise<Reply> {
    const etag = `W/"${createHash('sha1').update(body).digest('base64url')}"`;
    const kept = Object.fromEntries(headers.filter(([name]) => keptHeaders.has(name)));
    const entry: Entry = { body, headers: { ...kept, ...validatorsOf(etag) }, etag, encoded: {} };
    this.entries.set(key, entry, { ttl: ttlSeconds ? ttlSeconds * 1000 : undefined });
    return this.answer(key, entry, request);
  }

  private async answer(key: string, entry: Entry, request: HeaderReader): Promise<Reply> {
    // Vary comes last (varyOnEncoding): the CORS headers name Origin in it after this point.
    if (matches(request.get('if-none-match'), entry.etag)) return { status: 304, headers: validatorsOf(entry.etag), body: null };
    const encoding = entry.body.length >= COMPRESSION_THRESHOLD ? chooseEncoding(request.get('accept-encoding')) : undefined;
    let body = entry.body;
    if (encoding) {
      let encoded = entry.encoded[encoding];
      if (!encoded) {
        // One compression per entry and encoding, however many ask for it at once.
        const jobs = this.compressing.get(entry) ?? {};
        this.compressing.set(entry, jobs);
        const first = !jobs[encoding];
        jobs[encoding] ??= compressors[encoding](entry.body).catch((err: unknown) => {
          delete jobs[encoding]; // the next request tries again
          throw err;
        });
        encoded = await jobs[encoding];
        // A new entry object, so the LRU measures it again (the same object set twice is not
        // re-measured); skipped if the entry was replaced or evicted meanwhile.
        if (first && this.entries.peek(key) === entry) {
          const left = this.entries.getRemainingTTL(key);
          this.entries.set(key, { ...entry, encoded: { ...entry.encoded, [encoding]: encoded } }, { ttl: Number.isFinite(left) ? left : undefined });
        }
      }
      body = encoded;
    }
    const headers: Record<string, string> = { ...entry.headers, 'Content-Length': String(body.length) };
    if (encoding) headers['Content-Encoding'] = encoding;
    return { status: 200, headers, body };
  }
}
