// What the pages (README.md, docs/, bench/, eval/, data/) and the comments in code name exists:
// repository paths, the names a comment says a file has, link anchors, quoted sections (a page's
// "Heading"), npm scripts, CLI commands, benches and eval options; every variable src/config.ts
// reads is documented, and every one the configuration table lists is read there; each result
// marker of the bench and eval pages has its pair on the same page. Reads only repository files;
// test/server/readme-examples.test.ts runs the pages' examples.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(join(root, file), 'utf8');
const files = (dir: string, ext: RegExp): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (['generated', 'fixtures'].includes(e.name) ? [] : files(`${dir}/${e.name}`, ext)) : ext.test(e.name) ? [`${dir}/${e.name}`] : [],
  );
const pages = ['README.md', 'bench/README.md', 'bench/components.md', 'eval/README.md', 'examples/README.md', ...files('docs', /\.md$/)].concat(
  readdirSync(join(root, 'data')).flatMap((d) => (existsSync(join(root, 'data', d, 'README.md')) ? [`data/${d}/README.md`] : [])),
);
/** The comments of a code file, each on one line (a quoted section name may span two lines of a comment). */
function comments(file: string): string {
  let text = read(file).replace(/\/\*[\s\S]*?\*\//g, (block) => `// ${block.replace(/\s*\n\s*\*?(?!\/)/g, ' ')}`);
  for (let joined = ''; joined !== text; ) [joined, text] = [text, text.replace(/(\/\/.*)\n\s*\/\/ ?/g, '$1 ')];
  return [...text.matchAll(/(?<![:'"`\w])\/\/.*/g)].map((m) => m[0]).join('\n');
}
const code = [
  ...files('src', /\.ts$/),
  ...files('bench', /\.(ts|mjs)$/),
  ...files('eval', /\.ts$/),
  ...files('scripts', /\.(ts|mjs)$/),
  ...files('test', /\.ts$/),
];
const texts: [string, string][] = [
  ...pages.map((p) => [p, read(p)] as [string, string]),
  ...code.map((f) => [f, comments(f)] as [string, string]),
  ['bin/secwire', read('bin/secwire')],
];

const mdNames = new Set([...pages, ...files('data', /\.md$/)].map((page) => page.split('/').pop()));
/** A page's headings as GitHub anchors them, and the headings' own words. */
function headings(page: string): { anchors: Set<string>; titles: string[] } {
  const titles =
    read(page)
      .replace(/```[\s\S]*?```/g, '')
      .match(/^#{1,6} .*$/gm)
      ?.map((h) => h.replace(/^#+ /, '').replace(/`/g, '')) ?? [];
  const anchors = new Set(
    titles.map((t) =>
      t
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    ),
  );
  for (const [, id] of read(page).matchAll(/<a id="([^"]+)">/g)) anchors.add(id!);
  return { anchors, titles };
}
/** A named path as it stands from the repository root, else from the naming file's folder, src/ or test/. */
const resolve = (path: string, from: string) => [path, join(dirname(from), path), `src/${path}`, `test/${path}`].find((p) => existsSync(join(root, p)));

it('every path, anchor and quoted section named exists', () => {
  const wrong: string[] = [];
  const checked = { paths: 0, anchors: 0, sections: 0 };
  for (const [file, text] of texts) {
    const isPage = file.endsWith('.md');
    // Pages name paths in backticks (data/ pages also name their upstreams' paths in plain text).
    const named = isPage
      ? [...text.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!)
      : [...text.matchAll(/(?<![\w.@/-])[\w.-]+(?:\/[\w.-]+)+(?![\w/*<{.-])/g)].map((m) => m[0]);
    for (const path of named.map((p) => p.replace(/[.,:]+$/, ''))) {
      const topLevel = /^(src|test|bench|eval|docs|scripts|data|prisma|examples|bin)\/[\w./-]+$/.test(path) && !path.includes('...');
      const relative = /^[\w.-]+\/[\w./-]*\.(ts|mjs|md)$/.test(path);
      if (topLevel || relative) checked.paths++;
      if (topLevel ? !existsSync(join(root, path)) : relative && !resolve(path, file)) wrong.push(`${file}: ${path}`);
    }
    // A page named by its file name alone is one of the repository's pages (data/ pages also name their upstreams').
    const pageNames = file.startsWith('data/') ? [] : [...text.matchAll(/(?<![\w/.-])[\w-]+\.md\b/g)].map((m) => m[0]);
    for (const name of pageNames) if (!mdNames.has(name)) wrong.push(`${file}: ${name}`);
    // "rest/routes.ts restRoutes": the file defines or uses the name.
    for (const [, path, name] of isPage ? [] : text.matchAll(/([\w.-]+\/[\w./-]+\.ts),? ([a-z]+[A-Z]\w*)\b/g)) {
      const found = resolve(path!, file);
      if (found && !new RegExp(`\\b${name}\\b`).test(read(found))) wrong.push(`${file}: ${name} is not in ${found}`);
    }
    const linked = [...text.matchAll(/\]\(([^)\s:]*)#([\w-]+)\)|(?<![\w/(-])([\w./-]+\.md)#([\w-]+)/g)];
    for (const [, link, anchor, bare, bareAnchor] of linked) {
      const page = link === '' ? file : resolve(link ?? bare!, file);
      checked.anchors++;
      if (!page || !headings(page).anchors.has((anchor ?? bareAnchor)!)) wrong.push(`${file}: ${link ?? bare}#${anchor ?? bareAnchor}`);
    }
    const quoted = [...text.matchAll(/\(?(README|[\w./-]+\.md),? "([^"]+)"|"([^"]+)" section of ([\w./-]+\.md)/g)];
    for (const [, pageName, section, section2, pageName2] of quoted) {
      const page = resolve((pageName ?? pageName2)!.replace(/^README$/, 'README.md'), file);
      const title = (section ?? section2)!.toLowerCase();
      checked.sections++;
      if (!page?.endsWith('.md') || !headings(page).titles.some((t) => t.toLowerCase().includes(title)))
        wrong.push(`${file}: ${pageName ?? pageName2}, "${title}"`);
    }
  }
  expect(wrong, wrong.join('\n')).toEqual([]);
  expect(checked.paths).toBeGreaterThan(300);
  expect(checked.anchors).toBeGreaterThan(40);
  expect(checked.sections).toBeGreaterThan(20);
});

it('every npm script, CLI command, bench and eval option named exists', () => {
  const scripts = Object.keys(JSON.parse(read('package.json')).scripts);
  const commands = [...read('src/server/cli-commands.ts').matchAll(/^ {2}(\w+): \{$/gm)].map((m) => m[1]!);
  const benches = [...read('bench/run.ts').matchAll(/^ {2}'?([\w-]+)'?:/gm)].map((m) => m[1]!);
  const evalOptions = [...read('eval/run.ts').matchAll(/^ {8}'?([\w-]+)'?: \{ type:/gm)].map((m) => m[1]!);
  expect(commands).toContain('sync');
  expect(benches).toContain('soak');
  const names: Record<string, string[]> = { cli: commands, bench: benches, eval: evalOptions.map((o) => `--${o}`) };
  const wrong: string[] = [];
  for (const [file, text] of texts) {
    for (const [line, script, arg] of text.matchAll(/\bnpm run ([\w-]+(?::[\w-]+)?)(?: -- ([\w-]+))?/g)) {
      const argKnown = !arg || !names[script!] || names[script!]!.includes(arg) || (script !== 'eval' && arg.startsWith('-')) || arg === '-h';
      if (!scripts.includes(script!) || !argKnown) wrong.push(`${file}: ${line}`);
    }
  }
  expect(wrong, wrong.join('\n')).toEqual([]);
});

it('each variable src/config.ts reads is documented, and each the configuration table lists is read', () => {
  const configured = new Set([...read('src/config.ts').matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!));
  const docs = ['README.md', ...files('docs', /\.md$/)].map(read).join('\n');
  expect([...configured].filter((name) => !new RegExp(`\\b${name}\\b`).test(docs))).toEqual([]);
  const operations = read('docs/operations.md');
  const table = operations
    .slice(operations.indexOf('## Configuration'))
    .split('\n')
    .filter((l) => l.startsWith('| `'));
  const listed = table.flatMap((row) => [...row.split(' | ')[0]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));
  expect(listed.length).toBeGreaterThan(20);
  expect(listed.filter((name) => !configured.has(name))).toEqual([]);
});

it("the bench and eval pages' result markers pair up on one page", () => {
  for (const page of ['bench/README.md', 'bench/components.md', 'eval/README.md']) {
    const text = read(page);
    for (const [marker, name] of text.matchAll(/<!-- ([\w-]+):(?:begin|start) -->/g)) {
      expect(text.indexOf(`<!-- ${name}:end -->`), `${page}: ${marker} without its end after it`).toBeGreaterThan(text.indexOf(marker));
    }
    for (const [marker, name] of text.matchAll(/<!-- ([\w-]+):end -->/g)) {
      expect(new RegExp(`<!-- ${name}:(begin|start) -->`).test(text), `${page}: ${marker} without its begin`).toBe(true);
    }
  }
});
