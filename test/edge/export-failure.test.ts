import { get, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Prisma } from '../../src/generated/prisma/client.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeIssue } from '../helpers/issues.js';
import { listen, type Listening } from '../helpers/listening.js';
import { hangDatabase } from '../helpers/hang.js';
import { recordingLog } from '../helpers/recording-log.js';

const log = recordingLog();
let t: TestApp;
let listening: Listening;
let base: string;

beforeAll(async () => {
  t = await createTestApp({}, undefined, { log });
  await t.db.prisma.issue.createMany({ data: [makeIssue({ naturalKey: 'one' }), makeIssue({ naturalKey: 'two' })] as Prisma.IssueCreateManyInput[] });
  listening = await listen(t);
  base = listening.base;
});
afterAll(async () => {
  await listening?.close();
  await t?.close();
});

interface Received {
  status?: number;
  body: string;
  /** Whether the body ended properly (the final chunk arrived). */
  complete: boolean;
}

/**
 * GET `path` over a real connection; resolves once the response is over, however it ended (a
 * connection closed before the status line arrived is a response with no status).
 */
function receive(path: string): Promise<Received> {
  return new Promise((resolve) => {
    const request = get(`${base}${path}`, { agent: false }, (res: IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('error', () => {});
      res.on('close', () => resolve({ status: res.statusCode, body, complete: res.complete }));
    });
    request.on('error', () => resolve({ body: '', complete: false }));
  });
}

describe('a database error during the CSV export', () => {
  it('is an envelope before any byte of CSV, logged, and the next request builds again', async () => {
    await t.db.prisma.$executeRawUnsafe('ALTER TABLE "Issue" RENAME COLUMN "solution" TO "solution_gone"');
    let failed: Received;
    try {
      failed = await receive('/api/issues/export');
    } finally {
      await t.db.prisma.$executeRawUnsafe('ALTER TABLE "Issue" RENAME COLUMN "solution_gone" TO "solution"');
    }
    // The export is built before it is sent: a failure is a whole answer, never a 200 cut short.
    expect(failed.status).toBe(500);
    expect(failed.complete).toBe(true);
    expect(JSON.parse(failed.body)).toEqual({ error: { status: 500, message: expect.any(String) } });
    expect(log.entries.some((e) => e.level === 'error' && /export failed/.test(e.msg))).toBe(true);

    // Still serving: the whole export works again.
    const whole = await receive('/api/issues/export');
    expect(whole.status).toBe(200);
    expect(whole.complete).toBe(true);
    expect(whole.body.trim().split('\r\n')).toHaveLength(3);
  });

  it('is a 503 with Retry-After, before any byte, while the database hangs', async () => {
    const release = await hangDatabase(t);
    try {
      for (const path of ['/api/issues/export?severity=high', '/api/v1/osv/all.zip', '/api/v1/osv/ecosystems.txt']) {
        const res = await fetch(`${base}${path}`);
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBeTruthy();
        expect((await res.json()).error.status).toBe(503);
      }
    } finally {
      await release();
    }
  });
});
