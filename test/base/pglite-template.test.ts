// Which install-time cluster a new embedded data directory starts from: the seeded one only when
// asked for and built from this code and data (its key), else the empty one; never over a cluster.
import { copyFile, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installedTemplates, seedInputsKey, templatesIn, unpackClusterTemplate, type ClusterTemplates } from '../../src/db/pglite-template.js';

let root: string;
let templates: ClusterTemplates;
const manifest = (key: string) => writeFile(templates.seededManifest, JSON.stringify({ key, created: 147, rejected: 0, digests: 126 }));

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'secwire-templates-'));
  // Copies of what `npm install` made, so each case can set its own manifest.
  templates = templatesIn(join(root, 'templates'));
  await mkdir(join(root, 'templates'));
  await copyFile(installedTemplates.empty, templates.empty);
  await copyFile(installedTemplates.seeded, templates.seeded);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Bytes of the cluster's databases: the seeded one's tables and indexes hold the sample. */
async function sizeOf(dir: string): Promise<number> {
  const entries = await readdir(join(dir, 'base'), { recursive: true, withFileTypes: true });
  const sizes = await Promise.all(entries.filter((e) => e.isFile()).map(async (e) => (await stat(join(e.parentPath, e.name))).size));
  return sizes.reduce((a, b) => a + b, 0);
}

describe('unpackClusterTemplate', () => {
  it('takes the seeded cluster when its key is this code and data', async () => {
    await manifest(await seedInputsKey());
    const dir = join(root, 'matching');
    expect(await unpackClusterTemplate(dir, { seeded: true, templates })).toEqual({
      template: 'seeded',
      seed: { key: await seedInputsKey(), created: 147, rejected: 0, digests: 126 },
    });
    expect(await readdir(dir)).toContain('PG_VERSION');
    // Renamed into place: nothing left beside it.
    expect(await readdir(root)).not.toContain('matching.unpacking');
  });

  it('takes the empty cluster when the key differs, when there is no manifest, or when not asked for the seeded one', async () => {
    await manifest('built-from-other-code');
    expect(await unpackClusterTemplate(join(root, 'stale'), { seeded: true, templates })).toEqual({ template: 'empty' });
    await rm(templates.seededManifest);
    expect(await unpackClusterTemplate(join(root, 'no-manifest'), { seeded: true, templates })).toEqual({ template: 'empty' });
    await manifest(await seedInputsKey());
    expect(await unpackClusterTemplate(join(root, 'not-asked'), { templates })).toEqual({ template: 'empty' });
    // The files are the empty cluster's, not the seeded one's.
    expect(await sizeOf(join(root, 'stale'))).toBe(await sizeOf(join(root, 'not-asked')));
    expect(await sizeOf(join(root, 'stale'))).toBeLessThan(await sizeOf(join(root, 'matching')));
  });

  it('leaves a directory that holds a cluster alone, and unpacks into an empty one that exists', async () => {
    await manifest(await seedInputsKey());
    expect(await unpackClusterTemplate(join(root, 'matching'), { seeded: true, templates })).toBeNull();
    // The server's lock creates the directory before the unpack.
    const made = join(root, 'made-empty');
    await mkdir(made);
    expect(await unpackClusterTemplate(made, { seeded: true, templates })).toMatchObject({ template: 'seeded' });
    expect(await readdir(made)).toContain('PG_VERSION');
  });
});
