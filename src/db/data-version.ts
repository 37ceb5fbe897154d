// The data version: one counter row ("DataVersion") that every transaction changing what the public
// read routes serve increments before it commits (ingest, sync and reclassification in storeBatch,
// enrichment in storeEnrichment, each only when it changed something; digests in the statement
// that writes them). Caches key their entries by
// it, so an entry made before a change is never served after it.
//
// Why a row and not a pub/sub message: the increment commits with the data, in the same
// transaction, so every instance and every process (the CLI's ingest and sync too) sees the new
// version exactly when it sees the new data, with or without Redis. A message sent after the commit
// leaves a window in which another instance still answers from its cache, and a message lost to a
// Redis outage leaves it stale until something else changes. The price is one indexed read of one
// row, shared by every request that arrives while it is on its way (see DataVersionReader).
import { Prisma } from '../generated/prisma/client.js';
import type { BulkClient } from './bulk.js';
import type { DriverRead } from './driver-read.js';

/** The increment as a statement, also for a change that is one statement: `WITH bump AS (...) <statement>`. */
export const bumpDataVersionCte = 'UPDATE "DataVersion" SET version = version + 1 WHERE id = 1';

/** Increments the version inside a change transaction (it commits or rolls back with the change). */
export async function bumpDataVersion(tx: BulkClient): Promise<void> {
  await tx.execute(Prisma.raw(bumpDataVersionCte));
}

/**
 * Reads the version for requests. A request needs a read that starts after it arrived: one already
 * on its way may have been answered before a change the caller has just seen commit (an ingest
 * answered by another instance). So a request joins the next read, which starts once the one in
 * flight has returned and the event loop has taken in every request that has arrived meanwhile
 * (setImmediate: after the poll phase, which reads all the sockets that are ready), so one read
 * answers all of them; under load there is at most one read in flight, whatever the request rate.
 * Started at once instead, a read went out for the first request of each poll phase alone, and the
 * reads cost a sixth of a cached answer's CPU (bench/README.md); now one read serves about twenty.
 */
export class DataVersionReader {
  /** The read on its way to the database. */
  private inFlight: Promise<string> | undefined;
  /** The read that starts when the one in flight returns, joined by the requests arriving meanwhile. */
  private next: Promise<string> | undefined;

  /** `read`: past Prisma's client (driver-read.ts), since every cached answer waits for this read. */
  constructor(private readonly read: DriverRead) {}

  current(): Promise<string> {
    if (this.next) return this.next;
    const begin = () => new Promise<string>((resolve) => setImmediate(() => resolve(this.start(read))));
    const read: Promise<string> = (this.inFlight ?? Promise.resolve()).then(begin, begin);
    this.next = read;
    return read;
  }

  /** The read begins: requests arriving from now on wait for the one after it. */
  private start(read: Promise<string>): Promise<string> {
    if (this.next === read) this.next = undefined;
    this.inFlight = read;
    const done = () => {
      if (this.inFlight === read) this.inFlight = undefined;
    };
    const result = this.load();
    result.then(done, done);
    return result;
  }

  private async load(): Promise<string> {
    const [row] = await this.read<{ version: bigint }>(Prisma.sql`SELECT version FROM "DataVersion" WHERE id = 1`);
    return String(row?.version ?? 0);
  }
}
