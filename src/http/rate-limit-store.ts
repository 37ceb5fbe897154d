// Where the rate limiter keeps each client's recent requests. graphql-rate-limit's own stores are
// not fit for this: its in-memory store never forgets a client and copies its whole state on every
// call, and its Redis store reads then writes (two clients can both take the last slot). Here a
// store answers one atomic question instead: "record this request if the client has room for what
// it costs". A request of cost n is n entries at its time.

/** The outcome of one request against a client's rolling window. */
export interface WindowHit {
  /** Whether the request was recorded (the client had room). Rejected requests are not recorded. */
  admitted: boolean;
  /** The store's clock when it decided, in milliseconds. */
  now: number;
  /**
   * Times (store clock) of the client's earlier entries still inside the window, oldest first: one
   * per unit its admitted requests cost.
   */
  earlier: number[];
}

export interface RateLimitStore {
  /**
   * Atomically: forget the key's entries older than `windowMs`, then record this request as `cost`
   * entries when they fit within `limit`.
   */
  hit(key: string, limit: number, windowMs: number, cost?: number): Promise<WindowHit>;
  close(): Promise<void>;
}

/** Milliseconds since the epoch; injectable so tests can move time forward without waiting. */
export type Clock = () => number;

/**
 * One process's windows in a Map. Clients that have been quiet for a whole window are dropped by a
 * sweep that runs at most once per window, so memory follows the clients of the last minute.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, number[]>();
  private lastSweep: number;

  constructor(private readonly clock: Clock = Date.now) {
    this.lastSweep = clock();
  }

  /** Number of clients currently tracked. */
  get size(): number {
    return this.windows.size;
  }

  async hit(key: string, limit: number, windowMs: number, cost = 1): Promise<WindowHit> {
    return this.hitNow(key, limit, windowMs, cost);
  }

  /** The synchronous core, also used as the fallback while Redis is away. */
  hitNow(key: string, limit: number, windowMs: number, cost = 1): WindowHit {
    const now = this.clock();
    if (now - this.lastSweep >= windowMs) this.sweep(windowMs);
    const times = this.windows.get(key) ?? [];
    dropUntil(times, now - windowMs);
    const earlier = times.slice();
    const admitted = times.length + cost <= limit;
    if (admitted) for (let i = 0; i < cost; i++) times.push(now);
    if (times.length > 0) this.windows.set(key, times);
    else this.windows.delete(key);
    return { admitted, now, earlier };
  }

  /** Forgets every client that has made no admitted request for `windowMs`. */
  sweep(windowMs: number): void {
    this.lastSweep = this.clock();
    const cutoff = this.lastSweep - windowMs;
    for (const [key, times] of this.windows) {
      if (times.length === 0 || times[times.length - 1]! <= cutoff) this.windows.delete(key);
    }
  }

  async close(): Promise<void> {
    this.windows.clear();
  }
}

/** Removes the leading (oldest) entries at or before `cutoff` from a sorted array. */
function dropUntil(times: number[], cutoff: number): void {
  let expired = 0;
  while (expired < times.length && times[expired]! <= cutoff) expired++;
  if (expired > 0) times.splice(0, expired);
}
