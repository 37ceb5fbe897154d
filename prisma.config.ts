// Prisma 7 CLI config. The app never uses a datasource URL from here: it builds its own driver
// adapter (PGlite or PostgreSQL) in src/db/client.ts. The CLI only needs the schema path.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
