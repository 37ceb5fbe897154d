// What README.md and docs/*.md show works as written, on a default start with the bundled sample:
// - every `curl ... localhost:3000/...` command (continuation lines joined, quotes and $VARIABLES
//   as a shell reads them) is sent to the app, and an empty answer fails: a 4xx or 5xx, GraphQL
//   errors, an empty `data` list, a CSV with no rows, an empty body. Three kinds are not sent, each
//   for a reason: a webhook registration (its URL's host would be looked up, off this machine), an
//   event stream (it never ends) and a body piped in from another command (`@-`). A body read from
//   a file (`-d @file`) must name a file of this repository;
// - every `npm run <script>` names a script of package.json, every `npm run cli -- <command>` a CLI
//   command, and each path it is given exists;
// - every repository path the pages name (`src/...`, `data/...`, a relative link) exists;
// - the issue types and labels README.md lists are the ones the API takes.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { IssueType } from '../../src/generated/prisma/enums.js';
import { commands } from '../../src/server/cli-commands.js';
import { issueLabels } from '../../src/sources/definition.js';
import { seedSampleData } from '../../src/server/seed.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { recordingLog } from '../helpers/recording-log.js';

const root = new URL('../../', import.meta.url);
const rootDir = fileURLToPath(root);
/** README.md and every page of docs/, by their paths from the repository root. */
const pages = [
  'README.md',
  ...readdirSync(join(rootDir, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const pageText = (page: string) => readFileSync(join(rootDir, page), 'utf8');
const keys: Record<string, string> = { ADMIN_API_KEY: 'readme-admin-key-0123456789', WEBHOOK_API_KEY: 'readme-webhook-key-0123456789' };
keys.KEY = keys.WEBHOOK_API_KEY!;

/** The words of a shell command line: quotes removed, $NAME expanded outside single quotes, # comments dropped. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  const add = (text: string) => (word = (word ?? '') + text);
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      add(line.slice(i + 1, end));
      i = end;
    } else if (c === '"') {
      const end = line.indexOf('"', i + 1);
      add(line.slice(i + 1, end).replace(/\$(\w+)/g, (_, name: string) => keys[name] ?? ''));
      i = end;
    } else if (c === '$') {
      const name = /^\w+/.exec(line.slice(i + 1))![0];
      add(keys[name] ?? '');
      i += name.length;
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === '#' && word === null) break;
    else add(c);
  }
  if (word !== null) words.push(word);
  return words;
}

interface Example {
  line: string;
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
  stream: boolean;
  /** The body comes from another command's output (`@-`). */
  piped?: boolean;
  /** The body names a file that is not in the repository. */
  missingFile?: string;
}

/** Every curl command of a page that talks to localhost:3000, continuation lines joined. */
function curlExamples(page: string): Example[] {
  const text = pageText(page).replace(/\\\n/g, ' ');
  return text
    .split('\n')
    .filter((line) => /^\s*curl\s.*localhost:3000\//.test(line))
    .map((line) => {
      const words = shellWords(line.trim()).slice(1);
      const example: Example = { line: `${page}: ${line.trim()}`, method: 'GET', url: new URL('http://localhost/'), headers: {}, stream: false };
      for (let i = 0; i < words.length; i++) {
        const w = words[i]!;
        if (w === '-X') example.method = words[++i]!;
        else if (w === '-H') {
          const [name, ...value] = words[++i]!.split(':');
          example.headers[name!.trim().toLowerCase()] = value.join(':').trim();
        } else if (w === '-d' || w === '--data' || w === '--data-binary') {
          const data = words[++i]!;
          if (data === '@-') example.piped = true;
          else if (data.startsWith('@') && !existsSync(new URL(data.slice(1), root))) example.missingFile = data.slice(1);
          else example.body = data.startsWith('@') ? readFileSync(new URL(data.slice(1), root), 'utf8') : data;
          if (example.method === 'GET') example.method = 'POST';
        } else if (w === '-o') i++;
        else if (w === '-N') example.stream = true;
        else if (/localhost:3000\//.test(w)) example.url = new URL(w.replace(/^(?!https?:\/\/)/, 'http://'));
      }
      return example;
    });
}

let t: TestApp;
let anIssueId: string;

beforeAll(async () => {
  t = await createTestApp({ adminApiKey: keys.ADMIN_API_KEY, webhookApiKey: keys.WEBHOOK_API_KEY });
  await seedSampleData({ prisma: t.db.prisma, pubsub: t.pubsub, log: recordingLog(), db: t.db });
  anIssueId = (await (await t.fetch('/api/v1/issues?limit=1')).json()).data[0].id;
}, 180_000);
afterAll(async () => t?.close());

it('README.md and docs/ have example requests, and each answers with data on the bundled sample', async () => {
  const examples = pages.flatMap(curlExamples);
  expect(examples.filter((e) => e.line.startsWith('README.md:')).length).toBeGreaterThanOrEqual(3);
  expect(examples.length).toBeGreaterThanOrEqual(20);
  const empty: string[] = [];
  for (const example of examples) {
    if (example.missingFile) {
      empty.push(`${example.line}\n  -> sends ${example.missingFile}, which is not in the repository`);
      continue;
    }
    if (example.stream || example.piped || /\/webhooks\b/.test(example.url.pathname)) continue;
    const path = `${example.url.pathname}${example.url.search}`.replaceAll('%3Cid%3E', anIssueId).replaceAll('<id>', anIssueId);
    const res = await t.fetch(path, { method: example.method, headers: example.headers, body: example.body });
    const body = Buffer.from(await res.arrayBuffer());
    const type = res.headers.get('content-type') ?? '';
    let why: string | undefined;
    if (res.status >= 400) why = `HTTP ${res.status}: ${body.toString('utf8').slice(0, 200)}`;
    else if (body.length === 0) why = 'an empty body';
    else if (type.includes('json')) {
      const json = JSON.parse(body.toString('utf8'));
      if (Array.isArray(json.data) && json.data.length === 0) why = 'an empty data list';
      if (Array.isArray(json.objects) && !json.objects.some((o: { type: string }) => o.type === 'vulnerability' || o.type === 'report')) {
        why = 'no issue among the objects';
      }
      if (Array.isArray(json.vulnerabilities) && json.vulnerabilities.length === 0) why = 'no vulnerabilities';
      if (json.data?.total === 0 || json.meta?.total === 0) why = 'a total of 0';
      if (json.errors) why = `GraphQL errors: ${JSON.stringify(json.errors).slice(0, 200)}`;
    } else if (type.includes('csv') && body.toString('utf8').trim().split('\n').length < 2) why = 'a CSV without rows';
    else if (type.includes('atom') && !body.includes('<entry>')) why = 'an Atom feed without entries';
    if (why) empty.push(`${example.line}\n  -> ${why}`);
  }
  expect(empty, `examples that answer nothing:\n${empty.join('\n')}`).toEqual([]);
}, 180_000);

/** The lines of a page's fenced `sh` blocks, continuation lines joined. */
function shellLines(page: string): string[] {
  const blocks = [...pageText(page).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.replace(/\\\n/g, ' '));
  return blocks.flatMap((block) => block.split('\n')).map((line) => line.trim());
}

it('every npm script and CLI command the pages show exists, and so does every path it is given', () => {
  const scripts = Object.keys(JSON.parse(pageText('package.json')).scripts);
  const wrong: string[] = [];
  let cliCommands = 0;
  for (const page of pages) {
    for (const line of shellLines(page)) {
      for (const [, script, rest] of line.matchAll(/\bnpm run ([\w:-]+)(.*)/g)) {
        if (!scripts.includes(script!)) wrong.push(`${page}: ${line}\n  -> no npm script ${script}`);
        if (script !== 'cli') continue;
        const words = shellWords(rest!.replace(/^\s*--/, ''));
        const command = words[0];
        if (!command || command.startsWith('-')) continue;
        cliCommands++;
        if (!(command in commands)) wrong.push(`${page}: ${line}\n  -> no CLI command ${command}`);
        for (const word of words.slice(1)) {
          const looksLikePath = /\/|\.json$/.test(word) && !/[<>]/.test(word);
          if (looksLikePath && !existsSync(join(rootDir, word))) wrong.push(`${page}: ${line}\n  -> ${word} is not in the repository`);
        }
      }
    }
  }
  expect(cliCommands).toBeGreaterThanOrEqual(5);
  expect(wrong, wrong.join('\n')).toEqual([]);
});

/** Top-level folders whose paths the pages name as they stand in the repository. */
const repositoryPath = /^(?:src|test|data|bench|eval|docs|scripts|examples|bin|prisma|\.ci)\/[^\s<>*]*$/;

it('every repository path and relative link of the pages exists', () => {
  const missing: string[] = [];
  let checked = 0;
  for (const page of pages) {
    const text = pageText(page);
    const named = [...text.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!).filter((p) => repositoryPath.test(p) && !p.includes('...'));
    const links = [...text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
    for (const [path, from] of [...named.map((p) => [p, rootDir] as const), ...links.map((l) => [l, join(rootDir, dirname(page))] as const)]) {
      checked++;
      if (!existsSync(join(from, path))) missing.push(`${page}: ${path}`);
    }
  }
  expect(checked).toBeGreaterThan(30);
  expect(missing, `paths named in README.md or docs/ that do not exist:\n${missing.join('\n')}`).toEqual([]);
});

it('README.md lists the issue types the API takes and only labels the classifier gives', () => {
  const readme = pageText('README.md');
  const listed = (field: string) => {
    const line = readme.split('\n').find((l) => l.includes(`**${field}**`));
    return [...(line ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  };
  expect(listed('type').sort()).toEqual(Object.values(IssueType).sort());
  const labels = listed('labels');
  expect(labels.length).toBeGreaterThan(0);
  expect(labels.filter((l) => !(issueLabels as readonly string[]).includes(l))).toEqual([]);
});

it("docs/api.md's parameter table of the issue list holds exactly the parameters the server's 400 names", async () => {
  const res = await t.fetch('/api/v1/issues?nosuchparameter=1');
  expect(res.status).toBe(400);
  const { message } = (await res.json()).error;
  const known = /\(known: ([^)]+)\)/.exec(message)![1]!.split(', ');
  const api = pageText('docs/api.md');
  const table = api.slice(api.indexOf('| parameter | meaning |'));
  const rows = table.slice(0, table.indexOf('\n\n')).split('\n').slice(2);
  const documented = rows.map((row) => /^\| `(\w+)` \|/.exec(row)![1]!);
  expect(documented.sort()).toEqual(known.sort());
});
