// Is the item about AI/ML/LLM systems? Irrelevant items are stored but never served, so the
// answer carries how sure it is (it feeds classifierConfidence).
import type { Item } from '../item.js';
import { packageKey } from './packages.js';
import { aiTerms, knownPackages, vendorAliases } from './tables.js';

export interface Relevance {
  relevant: boolean;
  /** How much evidence the decision rests on, 0..1. */
  confidence: number;
  reason: 'known-package' | 'atlas' | 'ai-vendor' | 'strong-terms' | 'weak-terms' | 'none';
}

export function knownPackagesOf(item: Item) {
  return item.affected.map((a) => knownPackages[packageKey(a.package.ecosystem, a.package.name)]).filter((p) => p !== undefined);
}

const aiVendors = new Set(vendorAliases.filter((v) => v.ai).map((v) => v.vendor));

/** `vendors`: the item's normalised vendors; an AI-first company's product is AI software. */
export function decideRelevance(item: Item, text: string, vendors: string[]): Relevance {
  if (knownPackagesOf(item).length > 0) return { relevant: true, confidence: 0.95, reason: 'known-package' };
  if (item.atlasHints.length > 0) return { relevant: true, confidence: 0.9, reason: 'atlas' };
  if (vendors.some((v) => aiVendors.has(v))) return { relevant: true, confidence: 0.8, reason: 'ai-vendor' };
  const strong = text.match(new RegExp(aiTerms.strong.source, 'gi')) ?? [];
  if (strong.length >= 2) return { relevant: true, confidence: 0.85, reason: 'strong-terms' };
  if (strong.length === 1) return { relevant: true, confidence: 0.7, reason: 'strong-terms' };
  const weak = new Set((text.match(new RegExp(aiTerms.weak.source, 'gi')) ?? []).map((w) => w.toLowerCase()));
  // Two different weak words ("model" and "inference") together are enough; one alone is not.
  if (weak.size >= 2) return { relevant: true, confidence: 0.55, reason: 'weak-terms' };
  return { relevant: false, confidence: weak.size === 1 ? 0.6 : 0.8, reason: weak.size === 1 ? 'weak-terms' : 'none' };
}
