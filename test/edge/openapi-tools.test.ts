// The OpenAPI document as real tools read it: Redocly's recommended ruleset (@redocly/openapi-core,
// the linter openapi-typescript itself reads documents with) finds nothing, and a client generated
// with openapi-typescript + openapi-fetch type-checks and calls the server.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeIssue } from '../helpers/issues.js';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
// Inside the project (tmp/ is ignored by git) so the client resolves openapi-fetch from node_modules.
const dir = `${root}tmp/openapi-tools-${randomUUID()}/`;
let t: TestApp;
let doc: any;

beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  t = await createTestApp();
  await t.db.prisma.issue.createMany({
    data: [
      makeIssue({ title: 'Critical one', severity: 'critical', publishedAt: new Date('2025-03-02T00:00:00Z') }),
      makeIssue({
        title: 'Critical two',
        severity: 'critical',
        publishedAt: new Date('2025-03-01T00:00:00Z'),
        packageNames: ['llm-serve'],
        affectedPackages: ['llm-serve'],
      }),
      makeIssue({ title: 'Low one', severity: 'low' }),
    ],
  });
  doc = await (await t.fetch('/api/v1/openapi.json')).json();
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t?.close();
});

/**
 * Redocly's recommended ruleset over a document: every problem, warnings included. Two rules ask
 * for what this API decides otherwise, as Spectral's OAS ruleset (used before) did not ask for it:
 * `security: []` on every public read (reads need no key, and no operation says otherwise), and a
 * 4xx response on the download routes, whose only 4xx is the rate limit's 429 that every route has.
 */
async function redoclyLint(document: unknown): Promise<{ ruleId: string; message: string; pointer: string }[]> {
  const config = await createConfig({ extends: ['recommended'], rules: { 'security-defined': 'off', 'operation-4xx-response': 'off' } });
  const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: `${dir}openapi.json`, config });
  return problems.map((p) => ({ ruleId: p.ruleId, message: p.message, pointer: p.location[0]?.pointer ?? '' }));
}

describe("Redocly's recommended ruleset, and the document's own conventions", () => {
  it('finds nothing, not even a warning, in /api/v1/openapi.json', async () => {
    const problems = await redoclyLint(doc);
    expect(problems.map((p) => `${p.ruleId} at ${p.pointer}: ${p.message}`)).toEqual([]);
  }, 60_000);

  it('does find a broken copy (so the check above can fail)', async () => {
    const broken = structuredClone(doc);
    delete broken.paths['/stats'].get.operationId;
    broken.paths['/stats'].get.responses['200'].content['application/json'].example = { data: { totalIssues: 'many' } };
    const problems = await redoclyLint(broken);
    expect(problems.map((p) => p.ruleId)).toEqual(expect.arrayContaining(['operation-operationId', 'no-invalid-media-type-examples']));
  }, 60_000);

  it('every operation has an operationId, a summary and an example', () => {
    const ids: string[] = [];
    for (const { servers: _servers, ...item } of Object.values<any>(doc.paths)) {
      for (const op of Object.values<any>(item)) {
        ids.push(op.operationId);
        expect(op.summary, op.operationId).toBeTruthy();
        const examples = [
          ...(op.parameters ?? []).map((p: any) => p.example),
          ...Object.values<any>(op.requestBody?.content ?? {}).map((m) => m.example),
          ...Object.values<any>(op.responses ?? {}).flatMap((r) => Object.values<any>(r.content ?? {}).map((m) => m.example)),
        ].filter((e) => e !== undefined);
        // Routes without input or a response example: the TAXII collection list and the OSV zip (a binary).
        if (!['taxiiCollections', 'osvAllZip'].includes(op.operationId)) expect(examples.length, op.operationId).toBeGreaterThan(0);
      }
    }
    expect(ids.every(Boolean)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('a client generated with openapi-typescript and openapi-fetch', () => {
  it('type-checks against the generated types and calls the real server', async () => {
    writeFileSync(`${dir}api.ts`, astToString(await openapiTS(doc)));
    copyFileSync(new URL('../fixtures/openapi-client/client.ts.txt', import.meta.url), `${dir}client.ts`);
    writeFileSync(
      `${dir}tsconfig.json`,
      JSON.stringify({
        compilerOptions: {
          noEmit: true,
          strict: true,
          skipLibCheck: true,
          target: 'ES2023',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023', 'DOM'],
          types: ['node'],
        },
        files: ['client.ts'],
      }),
    );
    const tsc = await run(`${root}node_modules/.bin/tsc`, ['-p', dir]).catch((err) => err);
    expect(tsc.stdout ?? '', 'tsc').toBe('');

    const { useClient } = await import(`${dir}client.ts`);
    const result = await useClient((request: Request) => Promise.resolve(t.app.fetch(request)));
    expect(result).toEqual({
      total: 2,
      titles: ['Critical one', 'Critical two'],
      oneTitle: 'Critical one',
      missing: { status: 404, message: 'Issue not found' },
      osvId: expect.stringMatching(/^x_secwire-/),
      scanTotal: 1,
      digestTotal: 0,
    });
  }, 120_000);
});
