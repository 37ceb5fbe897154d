// What `npm start` runs (compiled, from dist/, through bin/secwire, which sets the process's
// malloc and V8 settings). Source maps are on before main.js and its modules load.
import { prepareRuntime } from './runtime.js';

prepareRuntime();
await import('./main.js');
