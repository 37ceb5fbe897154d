// The classifier's compact name list answers exactly as a Set of the same names would.
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NameList } from '../../src/ingest/classifier/name-list.js';

describe('NameList', () => {
  it('agrees with a Set on membership and holds each name once', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 12 })), fc.array(fc.string({ maxLength: 12 })), (names, probes) => {
        const list = new NameList(names);
        const set = new Set(names.filter(Boolean));
        for (const probe of [...names, ...probes]) expect(list.has(probe)).toBe(set.has(probe));
        expect([...list].sort()).toEqual([...set].sort());
        expect(list.size).toBe(set.size);
      }),
    );
  });

  it('finds every name of the PyPI registry list and nothing else', () => {
    const names = readFileSync(new URL('../../data/catalogue/registry-pypi.txt', import.meta.url), 'utf8')
      .split('\n')
      .filter(Boolean);
    const list = new NameList(names);
    expect(names.every((name) => list.has(name))).toBe(true);
    expect(names.some((name) => list.has(`${name}-not-listed-x`) && !names.includes(`${name}-not-listed-x`))).toBe(false);
  });
});
