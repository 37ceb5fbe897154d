// Runs the start-up seed on PostgreSQL in a child process (seedInChild in seed.ts): the classifier's
// package lists, catalogue and trained model, and the ingest pipeline's code, leave with it instead
// of staying in the server for its whole life. The events it stores are left to the server's
// relay, which publishes them once the server subscribes.
import { answerParent } from './child-answer.js';
import { openDatabase } from './db/client.js';
import { createLogger } from './log.js';
import { createIssuePubSub } from './pubsub.js';
import { seedSampleData, type SeedChildData } from './seed.js';

answerParent(async ({ url, logLevel }: SeedChildData) => {
  const db = await openDatabase({ kind: 'postgres', url });
  try {
    const seeded = await seedSampleData({ prisma: db.prisma, pubsub: createIssuePubSub().pubsub, log: createLogger(logLevel) }, { relay: false });
    return seeded !== null;
  } finally {
    await db.close();
  }
});
