// The OpenAPI document as real tools read it: Spectral's OAS ruleset (run from npm) finds nothing,
// and a client generated with openapi-typescript + openapi-fetch type-checks and calls the server.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
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

async function spectral(document: unknown): Promise<{ code: number; findings: { code: string; message: string; path: string[] }[] }> {
  const file = `${dir}openapi-${randomUUID()}.json`;
  writeFileSync(file, JSON.stringify(document));
  writeFileSync(`${dir}.spectral.yaml`, 'extends: ["spectral:oas"]\n');
  try {
    const { stdout } = await run(`${root}node_modules/.bin/spectral`, [
      'lint',
      file,
      '--ruleset',
      `${dir}.spectral.yaml`,
      '-f',
      'json',
      '--fail-severity=hint',
      '-q',
    ]);
    return { code: 0, findings: JSON.parse(stdout || '[]') };
  } catch (err: any) {
    return { code: err.code, findings: JSON.parse(err.stdout || '[]') };
  }
}

describe('Spectral', () => {
  it('finds nothing, not even a hint, in /api/v1/openapi.json', async () => {
    const { code, findings } = await spectral(doc);
    expect(findings.map((f) => `${f.code} at ${f.path.join('.')}: ${f.message}`)).toEqual([]);
    expect(code).toBe(0);
  }, 60_000);

  it('does find a broken copy (so the check above can fail)', async () => {
    const broken = structuredClone(doc);
    delete broken.paths['/stats'].get.operationId;
    broken.paths['/stats'].get.responses['200'].content['application/json'].example = { data: { totalIssues: 'many' } };
    const { code, findings } = await spectral(broken);
    expect(code).not.toBe(0);
    expect(findings.map((f) => f.code)).toEqual(expect.arrayContaining(['operation-operationId', 'oas3-valid-media-example']));
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
