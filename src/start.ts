// What `npm start` runs. On the embedded database the process re-executes itself once with V8's
// baseline Wasm compiler only (--liftoff-only): optimising PostgreSQL's largest Wasm functions as
// they get hot took the embedded server from about 260 MB to over 800 MB for its whole life, and
// delayed its first answer (bench/README.md, start-up). Against PostgreSQL the only Wasm is Prisma's
// query compiler, whose plans are cached, so that process keeps V8's defaults and starts directly.
// (Where the platform has no execve, the process simply runs with V8's defaults.)
import { loadConfigOrExit } from './config.js';

const liftoffOnly = '--liftoff-only';
if (!loadConfigOrExit().databaseUrl && !process.execArgv.includes(liftoffOnly)) {
  process.execve?.(process.execPath, [process.execPath, liftoffOnly, ...process.execArgv, ...process.argv.slice(1)]);
}
await import('./main.js');
