// What `npm start` runs. The process re-executes itself once, before loading anything else, with
// the settings that only take effect at process start: glibc malloc's, and V8's for its database
// (reexec.ts says why each).
import { setSourceMapsSupport } from 'node:module';
import { loadConfigOrExit } from './config.js';
import { reexecWithStartSettings, serverV8Flags } from './reexec.js';

reexecWithStartSettings(serverV8Flags(loadConfigOrExit().databaseUrl ? 'postgres' : 'pglite'));
// Stack traces name our TypeScript source. Only our own files' maps: --enable-source-maps also
// parsed and kept every package's map, and the sources some of them embed (about 5 MB of heap).
setSourceMapsSupport(true);
await import('./main.js');
