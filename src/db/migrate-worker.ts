// Runs migrate() for a PostgreSQL database in a worker thread: the schema engine's Wasm instance
// (about 30 MB of code and memory) cannot be freed in the thread that loaded it, since
// wasm-bindgen's module keeps its exports, memory views and closure finalizers for the life of the
// process. A worker's isolate goes when the worker ends, and the engine with it (bench/README.md,
// process memory).
import { parentPort, workerData } from 'node:worker_threads';
import { PrismaPg } from '@prisma/adapter-pg';
import { migrate, type MigrateWorkerData } from './migrator.js';

const { url, schema } = workerData as MigrateWorkerData;
const applied = await migrate(new PrismaPg({ connectionString: url, max: 10 }, schema ? { schema } : undefined), { releaseConnections: true });
parentPort!.postMessage(applied);
