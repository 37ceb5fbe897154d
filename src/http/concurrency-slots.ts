// How many of one kind of long-lived answer (a subscription, an export download) one client, and
// the instance in all, may hold at once: each holds a socket and memory or a file for as long as
// its client likes, so one client, or all of them together, could otherwise hold the server.
export interface SlotLimits {
  perClient: number;
  total: number;
  /** The error for a client at its own limit, and for anyone once the instance is full. */
  clientFull: () => Error;
  instanceFull: () => Error;
}

export class ConcurrencySlots {
  private readonly held = new Map<string, number>();
  private total = 0;

  constructor(private readonly limits: SlotLimits) {}

  /** Takes a slot for `client` (a rate-limit identity) or throws; the returned function gives it back, once. */
  take(client: string): () => void {
    const held = this.held.get(client) ?? 0;
    if (held >= this.limits.perClient) throw this.limits.clientFull();
    if (this.total >= this.limits.total) throw this.limits.instanceFull();
    this.held.set(client, held + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = this.held.get(client)! - 1;
      if (left === 0) this.held.delete(client);
      else this.held.set(client, left);
    };
  }
}
