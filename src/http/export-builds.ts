// The bulk exports (the CSV, the OSV zips, ecosystems.txt) built once per data version and served
// from that build. Each used to be produced again for every request: seconds of database and
// main-thread work that one client looping an export, inside its rate limit, made everyone else
// wait behind. Now the first request at a data version builds the file on disk (later ones at that
// version wait for the same build), and every request streams the file, which costs a file read.
//
// What a request is answered is decided before its first byte: a build that fails (a database
// outage) or a data version that does not come (a hanging database) is a 503 envelope, never a 200
// cut short. Each instance keeps its own builds (the embedded database has one instance; several
// instances each build once per data version), in a temporary directory removed when the app is
// disposed of (shutdown).
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { DataVersionReader } from '../db/data-version.js';
import { withinDeadline } from '../db/deadline.js';
import { isDatabaseUnavailable, RETRY_AFTER_SECONDS, serviceUnavailable } from '../db/unavailable.js';
import { appError } from '../errors.js';
import type { Logger } from '../log.js';
import { ConcurrencySlots } from './concurrency-slots.js';
import { currentRequestId } from './request-id.js';
import { envelopeFor, errorResponse } from './envelope.js';

/** How long an export waits for the data version before answering 503. */
export const EXPORT_VERSION_TIMEOUT_MS = 2000;
/** Builds kept (the unfiltered exports and the most recent filtered CSVs); the oldest file goes first. */
export const EXPORT_BUILDS_KEPT = 32;

/**
 * Downloads of exports one client may have open at once, and the instance in all: each holds a
 * file handle and a socket for as long as its client reads, and before its build is done, a wait.
 */
export const EXPORTS_PER_CLIENT = 2;
export const EXPORTS_TOTAL = 16;

export interface ExportFile {
  path: string;
  size: number;
}

export class ExportBuilds {
  private readonly slots = new ConcurrencySlots({
    perClient: EXPORTS_PER_CLIENT,
    total: EXPORTS_TOTAL,
    clientFull: () => {
      const refusal = appError('RATE_LIMITED', `At most ${EXPORTS_PER_CLIENT} exports may be downloading at once per client; finish one first`);
      Object.assign(refusal.extensions, { http: { status: 429, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } } });
      return refusal;
    },
    instanceFull: () => serviceUnavailable(`The server is sending its maximum of ${EXPORTS_TOTAL} exports; try again in ${RETRY_AFTER_SECONDS} seconds`),
  });
  private dir: Promise<string> | undefined;
  private readonly builds = new LRUCache<string, Promise<ExportFile>>({
    max: EXPORT_BUILDS_KEPT,
    // A file still being read stays readable after its name is removed.
    dispose: (build) => void build.then((file) => rm(file.path, { force: true })).catch(() => undefined),
  });

  /** `clientOf`: the rate limit's identity of a request's client (client-identity.ts). */
  constructor(
    private readonly versions: DataVersionReader,
    private readonly clientOf: (request: Request, serverContext: unknown) => Promise<string>,
    private readonly log: Logger,
  ) {}

  /**
   * The answer to a download of export `name` (its path and query): the file streamed with its
   * length, or the envelope (429 or 503 with Retry-After beyond the caps, 503 for an outage) before
   * any byte.
   */
  async serve(
    request: Request,
    serverContext: unknown,
    name: string,
    build: () => ReadableStream<Uint8Array>,
    headers: Record<string, string>,
  ): Promise<Response> {
    let release: (() => void) | undefined;
    try {
      release = this.slots.take(await this.clientOf(request, serverContext));
      const file = await this.file(name, build);
      const stream = createReadStream(file.path);
      // Closed when the client has it all, goes away, or is cut for not reading (http/server.ts).
      stream.once('close', release);
      return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, { headers: { ...headers, 'Content-Length': String(file.size) } });
    } catch (err) {
      release?.();
      const { status, message, headers: errorHeaders, unexpected } = envelopeFor([err]);
      for (const e of unexpected) this.log.error('export failed', { requestId: currentRequestId(), err: e });
      return errorResponse(status, message, errorHeaders);
    }
  }

  /**
   * The file of export `name` (its path and query) at the current data version, made by `build`
   * once per version. Throws the 503 error for an outage; nothing has been sent by then.
   */
  async file(name: string, build: () => ReadableStream<Uint8Array>): Promise<ExportFile> {
    const key = `${await this.version()} ${name}`;
    let made = this.builds.get(key);
    if (!made) {
      made = this.make(key, build);
      this.builds.set(key, made);
      // A failed build is not kept: the next request tries again.
      made.catch(() => this.builds.get(key) === made && this.builds.delete(key));
    }
    try {
      return await made;
    } catch (err) {
      throw isDatabaseUnavailable(err) ? serviceUnavailable() : err;
    }
  }

  /** Removes every build and the directory (files still being read stay readable until closed). */
  async close(): Promise<void> {
    const dir = this.dir;
    this.dir = undefined;
    this.builds.clear();
    if (dir) await rm(await dir, { recursive: true, force: true }).catch(() => undefined);
  }

  /** Yoga's hook for `close`: the app's dispose() (main.ts calls it on shutdown). */
  plugin(): { onDispose: () => Promise<void> } {
    return { onDispose: () => this.close() };
  }

  private async version(): Promise<string> {
    const version = await withinDeadline(this.versions.current(), EXPORT_VERSION_TIMEOUT_MS).catch((err: unknown) => {
      if (isDatabaseUnavailable(err)) return undefined;
      throw err;
    });
    if (version === undefined) throw serviceUnavailable();
    return version;
  }

  private async make(key: string, build: () => ReadableStream<Uint8Array>): Promise<ExportFile> {
    this.dir ??= mkdtemp(join(tmpdir(), 'secwire-exports-'));
    const path = join(await this.dir, createHash('sha1').update(key).digest('hex'));
    const partial = `${path}.partial`;
    try {
      await pipeline(Readable.fromWeb(build() as import('node:stream/web').ReadableStream<Uint8Array>), createWriteStream(partial));
      await rename(partial, path);
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
    return { path, size: (await stat(path)).size };
  }
}
