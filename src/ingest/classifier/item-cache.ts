// The text items' trained model, kept between processes (issue 38): training it on 8,500 labelled
// items costs seconds that every server start and every test worker would pay again. `npm install`
// trains it once (postinstall, scripts/train-classifier.ts) and a process that finds no model for
// its inputs trains and keeps one. The key hashes everything the model is made from: the
// classifier's version and data (relevance.ts) and every file of src/ingest, so a changed feature
// or rule never meets a stale model. Training is deterministic, so a kept model equals a fresh one.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installCacheDir as cacheDir, sourceTreeHash } from '../../install-cache.js';
import type { TrainedItems } from './items.js';

interface Stored {
  model: [string, number][];
  stacker: number[];
  typer: { bias: number[]; weights: [string, number[]][] };
}

/** The trained model for `version` (the classifier's version and data hash), trained by `train` only when none is kept. */
export function cachedItems(version: string, train: () => TrainedItems): TrainedItems {
  const sources = sourceTreeHash(['src/ingest']);
  if (!sources) return train();
  const key = createHash('sha256').update(version).update(sources).digest('hex').slice(0, 16);
  const file = join(cacheDir, `items-${key}.json`);
  if (existsSync(file)) {
    try {
      const s = JSON.parse(readFileSync(file, 'utf8')) as Stored;
      return { model: { weights: new Map(s.model) }, stacker: { weights: s.stacker }, typer: { bias: s.typer.bias, weights: new Map(s.typer.weights) } };
    } catch {
      // A damaged file is trained over.
    }
  }
  const trained = train();
  const stored: Stored = {
    model: [...trained.model.weights],
    stacker: trained.stacker.weights,
    typer: { bias: trained.typer.bias, weights: [...trained.typer.weights] },
  };
  try {
    mkdirSync(cacheDir, { recursive: true });
    // Written aside and renamed: a process reading at the same time sees the whole file or none.
    const scratch = `${file}.${process.pid}`;
    writeFileSync(scratch, JSON.stringify(stored));
    renameSync(scratch, file);
    // Only the model of the current inputs is worth keeping.
    for (const other of readdirSync(cacheDir))
      if (/^items-[0-9a-f]{16}\.json$/.test(other) && join(cacheDir, other) !== file) rmSync(join(cacheDir, other), { force: true });
  } catch {
    // A read-only checkout trains each time, as before.
  }
  return trained;
}
