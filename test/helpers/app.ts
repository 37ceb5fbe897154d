// Builds the real app on a fresh database and sends real HTTP requests into it (yoga.fetch goes
// through the same request pipeline as a listening server).
import { createApp, type App, type AppServices } from '../../src/server/app.js';
import { testConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { createIssuePubSub, type IssuePubSub } from '../../src/pubsub.js';
import { createTestDatabase, type TestDatabase } from './database.js';

export interface TestApp {
  app: App;
  db: TestDatabase;
  config: Config;
  pubsub: IssuePubSub;
  /** fetch against the app; `path` is relative to http://localhost */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** POST /graphql and return the parsed body */
  graphql<T = any>(
    query: string,
    variables?: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: { data?: T; errors?: any[] } }>;
  close(): Promise<void>;
}

/** `services` adds or replaces long-lived services (a rate-limit store with a test clock, a logger). */
export async function createTestApp(overrides: Partial<Config> = {}, db?: TestDatabase, services: Partial<AppServices> = {}): Promise<TestApp> {
  const database = db ?? (await createTestDatabase());
  const config = testConfig(overrides);
  const { pubsub, close: closePubSub } = createIssuePubSub(config);
  const app = createApp({ config, db: database, log: createLogger(config.logLevel), pubsub, ...services });
  const fetchApp = (path: string, init?: RequestInit) => Promise.resolve(app.fetch(new Request(`http://localhost${path}`, init)));
  return {
    app,
    db: database,
    config,
    pubsub,
    fetch: fetchApp,
    async graphql(query, variables, headers = {}) {
      const res = await fetchApp('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query, variables }),
      });
      return { status: res.status, body: await res.json() };
    },
    async close() {
      await app.dispose();
      await closePubSub();
      if (!db) await database.close();
    },
  };
}
