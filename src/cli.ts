// What `npm run cli -- <command>` runs (compiled, from dist/; precli builds it when src/ changed).
// Like start.ts, it re-executes itself once with glibc malloc's start-up settings (reexec.ts)
// before loading the commands: a sync's RSS otherwise grew with every helper thread's arena.
import { setSourceMapsSupport } from 'node:module';
import { reexecWithStartSettings } from './reexec.js';

reexecWithStartSettings();
setSourceMapsSupport(true);
await import('./cli-commands.js');
