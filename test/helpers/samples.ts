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

/** `n` sample advisories under fresh GHSA and CVE ids (`tag`: 4 hex digits), so each is a new issue. */
export function clonedAdvisories(n: number, tag: string): Record<string, any>[] {
  const base = loadAdvisories();
  return Array.from({ length: n }, (_, i) => {
    const record = structuredClone(base[i % base.length]!);
    const hex = i.toString(16).padStart(8, '0');
    record.id = `GHSA-${tag}-${hex.slice(0, 4)}-${hex.slice(4)}`;
    record.aliases = [`CVE-2099-${parseInt(tag, 16) * 10_000 + i}`];
    // References name PYSEC ids, which would merge the clones back into one issue.
    record.references = [];
    return record;
  });
}
