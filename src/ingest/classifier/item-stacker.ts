// The text items' stacker: a logistic regression over the text model's log-odds and the rules'
// evidence, fitted on out-of-fold scores so its probability is calibrated. Each input is its own
// slope, so a rule counts only as much as it predicts on held-out sources; no input gates another
// (an item the rules' word lists miss is still judged by the text model). Newton's method with a
// small ridge on the slopes: deterministic, and finite on separable data.
import { sigmoid } from './training.js';

export interface ItemStacker {
  /** Intercept first, then one slope per input. */
  weights: number[];
}

export const stackedItemLogit = (s: ItemStacker, x: number[]) => x.reduce((z, v, i) => z + s.weights[i + 1]! * v, s.weights[0]!);

/** Solves a small dense system (Gaussian elimination with partial pivoting). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[pivot]![c]!)) pivot = r;
    [m[c], m[pivot]] = [m[pivot]!, m[c]!];
    for (let r = c + 1; r < n; r++) {
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let v = m[r]![n]!;
    for (let k = r + 1; k < n; k++) v -= m[r]![k]! * x[k]!;
    x[r] = v / m[r]![r]!;
  }
  return x;
}

export function fitItemStacker(points: { x: number[]; relevant: boolean }[], ridge = 1): ItemStacker {
  const d = (points[0]?.x.length ?? 0) + 1;
  let w = new Array<number>(d).fill(0);
  for (let iteration = 0; iteration < 50; iteration++) {
    const g = w.map((v, i) => (i === 0 ? 0 : ridge * v));
    const h = Array.from({ length: d }, (_, i) => Array.from({ length: d }, (_, j) => (i === j ? (i === 0 ? 1e-6 : ridge) : 0)));
    for (const p of points) {
      const x = [1, ...p.x];
      const prob = sigmoid(x.reduce((z, v, i) => z + w[i]! * v, 0));
      const r = prob - (p.relevant ? 1 : 0);
      const s = prob * (1 - prob);
      for (let i = 0; i < d; i++) {
        g[i]! += r * x[i]!;
        for (let j = 0; j < d; j++) h[i]![j]! += s * x[i]! * x[j]!;
      }
    }
    const step = solve(h, g);
    w = w.map((v, i) => v - step[i]!);
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  return { weights: w };
}
