// Fail fast when PostgreSQL hangs (a lost network, a stuck server): a statement on a connection
// that forwards nothing never fails on its own, and while the pool's connections are held by such
// statements every other request waits for the pool's connection time-out before its 503. So every
// statement and connection the pool hands out (Prisma's, the driver reads', the bulk writes') is
// watched: once it has waited `suspectAfterMs`, and unless another statement has just been
// answered, the database is asked `SELECT 1` on a connection of its own, outside the busy pool; if
// that does not answer within `answerWithinMs` either, the wait ends with a socket time-out, which
// every request path answers as 503 with Retry-After
// (db/unavailable.ts), within about a second, as GET /ready does. A database that answers the
// probe (only busy, or a statement waiting on a lock) is waited for as before, and asked again
// after each further `suspectAfterMs`. Once a probe went unanswered, new statements are refused at
// once until one answers. A connection given up on is not handed out again.
import { Socket } from 'node:net';
import pg from 'pg';
import { withinDeadline } from './deadline.js';

export interface LivenessTimes {
  /** How long a statement or a connection is waited for before the database is asked whether it answers. */
  suspectAfterMs: number;
  /** How long the probe may take. */
  answerWithinMs: number;
}

export const livenessTimes: LivenessTimes = { suspectAfterMs: 600, answerWithinMs: 300 };

/**
 * A probe or a statement that answered this recently is still the answer (concurrent waits share
 * it): a database that keeps answering statements is alive, however long its queue, so under load
 * no probe goes out at all, and a busy machine's slow `SELECT 1` cannot pass for a hang.
 */
const freshMs = 100;
/** How long an unanswered probe refuses new statements at once (then one waits for a probe again). */
const knownDownMs = 1_000;
/** A probe connection silent this long is dropped; the next probe opens another. */
const dropProbeAfterMs = 5_000;

/** What a watched wait ends with when the database does not answer: node-postgres' and Prisma's adapter's socket time-out. */
export function notAnswering(): Error {
  return Object.assign(new Error('The database did not answer'), { code: 'ETIMEDOUT', syscall: 'read', errno: -110 });
}

/** Calls left as they are: callbacks (pg-pool's own) and submittables (a COPY or a cursor stream, not a promise). */
const passesThrough = (args: unknown[]) => typeof args.at(-1) === 'function' || typeof (args[0] as { submit?: unknown } | undefined)?.submit === 'function';

export class DatabaseLiveness {
  private probeClient: pg.Client | undefined;
  /** The probe connection's socket, made here (the driver's public `stream` option) so it can be destroyed at once. */
  private probeSocket: Socket | undefined;
  private probe: { started: number; answer: Promise<boolean> } | undefined;
  private answeredAt = 0;
  private failedAt = Number.NEGATIVE_INFINITY;
  private closed = false;

  constructor(
    private readonly connection: pg.ClientConfig,
    private readonly times: LivenessTimes = livenessTimes,
  ) {}

  /** Whether the database answers `SELECT 1` within answerWithinMs of the probe's start (one probe at a time). */
  async answers(): Promise<boolean> {
    const now = performance.now();
    if (now - this.answeredAt < freshMs) return true;
    if (!this.probe) {
      const started = now;
      const answer = this.ask().then(
        () => {
          this.answeredAt = performance.now();
          return true;
        },
        () => false,
      );
      this.probe = { started, answer };
      void answer.then(() => {
        if (this.probe?.answer === answer) this.probe = undefined;
      });
    }
    const { started, answer } = this.probe;
    if (now - started > dropProbeAfterMs) this.dropProbe();
    const left = Math.max(0, this.times.answerWithinMs - (now - started));
    let answered = (await withinDeadline(answer, left)) ?? false;
    if (!answered) {
      // An event loop held past the deadline runs the timer before the socket's waiting answer:
      // one turn of I/O first, so a busy process does not take itself for a hanging database.
      await new Promise<void>((resolve) => setImmediate(resolve));
      answered = this.answeredAt >= started;
    }
    if (!answered) this.failedAt = performance.now();
    return answered;
  }

  /**
   * The last probe went unanswered within the last `knownDownMs` and none has answered since: a new
   * statement is refused at once rather than after its own wait (a probe goes out meanwhile, so
   * the first answer ends this).
   */
  refusesNow(): boolean {
    const now = performance.now();
    if (!(this.failedAt > this.answeredAt && now - this.failedAt < knownDownMs)) return false;
    void this.answers();
    return true;
  }

  private async ask(): Promise<void> {
    if (this.closed) throw notAnswering();
    if (!this.probeClient) {
      const socket = new Socket();
      const client = new pg.Client({ ...this.connection, statement_timeout: undefined, stream: () => socket });
      client.on('error', () => this.probeClient === client && this.dropProbe());
      this.probeClient = client;
      this.probeSocket = socket;
      await client.connect();
    }
    await this.probeClient.query('SELECT 1');
  }

  private dropProbe() {
    const socket = this.probeSocket;
    this.probeClient = undefined;
    this.probeSocket = undefined;
    this.probe = undefined;
    // end() waits for the server, which may be what hangs (it only half-closes a connection still
    // starting up); the socket goes now.
    socket?.destroy();
  }

  /**
   * `work`'s outcome, or notAnswering() once it has waited and the database does not answer a probe.
   * `abandoned` receives what work resolves to after it was given up on (a connection to give back).
   * `statement`: work is a statement, whose answer shows the database answers (a connection handed
   * out from the pool's idle ones shows nothing).
   */
  guard<T>(work: Promise<T>, abandoned?: (value: T) => void, statement = false): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const hang = new Promise<never>((_, reject) => {
      const check = async () => {
        if (settled) return;
        if (await this.answers()) {
          if (!settled) timer = setTimeout(check, this.times.suspectAfterMs);
          return;
        }
        reject(notAnswering());
      };
      timer = setTimeout(check, this.times.suspectAfterMs);
    });
    return Promise.race([work, hang]).then(
      (value) => {
        settled = true;
        clearTimeout(timer);
        if (statement) this.answeredAt = performance.now();
        return value;
      },
      (err: unknown) => {
        settled = true;
        clearTimeout(timer);
        if (abandoned) work.then(abandoned, () => undefined);
        else work.catch(() => undefined);
        throw err;
      },
    );
  }

  /** Watches every statement and connection of `pool` (the promise forms its users call; callbacks are pg-pool's own). */
  watch(pool: pg.Pool): void {
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
    const watched = new WeakSet<pg.PoolClient>();
    const broken = new WeakSet<pg.PoolClient>();
    pool.query = ((...args: unknown[]) => {
      if (passesThrough(args)) return query(...args);
      return this.refusesNow() ? Promise.reject(notAnswering()) : this.guard(query(...args) as Promise<unknown>, undefined, true);
    }) as typeof pool.query;
    pool.connect = ((...args: unknown[]) => {
      if (typeof args[0] === 'function') return connect(...args);
      if (this.refusesNow()) return Promise.reject(notAnswering());
      return this.guard(connect() as Promise<pg.PoolClient>, (late) => late.release()).then((client) => {
        if (!watched.has(client)) {
          watched.add(client);
          const clientQuery = client.query.bind(client) as (...a: unknown[]) => unknown;
          client.query = ((...a: unknown[]) => {
            if (passesThrough(a)) return clientQuery(...a);
            const answer = this.refusesNow() ? Promise.reject(notAnswering()) : this.guard(clientQuery(...a) as Promise<unknown>, undefined, true);
            return answer.catch((err: unknown) => {
              if ((err as { code?: unknown }).code === 'ETIMEDOUT') broken.add(client);
              throw err;
            });
          }) as typeof client.query;
        }
        // pg-pool sets release on every checkout: a connection given up on is destroyed, not pooled.
        const release = client.release.bind(client);
        client.release = (err?: Error | boolean) => release(broken.has(client) ? notAnswering() : err);
        return client;
      });
    }) as typeof pool.connect;
  }

  close(): void {
    this.closed = true;
    const client = this.probeClient;
    this.probeClient = undefined;
    this.probeSocket = undefined;
    void client?.end().catch(() => undefined);
  }
}
