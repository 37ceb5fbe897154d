// How many GraphQL subscriptions (SSE streams) may be open: each holds a connection and a pub/sub
// listener for as long as the client likes.
import { appError } from '../errors.js';
import { ConcurrencySlots } from './concurrency-slots.js';

export class SubscriptionSlots extends ConcurrencySlots {
  constructor({ perClient, total }: { perClient: number; total: number }) {
    super({
      perClient,
      total,
      clientFull: () => appError('RATE_LIMITED', `At most ${perClient} subscriptions may be open per client; close one first`),
      instanceFull: () => appError('RATE_LIMITED', `The server holds its maximum of ${total} open subscriptions; try again later`),
    });
  }
}
