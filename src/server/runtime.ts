// What both entries (start.ts, cli.ts) set up before loading anything else. The service runs on
// Node 24 or later (package.json engines); bin/secwire runs the Node the project installs, so an
// older one means the entry was started by hand with another `node`: say so in one line.
// (A default import: a named import of an export this Node lacks would fail before any line runs.)
import nodeModule from 'node:module';

export function prepareRuntime(): void {
  if (Number(process.versions.node.split('.')[0]) < 24) {
    console.error(
      `secwire: cannot start: it needs Node 24 or later, this is Node ${process.versions.node} (npm start and bin/secwire use the Node the project installs)`,
    );
    process.exit(1);
  }
  // Stack traces name our TypeScript source. Only our own files' maps: --enable-source-maps also
  // parsed and kept every package's map, and the sources some of them embed (about 5 MB of heap).
  nodeModule.setSourceMapsSupport(true);
}
