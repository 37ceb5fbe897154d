// How many GraphQL subscriptions (SSE streams) may be open: each holds a connection and a pub/sub
// listener for as long as the client likes, so one client, or all of them together, could
// otherwise hold the server's memory and sockets.
import { appError } from '../errors.js';

export class SubscriptionSlots {
  private readonly held = new Map<string, number>();
  private total = 0;

  constructor(private readonly limits: { perClient: number; total: number }) {}

  /** Takes a slot for `client` (a rate-limit identity) or throws a 429; the answer gives it back, once. */
  take(client: string): () => void {
    const held = this.held.get(client) ?? 0;
    if (held >= this.limits.perClient) {
      throw appError('RATE_LIMITED', `At most ${this.limits.perClient} subscriptions may be open per client; close one first`);
    }
    if (this.total >= this.limits.total) {
      throw appError('RATE_LIMITED', `The server holds its maximum of ${this.limits.total} open subscriptions; try again later`);
    }
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
