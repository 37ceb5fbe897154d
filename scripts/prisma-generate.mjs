// Runs `prisma generate` without letting the CLI download a native engine (DESIGN.md,
// "Prisma without native engines"). Used by postinstall and `npm run generate`.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const stub = fileURLToPath(new URL('./no-schema-engine.sh', import.meta.url));
execFileSync('npx', ['prisma', 'generate'], {
  stdio: 'inherit',
  env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: stub, CHECKPOINT_DISABLE: '1', PRISMA_HIDE_UPDATE_MESSAGE: '1' },
});
