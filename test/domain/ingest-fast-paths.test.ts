// The ingest's shortcuts answer exactly as the plain computations they replace: the text
// model scored word by word (scoreText) as over the feature list, and a catalogue-blind fold's
// views of the derived lists as filtered copies of them, and the batch writes' JSON as the rows' own.
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCatalogue, catalogueData, projectOwner } from '../../src/ingest/classifier/catalogue.js';
import { features, scoreModel, scoreText } from '../../src/ingest/classifier/model.js';
import { defaultJudge } from '../../src/ingest/classifier/relevance.js';
import { exclusionFor, packageGroups, trainingExamples } from '../../src/ingest/classifier/training.js';
import { parseEntry } from '../../src/ingest/parse.js';
import type { Item } from '../../src/ingest/item.js';

const itemOf = (record: unknown): Item => {
  const parsed = parseEntry(record);
  if (!('item' in parsed)) throw new Error(parsed.message);
  return parsed.item;
};

describe('classifier fast paths', () => {
  const model = defaultJudge().trained.model;

  it('scoreText gives the sum and strongest features of scoreModel over features(), on every example', () => {
    for (const { item } of trainingExamples()) expect(scoreText(model, item), item.sourceId).toEqual(scoreModel(model, features(item)));
  });

  it('scoreText agrees on texts made of the model words, stopwords and repeats', () => {
    const vocabulary = [...model.weights.keys()].filter((f) => f.startsWith('w:') || f.startsWith('b:')).flatMap((f) => f.slice(2).split(' '));
    const word = fc.oneof(fc.constantFrom(...vocabulary.slice(0, 400)), fc.constantFrom('the', 'and', 'model', 'data', 'x'));
    fc.assert(
      fc.property(fc.array(word, { maxLength: 60 }), fc.array(word, { maxLength: 8 }), (details, title) => {
        const item = itemOf({
          id: 'GHSA-aaaa-bbbb-cccc',
          modified: '2025-01-01T00:00:00Z',
          summary: title.join(' ') || 'x',
          details: details.join(' '),
          affected: [{ package: { ecosystem: 'PyPI', name: `${title[0] ?? 'pkg'}-tools` } }],
        });
        expect(scoreText(model, item)).toEqual(scoreModel(model, features(item)));
      }),
      { numRuns: 300 },
    );
  });

  it("a catalogue-blind fold's lists answer as filtered copies of the whole lists", () => {
    const full = buildCatalogue();
    for (const group of packageGroups(trainingExamples()).slice(0, 40)) {
      const exclusion = exclusionFor(group, 'catalogue-blind');
      const blind = buildCatalogue(catalogueData(), exclusion);
      const excludedRepo = (repo: string) => exclusion.repos.has(repo) || exclusion.orgs.has(repo.split('/')[0]!);
      const repos = [...full.listedRepos].filter((repo) => !excludedRepo(repo));
      expect([...blind.listedRepos]).toEqual(repos);
      for (const [source, names] of full.registry) {
        for (const name of [...exclusion.packages, 'langchain', 'mindsdb', 'requests'])
          expect(blind.registry.get(source)!.has(name)).toBe(names.has(name) && !exclusion.packages.has(name));
      }
      const owners = new Map<string, string>();
      for (const repo of repos) {
        const owner = projectOwner(repo);
        if (owner && !owners.has(owner)) owners.set(owner, repo);
      }
      for (const repo of full.listedRepos) {
        const owner = projectOwner(repo);
        if (owner) expect(blind.listedOrgs.get(owner), owner).toBe(owners.get(owner));
      }
    }
  });
});

describe('issue rows as JSON', () => {
  it("the batch writes' JSON is the rows' own JSON, the record spelt canonically", async () => {
    const { extractFacts } = await import('../../src/ingest/classifier/index.js');
    const { defaultClassifier } = await import('../../src/ingest/ingest.js');
    const { issueRow } = await import('../../src/ingest/row.js');
    const { rowsJson } = await import('../../src/ingest/store.js');
    const classifier = defaultClassifier();
    const rows = [];
    for (const { item } of trainingExamples()) {
      const facts = extractFacts(item);
      rows.push({ ...issueRow(item, facts, await classifier.classify(item, facts), classifier), id: item.sourceId });
    }
    // One row not built by issueRow (its source has no text of its own) goes out as it is.
    rows.push({ ...rows[0]!, source: { ...(rows[0]!.source as object) } });
    const text = rowsJson(rows);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(rows)));
    expect(text).toContain(`"record":${JSON.stringify(JSON.parse(canonicalize((rows[0]!.source as { record: unknown }).record)!))}`);
  });
});
