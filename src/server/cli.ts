// What `npm run cli -- <command>` runs (compiled, from dist/, through bin/secwire, which sets the
// process's malloc settings). Source maps are on before the commands load.
import { prepareRuntime } from './runtime.js';

prepareRuntime();
const { main } = await import('./cli-commands.js');
await main(process.argv.slice(2));
