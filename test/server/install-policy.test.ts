// What `npm ci` runs and prints, read from package.json and the lockfile (no install needed): every
// dependency install script npm would run is one package.json's allowScripts names (npm prints a
// notice for any other, and a later npm blocks it: the Node 24 package's own one among them), no
// dependency brings an install-time telemetry reporter, and secwire does not ask npm's own Node
// for the Node it runs on (it brings Node 24; devEngines says what npm itself may run on).
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8'));
const packages = Object.entries<{ hasInstallScript?: boolean; dev?: boolean }>(lock.packages).filter(([path]) => path !== '');
const nameOf = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

it('every dependency with an install script is reviewed in allowScripts', () => {
  const withScripts = [...new Set(packages.filter(([, p]) => p.hasInstallScript).map(([path]) => nameOf(path)))].sort();
  expect(withScripts.length).toBeGreaterThan(0);
  expect(withScripts.filter((name) => !(name in pkg.allowScripts))).toEqual([]);
  // The Node the project runs on arrives through an install script: it must stay allowed.
  expect(pkg.allowScripts.node).toBe(true);
});

it('no dependency reports installs to a telemetry service', () => {
  const telemetry = ['@scarf/scarf'];
  expect(packages.map(([path]) => nameOf(path)).filter((name) => telemetry.includes(name))).toEqual([]);
});

it("npm's own Node is not held to the Node secwire runs on", () => {
  // npm skips the root's `engines` check when devEngines is present; npm runs on Node 20 or later.
  expect(pkg.engines.node).toBe('>=24');
  expect(pkg.devEngines.runtime).toMatchObject({ name: 'node', version: '>=20' });
  expect(pkg.dependencies.node).toMatch(/^\^24\./);
});
