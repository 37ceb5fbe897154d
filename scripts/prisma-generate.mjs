// Runs `prisma generate` without letting the CLI download a native engine (docs/architecture.md,
// "Development"). Used by postinstall and `npm run generate`.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const stub = fileURLToPath(new URL('./no-schema-engine.sh', import.meta.url));
execFileSync('npx', ['prisma', 'generate'], {
  stdio: 'inherit',
  env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: stub, CHECKPOINT_DISABLE: '1', PRISMA_HIDE_UPDATE_MESSAGE: '1' },
});

// The generated client imports the query compiler's Wasm as an ES module holding it in base64,
// and a module is never unloaded: its 4.4 MB source and the 4.4 MB string it exports stayed in
// the heap for the life of every process (bench/README.md, start-up). Reading the same file as
// text leaves both to the collector once the Wasm module is compiled.
const clientClass = fileURLToPath(new URL('../src/generated/prisma/internal/class.ts', import.meta.url));
const generated = readFileSync(clientClass, 'utf8');
const moduleImport = /const \{ wasm \} = await import\(("[^"]+\.wasm-base64\.mjs")\)\n(\s*)return await decodeBase64AsWasm\(wasm\)/;
if (!moduleImport.test(generated)) throw new Error(`${clientClass}: the query compiler's Wasm import is not where prisma-generate.mjs expects it`);
writeFileSync(
  clientClass,
  generated.replace(
    moduleImport,
    (_, specifier, indent) =>
      `const { readFileSync } = await import('node:fs')\n${indent}const { createRequire } = await import('node:module')\n` +
      `${indent}const text = readFileSync(createRequire(import.meta.url).resolve(${specifier}), 'utf8')\n` +
      `${indent}return await decodeBase64AsWasm(text.slice(text.indexOf('"') + 1, text.lastIndexOf('"')))`,
  ),
);
