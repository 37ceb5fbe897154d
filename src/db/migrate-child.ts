// Runs migrate() for a PostgreSQL database in a child process (migrateInChild): the schema engine's
// Wasm instance (about 30 MB of code and memory) cannot be freed in the process that loaded it,
// since wasm-bindgen's module keeps its exports, memory views and closure finalizers for the life
// of the process (bench/README.md, process memory).
import { PrismaPg } from '@prisma/adapter-pg';
import { answerParent } from '../child-answer.js';
import { migrate, type MigrateChildData } from './migrator.js';

answerParent(({ url, schema }: MigrateChildData) =>
  migrate(new PrismaPg({ connectionString: url, max: 10 }, schema ? { schema } : undefined), { releaseConnections: true }),
);
