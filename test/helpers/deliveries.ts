// The webhook pipeline beside a test app, wired as main.ts wires it: a real HTTPS receiver, the
// delivery worker (trusting the receiver's test certificate) and the dispatcher that wakes it.
import { createLogger } from '../../src/log.js';
import { createWebhookDispatcher } from '../../src/schema/issue-stream.js';
import type { DispatcherOptions } from '../../src/webhooks/dispatcher.js';
import { createDeliveryWorker, type WorkerOptions } from '../../src/webhooks/worker.js';
import { createTestApp, type TestApp } from './app.js';
import { createReceiver, testCertificate } from './https-receiver.js';
import { adminKey } from './samples.js';
import { webhookKey } from './webhooks.js';

const log = createLogger('silent');

export type Deliveries = Awaited<ReturnType<typeof startDeliveries>>;

export async function startDeliveries(t: TestApp, options: { worker?: Partial<WorkerOptions>; dispatcher?: DispatcherOptions } = {}) {
  const receiver = await createReceiver();
  const worker = createDeliveryWorker({ db: t.db, log }, { allowPrivateTargets: true, ca: testCertificate().cert, pollIntervalMs: 20, ...options.worker });
  const dispatcher = createWebhookDispatcher(
    { config: t.config, db: t.db, log, pubsub: t.pubsub },
    { onDeliveries: () => worker.wake(), refreshIntervalMs: 50, ...options.dispatcher },
  );
  worker.start();
  await dispatcher.start();
  return {
    receiver,
    dispatcher,
    async stop() {
      await dispatcher.stop();
      await worker.stop();
      await receiver.close();
    },
  };
}

/**
 * An app with the admin and webhook keys, private receivers allowed, and its deliveries running;
 * change events travel by the dispatcher's sweep, so a short interval keeps a test quick.
 */
export async function startWebhookApp(): Promise<{ t: TestApp; deliveries: Deliveries }> {
  const t = await createTestApp({ webhookApiKey: webhookKey, webhookAllowPrivateTargets: true, adminApiKey: adminKey });
  return { t, deliveries: await startDeliveries(t, { dispatcher: { sweepIntervalMs: 100 } }) };
}
