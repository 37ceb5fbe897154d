// Training and grouped cross-validation of the relevance decision. The examples are the labelled
// advisories in data/relevance (CC-BY-4.0, GitHub Advisory Database) plus the bundled sample
// (data/advisories, data/items), which is all AI/ML material. Folds hold out whole groups of
// labelled examples that share a package; a fold's model, catalogue and calibration never see
// the held-out packages, their repositories, owners or project hosts. The text model learns from
// the labelled examples alone; the sample is judged, never taught to the model.
import { readdirSync, readFileSync } from 'node:fs';
import type { Item } from '../item.js';
import { batchEntries, parseEntry } from '../parse.js';
import { buildCatalogue, catalogueData, defaultCatalogue, findPackage, repoOwner, type Catalogue, type Exclusion } from './catalogue.js';
import { collectEvidence, githubRepos, referenceHosts, type ItemEvidence } from './evidence.js';
import { features, scoreModel, trainModel, type TextModel, type TextScore } from './model.js';
import { packageKey } from './packages.js';

export interface Example {
  id: string;
  item: Item;
  relevant: boolean;
  /** Labelled examples teach the model and are evaluated; sample records are only judged (the sample stays served). */
  labelled: boolean;
  features: string[];
  /** Lower-cased package names (raw and PEP 503), what groups and exclusions compare. */
  packages: string[];
}

const dataDir = new URL('../../../data/', import.meta.url);

function readJson(relative: string): unknown[] {
  const dir = new URL(relative, dataDir);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((f) => batchEntries(JSON.parse(readFileSync(new URL(f, dir), 'utf8'))));
}

function example(record: unknown, relevant: boolean, labelled: boolean): Example {
  const parsed = parseEntry(record);
  if (!('item' in parsed)) throw new Error(`training record does not parse: ${parsed.message}`);
  const item = parsed.item;
  const packages = item.affected.flatMap((a) => [a.package.name.toLowerCase(), packageKey(a.package.ecosystem, a.package.name)]);
  return { id: item.sourceId, item, relevant, labelled, features: features(item), packages: [...new Set(packages)] };
}

/** Sample items kept to show the filter at work: outside the feed's scope (data/items/README.md). */
export const outOfScopeSample = new Set(['https://www.cisa.gov/news-events/news/apache-log4j-vulnerability-guidance']);

/**
 * The labelled examples, read and parsed anew: the server trains on them once and lets them go
 * (kept, they stayed in a synced server's heap for its life). trainingExamples() keeps them, for
 * evaluation's many passes.
 */
export function readTrainingExamples(): Example[] {
  return [
    ...readJson('relevance/positive/').map((r) => example(r, true, true)),
    ...readJson('relevance/negative/').map((r) => example(r, false, true)),
    ...readJson('advisories/').map((r) => example(r, true, false)),
    ...readJson('items/').map((r) => example(r, true, false)),
  ].map((e) => (outOfScopeSample.has(e.id) ? { ...e, relevant: false } : e));
}

let examples: Example[] | undefined;
export function trainingExamples(): Example[] {
  examples ??= readTrainingExamples();
  return examples;
}

/** Labelled examples grouped so that no package is in two groups (union-find over package names). */
export function packageGroups(all: Example[]): Example[][] {
  const labelled = all.filter((e) => e.labelled);
  const parent = labelled.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const owner = new Map<string, number>();
  labelled.forEach((e, i) => {
    for (const p of e.packages) {
      const j = owner.get(p);
      if (j === undefined) owner.set(p, i);
      else parent[find(i)] = find(j);
    }
  });
  const groups = new Map<number, Example[]>();
  labelled.forEach((e, i) => groups.set(find(i), [...(groups.get(find(i)) ?? []), e]));
  return [...groups.values()];
}

/**
 * How much a fold may know of the held-out packages: `grouped` keeps the mechanically derived
 * lists (registry summaries, curated AI/ML lists), `catalogue-blind` drops their entries too, and
 * `registry-lookup` drops the curated lists' but keeps the registry summaries', as the service
 * knows a package no list names once it has looked up its registry summary (src/registry).
 */
export type FoldMode = 'grouped' | 'registry-lookup' | 'catalogue-blind';

/** Everything a fold holding out `group` must not know. */
export function exclusionFor(group: Example[], mode: FoldMode = 'grouped'): Exclusion {
  const full = defaultCatalogue();
  const repos = new Set(group.flatMap((e) => githubRepos(e.item)));
  for (const e of group) {
    for (const a of e.item.affected) {
      const repo = findPackage(full, a.package.ecosystem, a.package.name)?.repo;
      if (repo) repos.add(repo.toLowerCase());
    }
  }
  return {
    packages: new Set(group.flatMap((e) => e.packages)),
    repos,
    orgs: new Set([...repos].map(repoOwner)),
    hosts: new Set(group.flatMap((e) => referenceHosts(e.item))),
    lists: mode === 'grouped' ? undefined : mode === 'catalogue-blind' ? 'all' : 'curated',
  };
}

/**
 * The text model learns from the labelled advisories only, 50 of each class from one source. The
 * sample is all AI/ML and comes from several databases, so its general vulnerability words (SSRF,
 * path traversal, arbitrary files) would read as AI evidence: with it, the advisories of HTTP
 * clients and archive libraries in a public advisory database scored as high as an LLM gateway's
 * (eval/README.md). The sample's news items and case studies are prose of another kind again. The
 * sample keeps its own evidence (catalogue, ATLAS techniques, AI vendors, terms).
 */
const teachesModel = (e: Example) => e.labelled;

/** The two inputs the final decision weighs: the model's log-odds and the summed rule evidence. */
export interface Scored extends ItemEvidence {
  modelLogit: number;
  evidenceSum: number;
  modelTop: string[];
}

export function scoreItem(item: Item, text: TextScore, catalogue: Catalogue, vendors: string[] = []): Scored {
  const { logit, top } = text;
  const found = collectEvidence(item, catalogue, vendors);
  return { ...found, modelLogit: logit, evidenceSum: found.evidence.reduce((s, e) => s + e.weight, 0), modelTop: top };
}

/** p = sigmoid(b0 + b1 * modelLogit + b2 * evidenceSum), fitted by ridge logistic regression. */
export interface Stacker {
  b0: number;
  b1: number;
  b2: number;
}

export const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
export const stackedLogit = (s: Stacker, x: { modelLogit: number; evidenceSum: number }) => s.b0 + s.b1 * x.modelLogit + s.b2 * x.evidenceSum;

/** Newton's method with a small ridge on the slopes: deterministic, and finite on separable data. */
export function fitStacker(points: { modelLogit: number; evidenceSum: number; relevant: boolean }[], ridge = 1): Stacker {
  let b = [0, 0.1, 0.5];
  for (let iteration = 0; iteration < 200; iteration++) {
    const g = [0, ridge * b[1]!, ridge * b[2]!];
    const h = [
      [1e-6, 0, 0],
      [0, ridge, 0],
      [0, 0, ridge],
    ];
    for (const p of points) {
      const x = [1, p.modelLogit, p.evidenceSum];
      const prob = sigmoid(b[0]! + b[1]! * x[1]! + b[2]! * x[2]!);
      const r = prob - (p.relevant ? 1 : 0);
      const wgt = prob * (1 - prob);
      for (let i = 0; i < 3; i++) {
        g[i]! += r * x[i]!;
        for (let j = 0; j < 3; j++) h[i]![j]! += wgt * x[i]! * x[j]!;
      }
    }
    const full = solve3(h, g);
    // Damped: a saturated start (scores of +-50) would otherwise overshoot.
    const scale = Math.min(1, 1 / Math.max(...full.map(Math.abs)));
    const step = full.map((v) => v * scale);
    b = b.map((v, i) => v - step[i]!);
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  return { b0: b[0]!, b1: b[1]!, b2: b[2]! };
}

function solve3(a: number[][], y: number[]): number[] {
  const m = a.map((row, i) => [...row, y[i]!]);
  for (let c = 0; c < 3; c++) {
    let pivot = c;
    for (let r = c + 1; r < 3; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[pivot]![c]!)) pivot = r;
    [m[c], m[pivot]] = [m[pivot]!, m[c]!];
    for (let r = 0; r < 3; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k < 4; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => row[3]! / row[i]!);
}

export interface OutOfFold extends Scored {
  example: Example;
  /** The held-out group's index. */
  fold: number;
  mode: FoldMode;
}

/** Scores every labelled example with a model and catalogue that never saw its group. */
export function outOfFold(all: Example[] = trainingExamples(), mode: FoldMode = 'grouped', models = new Map<number, TextModel>()): OutOfFold[] {
  const out: OutOfFold[] = [];
  packageGroups(all).forEach((group, fold) => {
    const exclusion = exclusionFor(group, mode);
    const held = new Set(group);
    // A fold's model depends on its held-out group only: both views of a fold share it (`models`).
    let model = models.get(fold);
    if (!model) models.set(fold, (model = trainModel(all.filter((e) => teachesModel(e) && !held.has(e)))));
    const catalogue = buildCatalogue(catalogueData(), exclusion);
    for (const e of group) out.push({ ...scoreItem(e.item, scoreModel(model, e.features), catalogue), example: e, fold, mode });
  });
  return out;
}

const asPoint = (o: OutOfFold) => ({ modelLogit: o.modelLogit, evidenceSum: o.evidenceSum, relevant: o.example.relevant });

/**
 * The stacker learns from both views of every example: as the lists know it (grouped) and as
 * software no list knows (catalogue-blind). Fitted on the grouped view alone it would learn that
 * the catalogue explains nearly everything and give an unknown package's own words too little
 * weight; the service meets both kinds of advisory.
 */
export function stackerPoints(all: Example[] = trainingExamples()): OutOfFold[] {
  const models = new Map<number, TextModel>();
  return [...outOfFold(all, 'grouped', models), ...outOfFold(all, 'catalogue-blind', models)];
}

/**
 * Each fold's probability from a stacker fitted on the other folds only (both views of them).
 * `alsoScored`: more views of the same folds, scored by those stackers without teaching them.
 */
export function crossValidatedProbabilities(points: OutOfFold[], alsoScored: OutOfFold[] = []): { o: OutOfFold; p: number }[] {
  const folds = [...new Set(points.map((o) => o.fold))];
  return folds.flatMap((fold) => {
    const stacker = fitStacker(points.filter((o) => o.fold !== fold).map(asPoint));
    return [...points, ...alsoScored].filter((o) => o.fold === fold).map((o) => ({ o, p: sigmoid(stackedLogit(stacker, o)) }));
  });
}

export interface TrainedRelevance {
  model: TextModel;
  stacker: Stacker;
}

/** The service's model: trained on every example; calibrated on every out-of-fold score of both views. */
export function trainRelevance(all: Example[] = trainingExamples()): TrainedRelevance {
  return { model: trainModel(all.filter(teachesModel)), stacker: fitStacker(stackerPoints(all).map(asPoint)) };
}
