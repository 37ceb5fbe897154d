// CVSS vectors scored with ae-cvss-calculator (FIRST's formulas for 3.0, 3.1 and 4.0). The spec
// carries one vector per issue, and a 3.x vector wins over 4.0 there because that is what clients
// expect in cvssVector. Severity reads the other way round (readSeverityCvss): GitHub's own
// severity follows 4.0 where an advisory carries both.
import cvssLibrary from 'ae-cvss-calculator';

// The bundle is CommonJS built by webpack, so Node sees only its default export.
const { fromVector } = cvssLibrary as unknown as { fromVector(vector: string): CvssVectorLike | null };

interface CvssVectorLike {
  getVectorName(): string;
  isBaseFullyDefined(): boolean;
  calculateScores(): { base?: number; overall: number };
  getComponentByStringOpt(name: string): { shortName: string } | null;
}

export type CvssBand = 'critical' | 'high' | 'medium' | 'low' | 'none';
export type Impact = 'confidentiality' | 'integrity' | 'availability';

export interface CvssFacts {
  version: string;
  vector: string;
  score: number;
  band: CvssBand;
  attackVector: string | null;
  attackComplexity: string | null;
  privilegesRequired: string | null;
  userInteraction: string | null;
  impacts: Impact[];
}

/** FIRST's qualitative rating scale, the same for 3.x and 4.0. */
export function cvssBand(score: number): CvssBand {
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  if (score > 0) return 'low';
  return 'none';
}

const words: Record<string, Record<string, string>> = {
  AV: { N: 'network', A: 'adjacent', L: 'local', P: 'physical' },
  AC: { L: 'low', H: 'high' },
  PR: { N: 'none', L: 'low', H: 'high' },
  // 4.0 splits "required" into passive and active; the spec's vocabulary has only required.
  UI: { N: 'none', R: 'required', P: 'required', A: 'required' },
};

function parse(vector: string): CvssVectorLike | null {
  try {
    const parsed = fromVector(vector.trim());
    return parsed?.isBaseFullyDefined() ? parsed : null;
  } catch {
    return null; // unknown metric values
  }
}

/** True for a complete, well-formed CVSS 3.0, 3.1 or 4.0 base vector. */
export function isValidCvssVector(vector: string): boolean {
  const parsed = parse(vector);
  return parsed !== null && /^CVSS:(3\.[01]|4\.0)$/.test(parsed.getVectorName());
}

/** For cvssVector, cvssScore and cvssSeverity (the spec's 3.1 meaning). */
const fieldPreference = ['CVSS:3.1', 'CVSS:3.0', 'CVSS:4.0'];
/** For severity, where no reviewed severity exists. */
const severityPreference = ['CVSS:4.0', 'CVSS:3.1', 'CVSS:3.0'];

const baseScore = (parsed: CvssVectorLike) => {
  const scores = parsed.calculateScores();
  return Math.round((scores.base ?? scores.overall) * 10) / 10;
};

/**
 * The spec's cvssVector is CVSS 3.1. 3.0 and 3.1 share every base metric and differ only in
 * rounding, so a 3.0 vector is served as the same metrics under CVSS:3.1 when 3.1 gives the same
 * base score (nearly always); otherwise it stays 3.0, as published.
 */
function asV31(candidate: { vector: string; parsed: CvssVectorLike }): { vector: string; parsed: CvssVectorLike } {
  if (candidate.parsed.getVectorName() !== 'CVSS:3.0') return candidate;
  const vector = candidate.vector.replace(/^CVSS:3\.0\//, 'CVSS:3.1/');
  const parsed = parse(vector);
  return parsed && baseScore(parsed) === baseScore(candidate.parsed) ? { vector, parsed } : candidate;
}

// An ecosystem export repeats a few thousand vectors over its records: each set is scored once.
const scored = new Map<string, CvssFacts | null>();

/** Scores the valid vector the spec's CVSS fields prefer (3.1) among those given; null when none is usable. */
export function readCvss(vectors: string[]): CvssFacts | null {
  return remembered(vectors, fieldPreference);
}

/** Scores the valid vector severity prefers (4.0, then 3.x) among those given. */
export function readSeverityCvss(vectors: string[]): CvssFacts | null {
  return remembered(vectors, severityPreference);
}

function remembered(vectors: string[], preference: string[]): CvssFacts | null {
  const key = `${preference[0]}\n${vectors.join('\n')}`;
  if (scored.has(key)) return scored.get(key)!;
  if (scored.size >= 10_000) scored.clear();
  const facts = scoreCvss(vectors, preference);
  scored.set(key, facts);
  return facts;
}

function scoreCvss(vectors: string[], preference: string[]): CvssFacts | null {
  const candidates = vectors
    .map((vector) => ({ vector: vector.trim(), parsed: parse(vector) }))
    .filter((c): c is { vector: string; parsed: CvssVectorLike } => c.parsed !== null && preference.includes(c.parsed.getVectorName()))
    .sort((a, b) => preference.indexOf(a.parsed.getVectorName()) - preference.indexOf(b.parsed.getVectorName()));
  const best = candidates[0];
  if (!best) return null;
  const { parsed, vector } = asV31(best);
  const score = baseScore(parsed);
  const metric = (name: string) => {
    const value = parsed.getComponentByStringOpt(name)?.shortName;
    return (value && words[name]?.[value]) ?? null;
  };
  const isV4 = parsed.getVectorName() === 'CVSS:4.0';
  const impactOf = (v3: string, v4: string[]) =>
    (isV4 ? v4 : [v3]).some((name) => {
      const value = parsed.getComponentByStringOpt(name)?.shortName;
      return value !== undefined && value !== 'N' && value !== 'X';
    });
  const impacts: Impact[] = [];
  if (impactOf('C', ['VC', 'SC'])) impacts.push('confidentiality');
  if (impactOf('I', ['VI', 'SI'])) impacts.push('integrity');
  if (impactOf('A', ['VA', 'SA'])) impacts.push('availability');
  return {
    version: parsed.getVectorName().slice(5),
    vector,
    score,
    band: cvssBand(score),
    attackVector: metric('AV'),
    attackComplexity: metric('AC'),
    privilegesRequired: metric('PR'),
    userInteraction: metric('UI'),
    impacts,
  };
}
