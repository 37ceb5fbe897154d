// The README's example requests answer on a default start: every `curl ... localhost:3000/...`
// command in README.md is read (continuation lines joined, quotes and $VARIABLES as a shell reads
// them) and sent to the app on the bundled sample, and an empty answer fails: a 4xx or 5xx, an
// empty `data` list, a CSV with no rows, an empty body. Three kinds are not sent, each for a
// reason: a webhook registration (its URL's host would be looked up, off this machine), an event
// stream (it never ends) and a body read from the reader's own file (an SBOM).
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedSampleData } from '../../src/server/seed.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { recordingLog } from '../helpers/recording-log.js';

const root = new URL('../../', import.meta.url);
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
  /** The body is a file the reader brings. */
  ownFile?: boolean;
}

/** Every curl command of README.md that talks to localhost:3000, continuation lines joined. */
function readmeExamples(): Example[] {
  const text = readFileSync(new URL('README.md', root), 'utf8').replace(/\\\n/g, ' ');
  return text
    .split('\n')
    .filter((line) => /^\s*curl\s.*localhost:3000\//.test(line))
    .map((line) => {
      const words = shellWords(line.trim()).slice(1);
      const example: Example = { line: line.trim(), method: 'GET', url: new URL('http://localhost/'), headers: {}, stream: false };
      for (let i = 0; i < words.length; i++) {
        const w = words[i]!;
        if (w === '-X') example.method = words[++i]!;
        else if (w === '-H') {
          const [name, ...value] = words[++i]!.split(':');
          example.headers[name!.trim().toLowerCase()] = value.join(':').trim();
        } else if (w === '-d' || w === '--data' || w === '--data-binary') {
          const data = words[++i]!;
          // @file: a file of this repository, or the reader's own (an SBOM), which the test cannot send.
          if (data.startsWith('@') && !existsSync(new URL(data.slice(1), root))) example.ownFile = true;
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

it('README.md has example requests, and each answers with data on the bundled sample', async () => {
  const examples = readmeExamples();
  expect(examples.length).toBeGreaterThanOrEqual(3);
  const empty: string[] = [];
  for (const example of examples) {
    if (example.stream || example.ownFile || /\/webhooks\b/.test(example.url.pathname)) continue;
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
      if (Array.isArray(json.objects) && json.objects.length === 0) why = 'no objects';
      if (json.data?.total === 0 || json.meta?.total === 0) why = 'a total of 0';
    } else if (type.includes('csv') && body.toString('utf8').trim().split('\n').length < 2) why = 'a CSV without rows';
    else if (type.includes('atom') && !body.includes('<entry>')) why = 'an Atom feed without entries';
    if (why) empty.push(`${example.line}\n  -> ${why}`);
  }
  expect(empty, `README examples that answer nothing:\n${empty.join('\n')}`).toEqual([]);
}, 180_000);
