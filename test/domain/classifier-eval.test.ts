// The relevance decision's floors on grouped cross-validation (no package in both the training
// and the test side of a fold), and the guarantees that keep those folds honest.
import { describe, expect, it } from 'vitest';
import { buildCatalogue, catalogueData, findPackage, inRegistryList } from '../../src/ingest/classifier/catalogue.js';
import { evaluate } from '../../src/ingest/classifier/evaluate.js';
import { defaultJudge } from '../../src/ingest/classifier/relevance.js';
import { exclusionFor, outOfScopeSample, packageGroups, trainingExamples } from '../../src/ingest/classifier/training.js';
import { vendorFacts } from '../../src/ingest/classifier/vendors.js';
import { parseEntry } from '../../src/ingest/parse.js';

describe('relevance classifier, grouped by package', () => {
  it('no package is in two groups, and every labelled example is in one', () => {
    const all = trainingExamples();
    const groups = packageGroups(all);
    const owner = new Map<string, number>();
    groups.forEach((group, i) => {
      for (const p of new Set(group.flatMap((e) => e.packages))) {
        expect(owner.get(p) ?? i, p).toBe(i);
        owner.set(p, i);
      }
    });
    expect(groups.flat().length).toBe(all.filter((e) => e.labelled).length);
    expect(all.filter((e) => e.labelled).length).toBe(100);
  });

  it("a fold's catalogue knows nothing of the held-out packages, their repositories or owners", () => {
    const group = packageGroups(trainingExamples()).find((g) => g.some((e) => e.packages.includes('flowise')))!;
    const exclusion = exclusionFor(group);
    const fold = buildCatalogue(catalogueData(), exclusion);
    const full = buildCatalogue();
    expect(findPackage(full, 'npm', 'flowise')).toBeDefined();
    expect(findPackage(fold, 'npm', 'flowise')).toBeUndefined();
    expect(fold.repos.has('flowiseai/flowise')).toBe(false);
    expect(fold.orgs.has('flowiseai')).toBe(false);
    // Entries of other projects stay.
    expect(findPackage(fold, 'PyPI', 'langchain')).toBeDefined();
  });

  it('a catalogue-blind fold also loses the registry and curated-list entries of the held-out packages', () => {
    const groupOf = (name: string) => packageGroups(trainingExamples()).find((g) => g.some((e) => e.packages.includes(name)))!;
    const mindsdb = groupOf('mindsdb');
    expect(inRegistryList(buildCatalogue(catalogueData(), exclusionFor(mindsdb)), 'PyPI', 'mindsdb')).toBe(true);
    const blind = buildCatalogue(catalogueData(), exclusionFor(mindsdb, 'catalogue-blind'));
    expect(inRegistryList(blind, 'PyPI', 'mindsdb')).toBe(false);
    expect(inRegistryList(blind, 'PyPI', 'langchain')).toBe(true);

    // The registry-lookup view keeps the registry summaries (a lookup would find them) and drops the rest.
    const lookup = buildCatalogue(catalogueData(), exclusionFor(mindsdb, 'registry-lookup'));
    expect(inRegistryList(lookup, 'PyPI', 'mindsdb')).toBe(true);
    expect(findPackage(lookup, 'PyPI', 'mindsdb')).toBeUndefined();

    const weaviate = groupOf('github.com/weaviate/weaviate');
    expect(buildCatalogue(catalogueData(), exclusionFor(weaviate)).listedRepos.has('weaviate/weaviate')).toBe(true);
    expect(buildCatalogue(catalogueData(), exclusionFor(weaviate, 'registry-lookup')).listedRepos.has('weaviate/weaviate')).toBe(false);
    const blindWeaviate = buildCatalogue(catalogueData(), exclusionFor(weaviate, 'catalogue-blind'));
    expect(blindWeaviate.listedRepos.has('weaviate/weaviate')).toBe(false);
    expect(blindWeaviate.listedOrgs.has('weaviate')).toBe(false);
    expect(blindWeaviate.listedRepos.has('vllm-project/vllm')).toBe(true);
  });

  it('the curated lists name AI software by section or subject, not general software an AI list mentions', () => {
    const { listedRepos } = buildCatalogue();
    // awesome-go's Machine Learning section, wong2's MCP servers (a list whose subject is AI software).
    for (const repo of ['knights-analytics/hugot', 'stacklok/toolhive', 'github/github-mcp-server']) expect(listedRepos.has(repo), repo).toBe(true);
    // An MCP client that is a general editor; a package whose owner is named "ai"; Go's resource embedding.
    for (const repo of ['zed-industries/zed', 'ai/nanoid', 'leaanthony/debme']) expect(listedRepos.has(repo), repo).toBe(false);
  });

  it('meets the floors on the held-out folds with a margin: recall >= 0.92, precision >= 0.95, with a Brier score', () => {
    const { metrics, reliability, misses, lookup, blind } = evaluate();
    expect(metrics.n).toBe(100);
    expect(metrics.recall).toBeGreaterThanOrEqual(0.92);
    expect(metrics.precision).toBeGreaterThanOrEqual(0.95);
    expect(metrics.brier).toBeLessThan(0.1);
    expect(reliability.reduce((n, r) => n + r.n, 0)).toBe(100);
    for (const miss of misses) expect(miss.evidence).not.toBe('');
    // Registry lookup: software no list or catalogue names, whose registry summary the service
    // looks up (src/registry). The floors, for software the project has never seen.
    expect(lookup.metrics.n).toBe(100);
    expect(lookup.metrics.recall).toBeGreaterThanOrEqual(0.9);
    expect(lookup.metrics.precision).toBeGreaterThanOrEqual(0.95);
    expect(lookup.metrics.brier).toBeLessThan(0.1);
    // Catalogue-blind: text, names and references alone. Floors below today's figures (eval/README.md)
    // so a change that loses generalisation fails here.
    expect(blind.metrics.n).toBe(100);
    expect(blind.metrics.recall).toBeGreaterThanOrEqual(0.8);
    expect(blind.metrics.precision).toBeGreaterThanOrEqual(0.95);
    expect(blind.metrics.brier).toBeLessThan(0.1);
  });

  it('serves the whole bundled sample (advisories and ATLAS case studies) and nothing out of scope', () => {
    const { sample } = evaluate();
    for (const set of sample) {
      expect(set.unserved, set.name).toEqual([]);
      expect(set.wronglyServed, set.name).toEqual([]);
    }
    expect(sample.reduce((n, s) => n + s.served, 0)).toBe(71 + 76 - outOfScopeSample.size);
  });
});

// Advisories written for this test about packages in none of the project's data: general software
// in the field's words (the traps real advisories fell into), and AI software known by its words.
const advisory = (ecosystem: string, name: string, summary: string, details: string, references: string[] = [], published = '2026-01-01T00:00:00Z') => {
  const parsed = parseEntry({
    id: `TEST-${name.replace(/[^A-Za-z0-9-]/g, '-')}`,
    modified: published,
    published,
    summary,
    details,
    affected: [{ package: { ecosystem, name } }],
    references: references.map((url) => ({ type: 'WEB', url })),
  });
  if (!('item' in parsed)) throw new Error(parsed.message);
  return defaultJudge().decide(parsed.item, vendorFacts(parsed.item).normalised);
};

describe('relevance of software in none of the data', () => {
  it.each([
    ['npm', 'ua-sniffer-lite', 'ReDoS in User-Agent parsing', 'A crafted User-Agent header makes the agent parser backtrack for minutes.'],
    [
      'PyPI',
      'django-tagfield-plus',
      'SQL injection via crafted model field',
      'A crafted model lookup in the admin reaches a raw query. Model instances are serialised unescaped.',
    ],
    ['Go', 'github.com/acme-oss/jwtkit', 'Token validation bypass', 'The JWT token signature is not checked when the alg header is none; tokens are accepted.'],
    ['Packagist', 'acme/twiglet', 'Server-side template injection', 'User input reaches the template compiler, so templates execute arbitrary PHP.'],
    [
      'Go',
      'github.com/acme-oss/ci-runner',
      'Pipeline secrets exposed to build agents',
      'Secrets of one pipeline are visible to the agents of another pipeline run.',
    ],
    ['crates.io', 'ml-kem-fast', 'Timing side channel in ML-KEM decapsulation', 'Decapsulation in the ML-KEM implementation is not constant time.'],
    ['PyPI', 'pipenvx', 'Credentials embedded in lock files', 'Embedding credentials in index URLs writes them to the lock file in clear text.'],
    // Nothing but general vulnerability words: a text model taught the all-AI sample as well as the
    // labelled advisories read these as AI evidence and served both (classifier 2.4.0).
    [
      'npm',
      'acme-fetchkit',
      'Server-side request forgery via redirects',
      'The HTTP client follows redirects to internal addresses, allowing server-side request forgery (SSRF) and reading arbitrary files through file:// URLs on the server. An attacker can access internal services, leading to remote code execution.',
    ],
    [
      'Go',
      'github.com/acme-oss/tarball',
      'Path traversal when extracting archives',
      'Extracting a crafted archive writes arbitrary files outside the target directory (path traversal), allowing remote attackers to overwrite files on the server and execute arbitrary code.',
    ],
  ])('%s %s stays out', (ecosystem, name, summary, details) => {
    expect(advisory(ecosystem, name, summary, details).relevant).toBe(false);
  });

  it.each([
    [
      'PyPI',
      'acme-modelhub',
      'Arbitrary code execution when loading untrusted models',
      'Loading an untrusted model with the PyTorch loader unpickles attacker-controlled data.',
    ],
    [
      'Go',
      'github.com/acme-oss/promptgate',
      'Authorization bypass in the MCP server',
      'Any authenticated user can call the tools of every registered MCP server.',
    ],
    [
      'npm',
      'acme-context-kit',
      'Path traversal in document loader',
      'The retrieval-augmented generation pipeline reads arbitrary files into the vector store.',
    ],
    [
      'Go',
      'github.com/acme-oss/toolrelay',
      'Tenant isolation bypass in tool relay',
      'Any tenant can list and call the MCP tools of another tenant, and read the Claude API key stored for it.',
    ],
    // One domain word and nothing the catalogue knows: a stacker fitted on the grouped view alone
    // weighed such words too lightly to serve these (0.23 and 0.28 before classifier 2.4.0).
    [
      'Go',
      'github.com/acme-oss/ctxhub',
      'Cross-tenant tool access in the gateway',
      'A user of one tenant can list and call the MCP tools registered by another tenant.',
    ],
    [
      'PyPI',
      'acme-notes',
      'Stored XSS in rendered notebooks',
      'Markdown cells of an uploaded Jupyter notebook are rendered without sanitising, so a shared notebook runs script in the viewer.',
    ],
  ])('%s %s is served', (ecosystem, name, summary, details) => {
    const decision = advisory(ecosystem, name, summary, details);
    expect(decision.relevant, JSON.stringify(decision.reasons)).toBe(true);
  });

  it('a huntr.com report speaks for AI/ML software only from August 2023, when huntr took it up', () => {
    const report = ['https://huntr.com/bounties/1899ffb2-ce1e-4dc0-af96-972612190f6e'];
    const bug = [
      'Go',
      'github.com/acme-oss/notes',
      'Stored XSS using two files',
      'Uploading two files with crafted names makes the preview page run script.',
    ] as const;
    const before = advisory(...bug, report, '2023-01-05T00:00:00Z');
    const after = advisory(...bug, report, '2023-09-05T00:00:00Z');
    const host = (d: typeof before) => d.reasons.find((r) => r.kind === 'reference-host')?.detail;
    expect(host(before)).toBe('huntr.dev');
    expect(host(after)).toBe('huntr.com');
    expect(before.relevant, JSON.stringify(before.reasons)).toBe(false);
    expect(before.probability).toBeLessThan(after.probability);
  });
});
