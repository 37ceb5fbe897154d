// The bundled sample data, read from disk as tests and tools ingest it.
import { readdirSync, readFileSync } from 'node:fs';

const root = new URL('../../data/', import.meta.url);

export function loadAdvisories(): Record<string, any>[] {
  const dir = new URL('advisories/', root);
  return readdirSync(dir)
    .filter((f) => /^GHSA-.*\.json$/.test(f))
    .sort()
    .map((f) => JSON.parse(readFileSync(new URL(f, dir), 'utf8')));
}

export function loadAdvisory(id: string): Record<string, any> {
  return JSON.parse(readFileSync(new URL(`advisories/${id}.json`, root), 'utf8'));
}

export function loadItems(file: string): Record<string, any>[] {
  return JSON.parse(readFileSync(new URL(`items/${file}`, root), 'utf8'));
}

export const adminKey = 'test-admin-key-0123456789';
export const adminHeaders = { authorization: `Bearer ${adminKey}` };

export const ingestMutation = `mutation Ingest($items: [JSON!]!) {
  ingestItems(items: $items) { data { received created updated unchanged rejected { index message } ids } }
}`;
