// Version ordering and OSV range evaluation per ecosystem, and the parsing of stack entries. Pure
// functions, tested directly; test/edge/scan.test.ts covers the same rules through HTTP and a database.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareMavenVersions } from '../../src/scan/maven-version.js';
import { affectedEntries, versionVerdict, type AffectedVersions } from '../../src/scan/affected-versions.js';
import { parsePackageEntry, parseStack } from '../../src/scan/stack.js';
import { VersionSet, versionsNotRuledOut } from '../../src/scan/version-set.js';

const entry = (ecosystem: string, name: string, events: Record<string, string>[], extra: Partial<AffectedVersions> = {}): AffectedVersions =>
  affectedEntries({ affected: [{ package: { ecosystem, name }, ranges: [{ type: 'ECOSYSTEM', events }], ...extra }] })[0]!;

describe("Maven ordering (the orderings of Maven's ComparableVersionTest)", () => {
  const ascending = (versions: string[]) => {
    for (let i = 0; i < versions.length; i++) {
      for (let j = i + 1; j < versions.length; j++) {
        expect(compareMavenVersions(versions[i]!, versions[j]!), `${versions[i]} < ${versions[j]}`).toBeLessThan(0);
        expect(compareMavenVersions(versions[j]!, versions[i]!), `${versions[j]} > ${versions[i]}`).toBeGreaterThan(0);
      }
    }
  };

  it('orders qualifiers', () => {
    ascending([
      '1-alpha2snapshot',
      '1-alpha2',
      '1-alpha-123',
      '1-beta-2',
      '1-beta123',
      '1-m2',
      '1-m11',
      '1-rc',
      '1-cr2',
      '1-rc123',
      '1-SNAPSHOT',
      '1',
      '1-sp',
      '1-sp2',
      '1-sp123',
      '1-abc',
      '1-def',
      '1-pom-1',
      '1-1-snapshot',
      '1-1',
      '1-2',
      '1-123',
    ]);
  });

  it('orders numbers and mixed items', () => {
    ascending([
      '2.0',
      '2-1',
      '2.0.a',
      '2.0.0.a',
      '2.0.2',
      '2.0.123',
      '2.1.0',
      '2.1-a',
      '2.1b',
      '2.1-c',
      '2.1-1',
      '2.1.0.1',
      '2.2',
      '2.123',
      '11.a2',
      '11.a11',
      '11.b2',
      '11.b11',
      '11.m2',
      '11.m11',
      '11',
      '11.a',
      '11b',
      '11c',
      '11m',
    ]);
  });

  it('treats equivalent spellings as equal', () => {
    for (const [a, b] of [
      ['1', '1.0.0'],
      ['1', '1-0'],
      ['1.0', '1.0-0'],
      ['1a', '1-a'],
      ['1a', '1.0.0-a'],
      ['1ga', '1'],
      ['1FINAL', '1'],
      ['1cr', '1rc'],
      ['1a1', '1alpha1'],
      ['1m3', '1MILESTONE3'],
      ['1-abcdefghijklmnopqrstuvwxyz', '1-ABCDEFGHIJKLMNOPQRSTUVWXYZ'],
    ]) {
      expect(compareMavenVersions(a!, b!), `${a} == ${b}`).toBe(0);
    }
  });

  it('compares releases, snapshots and big numbers', () => {
    ascending([
      '1.0-alpha-1-SNAPSHOT',
      '1.0-alpha-1',
      '1.0-beta-1',
      '1.0-SNAPSHOT',
      '1.0',
      '1.0-1',
      '1.0-2',
      '2.0-1',
      '2.0.1',
      '2.0.1-klm',
      '2.0.1-lmn',
      '2.0.1-123',
    ]);
    ascending(['1.2.99999999999999999999', '1.2.100000000000000000000']);
  });
});

describe('PyPI ranges (PEP 440)', () => {
  const langchainFixed = entry('PyPI', 'langchain', [{ introduced: '0' }, { fixed: '0.0.236' }]);
  const langchainLast = entry('PyPI', 'langchain', [{ introduced: '0' }, { last_affected: '0.0.225' }]);

  it('fixed excludes the fixed version and everything after it', () => {
    expect(versionVerdict('0.0.200', langchainFixed)).toBe('affected');
    expect(versionVerdict('0.0.235', langchainFixed)).toBe('affected');
    expect(versionVerdict('0.0.236', langchainFixed)).toBe('not-affected');
    expect(versionVerdict('0.0.300', langchainFixed)).toBe('not-affected');
    expect(versionVerdict('0.1.0', langchainFixed)).toBe('not-affected');
  });

  it('last_affected includes that version and excludes later ones', () => {
    expect(versionVerdict('0.0.225', langchainLast)).toBe('affected');
    expect(versionVerdict('0.0.225.post1', langchainLast)).toBe('not-affected');
    expect(versionVerdict('0.0.226', langchainLast)).toBe('not-affected');
  });

  it('several introduced/fixed pairs in one range, given in any order', () => {
    const tf = entry('PyPI', 'tensorflow', [
      { introduced: '2.4.0' },
      { fixed: '2.4.3' },
      { introduced: '0' },
      { fixed: '2.3.4' },
      { introduced: '2.5.0' },
      { fixed: '2.5.1' },
    ]);
    expect(versionVerdict('2.3.3', tf)).toBe('affected');
    expect(versionVerdict('2.3.4', tf)).toBe('not-affected');
    expect(versionVerdict('2.3.9', tf)).toBe('not-affected');
    expect(versionVerdict('2.4.0', tf)).toBe('affected');
    expect(versionVerdict('2.4.2', tf)).toBe('affected');
    expect(versionVerdict('2.4.3', tf)).toBe('not-affected');
    expect(versionVerdict('2.5.0', tf)).toBe('affected');
    expect(versionVerdict('2.5.1', tf)).toBe('not-affected');
    expect(versionVerdict('2.6.0', tf)).toBe('not-affected');
  });

  it('pre-releases, post-releases, epochs and normalisation follow PEP 440', () => {
    const litellm = entry('PyPI', 'litellm', [{ introduced: '1.35.0.dev1' }, { fixed: '1.35.0' }]);
    expect(versionVerdict('1.35.0.dev0', litellm)).toBe('not-affected');
    expect(versionVerdict('1.35.0.dev1', litellm)).toBe('affected');
    expect(versionVerdict('1.35.0rc1', litellm)).toBe('affected');
    expect(versionVerdict('1.35.0', litellm)).toBe('not-affected');
    expect(versionVerdict('1.34.99', litellm)).toBe('not-affected');
    const fixed = entry('PyPI', 'x', [{ introduced: '0' }, { fixed: '2.0' }]);
    expect(versionVerdict('1!0.1', fixed)).toBe('not-affected'); // epoch 1 sorts after every epoch-0 version
    expect(versionVerdict('2.0.0', fixed)).toBe('not-affected'); // 2.0.0 == 2.0
    expect(versionVerdict('2.0rc1', fixed)).toBe('affected');
    expect(versionVerdict('1.9.post3', fixed)).toBe('affected');
    expect(versionVerdict('V1.9', fixed)).toBe('affected');
  });

  it('a listed version is affected even outside the ranges', () => {
    const e = entry('PyPI', 'tensorflow', [{ introduced: '2.5.0' }, { fixed: '2.5.1' }], { versions: ['2.4.9'] });
    expect(versionVerdict('2.4.9', e)).toBe('affected');
    expect(versionVerdict('2.4.8', e)).toBe('not-affected');
  });
});

describe('npm and Go ranges (SemVer)', () => {
  it('npm: pre-releases sort before their release; "v" prefixes are tolerated', () => {
    const e = entry('npm', '@langchain/core', [{ introduced: '0.1.0' }, { fixed: '0.1.5' }]);
    expect(versionVerdict('0.0.9', e)).toBe('not-affected');
    expect(versionVerdict('0.1.0', e)).toBe('affected');
    expect(versionVerdict('0.1.5-beta.1', e)).toBe('affected');
    expect(versionVerdict('v0.1.4', e)).toBe('affected');
    expect(versionVerdict('0.1.5', e)).toBe('not-affected');
    expect(versionVerdict('1.0.0', e)).toBe('not-affected');
  });

  it('Go: module versions with "v", pseudo-versions and +incompatible', () => {
    const e = entry('Go', 'github.com/ollama/ollama', [{ introduced: '0' }, { fixed: '0.1.34' }]);
    expect(versionVerdict('v0.1.33', e)).toBe('affected');
    expect(versionVerdict('0.1.33', e)).toBe('affected');
    expect(versionVerdict('v0.0.0-20240101000000-abcdef123456', e)).toBe('affected');
    expect(versionVerdict('v0.1.34', e)).toBe('not-affected');
    expect(versionVerdict('v2.0.0+incompatible', e)).toBe('not-affected');
  });

  it('a SEMVER range uses SemVer whatever the ecosystem', () => {
    const [e] = affectedEntries([
      { package: { ecosystem: 'Go', name: 'm' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '1.0.0' }, { last_affected: '1.4.2' }] }] },
    ]);
    expect(versionVerdict('1.4.2', e!)).toBe('affected');
    expect(versionVerdict('1.4.3', e!)).toBe('not-affected');
  });

  it('limit caps a range', () => {
    const e = entry('npm', 'p', [{ introduced: '1.0.0' }, { limit: '2.0.0' }]);
    expect(versionVerdict('1.9.9', e)).toBe('affected');
    expect(versionVerdict('2.0.0', e)).toBe('not-affected');
  });
});

describe('Maven ranges', () => {
  const log4j = entry('Maven', 'org.apache.logging.log4j:log4j-core', [{ introduced: '2.0-beta9' }, { fixed: '2.15.0' }]);
  it('orders qualifiers inside ranges', () => {
    expect(versionVerdict('2.0-alpha1', log4j)).toBe('not-affected');
    expect(versionVerdict('2.0-beta9', log4j)).toBe('affected');
    expect(versionVerdict('2.0', log4j)).toBe('affected');
    expect(versionVerdict('2.14.1', log4j)).toBe('affected');
    expect(versionVerdict('2.15.0-rc1', log4j)).toBe('affected');
    expect(versionVerdict('2.15.0', log4j)).toBe('not-affected');
    expect(versionVerdict('2.15', log4j)).toBe('not-affected');
    expect(versionVerdict('2.17.1', log4j)).toBe('not-affected');
  });
});

describe('unknown versions are reported, not hidden', () => {
  it('an unparseable version is unknown', () => {
    const e = entry('PyPI', 'langchain', [{ introduced: '0' }, { fixed: '0.0.236' }]);
    expect(versionVerdict('latest', e)).toBe('unknown');
    expect(versionVerdict('not a version', entry('npm', 'p', [{ introduced: '0' }, { fixed: '1.0.0' }]))).toBe('unknown');
  });

  it('an ecosystem without a known ordering is unknown', () => {
    expect(versionVerdict('1.0.0', entry('RubyGems', 'rails', [{ introduced: '0' }, { fixed: '7.0.0' }]))).toBe('unknown');
  });

  it('an unparseable event version is unknown; another range can still decide "affected"', () => {
    const e = affectedEntries([
      {
        package: { ecosystem: 'npm', name: 'p' },
        ranges: [
          { type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: 'soon' }] },
          { type: 'ECOSYSTEM', events: [{ introduced: '2.0.0' }, { fixed: '2.1.0' }] },
        ],
      },
    ])[0]!;
    expect(versionVerdict('3.0.0', e)).toBe('unknown');
    expect(versionVerdict('2.0.5', e)).toBe('affected');
  });

  it('GIT ranges say nothing about versions; a version list then decides', () => {
    const git = (versions?: string[]) =>
      affectedEntries([{ package: { ecosystem: 'PyPI', name: 'p' }, versions, ranges: [{ type: 'GIT', events: [{ introduced: 'abc123' }] }] }])[0]!;
    expect(versionVerdict('1.0', git())).toBe('unknown');
    expect(versionVerdict('1.0', git(['0.9', '1.0']))).toBe('affected');
    expect(versionVerdict('1.1', git(['0.9', '1.0']))).toBe('not-affected');
  });

  it('ignores malformed source records', () => {
    expect(affectedEntries(null)).toEqual([]);
    expect(affectedEntries({ affected: 'x' })).toEqual([]);
    expect(
      affectedEntries({
        affected: [
          { package: { name: 'x' } },
          3,
          { package: { ecosystem: 'PyPI', name: 'ok' }, ranges: [{ type: 'ECOSYSTEM', events: [{ nope: '1' }, { fixed: '1' }] }] },
        ],
      }),
    ).toEqual([{ ecosystem: 'PyPI', name: 'ok', versions: [], ranges: [{ type: 'ECOSYSTEM', events: [{ kind: 'fixed', version: '1' }] }] }]);
  });
});

describe('stack entries', () => {
  it('reads names, name@version and scoped npm names', () => {
    expect(parsePackageEntry(' LangChain ', 'p')).toMatchObject({ name: 'LangChain', version: undefined, keys: ['langchain'] });
    expect(parsePackageEntry('langchain@0.0.300', 'p')).toMatchObject({ name: 'langchain', version: '0.0.300', ecosystem: undefined });
    expect(parsePackageEntry('@langchain/core@0.1.2', 'p')).toMatchObject({ name: '@langchain/core', version: '0.1.2' });
    expect(parsePackageEntry('@langchain/core', 'p')).toMatchObject({ name: '@langchain/core', version: undefined });
    expect(parsePackageEntry('llama_index@0.9.1', 'p').keys).toEqual(['llama_index', 'llama-index']);
  });

  it('reads purls of each ecosystem into OSV names', () => {
    expect(parsePackageEntry('pkg:pypi/LangChain@0.0.300', 'p')).toMatchObject({ name: 'langchain', ecosystem: 'pypi', version: '0.0.300' });
    expect(parsePackageEntry('pkg:npm/%40langchain/core@0.1.2', 'p')).toMatchObject({
      name: '@langchain/core',
      ecosystem: 'npm',
      version: '0.1.2',
      keys: ['@langchain/core'],
    });
    expect(parsePackageEntry('pkg:golang/github.com/ollama/ollama@v0.1.30', 'p')).toMatchObject({
      name: 'github.com/ollama/ollama',
      ecosystem: 'go',
      version: 'v0.1.30',
    });
    expect(parsePackageEntry('pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1', 'p')).toMatchObject({
      name: 'org.apache.logging.log4j:log4j-core',
      ecosystem: 'maven',
    });
    expect(parsePackageEntry('pkg:cargo/serde', 'p')).toMatchObject({ name: 'serde', ecosystem: 'crates.io', version: undefined });
    // OSV calls Conan's ecosystem "ConanCenter".
    expect(parsePackageEntry('pkg:conan/openssl@3.0.0', 'p')).toMatchObject({ name: 'openssl', ecosystem: 'conancenter' });
  });

  it('rejects bad entries with the index in the message', () => {
    expect(() => parseStack(['ok', 'pkg:/nope'], [])).toThrow(/packages\[1\] is not a valid package URL/);
    expect(() => parseStack(['x@'], [])).toThrow(/packages\[0\] has an empty version/);
    expect(() => parseStack(['a', '  '], [])).toThrow(/packages\[1\] is empty/);
    expect(() => parseStack([], ['a'.repeat(201)])).toThrow(/vendors\[0\] is longer than 200 characters/);
    expect(() =>
      parseStack(
        Array.from({ length: 1001 }, (_, i) => `p${i}`),
        [],
      ),
    ).toThrow(/at most 1000/);
    expect(() => parseStack([], [])).toThrow(/at least one/);
    expect(() => parseStack(undefined, null)).toThrow(/at least one/);
  });

  it('keeps the first of duplicate entries', () => {
    const stack = parseStack(['a', 'b', 'a'], ['V', 'V']);
    expect(stack.packages.map((p) => p.input)).toEqual(['a', 'b']);
    expect(stack.vendors).toEqual([{ input: 'V', key: 'v' }]);
  });
});

describe('checking many versions at once (VersionSet)', () => {
  // A pool where versions tie under some schemes ("1.0" = "1.0.0" in Maven and PEP 440), some are
  // not versions under some schemes, and events may be unparseable.
  const pool = ['0', '0.1.0', '1.0', '1.0.0', 'v1.0.0', '1.0.0-rc.1', '1.0.1', '1.2.0', '1.10.0', '2.0.0', '2.0.0.post1', 'abc', '10.0.0', '*'];
  const version = fc.constantFrom(...pool);
  const event = fc.tuple(fc.constantFrom('introduced', 'fixed', 'last_affected', 'limit'), version).map(([kind, v]) => ({ [kind]: v }));
  const affected = fc.record({
    package: fc.record({ ecosystem: fc.constantFrom('npm', 'PyPI', 'Maven', 'Go', 'crates.io', 'Hex'), name: fc.constant('pkg') }),
    ranges: fc.array(fc.record({ type: fc.constantFrom('SEMVER', 'ECOSYSTEM', 'GIT'), events: fc.array(event, { maxLength: 5 }) }), { maxLength: 3 }),
    versions: fc.array(version, { maxLength: 3 }),
  });

  it('gives exactly the versions versionVerdict does not rule out', () => {
    fc.assert(
      fc.property(affected, fc.uniqueArray(version, { maxLength: 8 }), (raw, versions) => {
        const parsed = affectedEntries({ affected: [raw] })[0]!;
        const expected = versions.filter((v) => versionVerdict(v, parsed) !== 'not-affected').sort();
        expect([...versionsNotRuledOut(parsed, new VersionSet(versions))].sort()).toEqual(expected);
      }),
      { numRuns: 3000 },
    );
  });
});
