// The deterministic, rule-based classifier: the same item always gets the same fields. Its
// knowledge is in tables.ts, cwe.ts (MITRE CWE/CAPEC) and atlas.ts (MITRE ATLAS).
import type { Item, IssueType } from '../item.js';
import { sortAtlasIds } from './atlas.js';
import { cweEntry, cweShortName } from './cwe.js';
import type { Classification, Classifier, Facts } from './index.js';
import { noRemediation, remediation } from './packages.js';
import { decideRelevance, knownPackagesOf } from './relevance.js';
import { decideSeverity } from './severity.js';
import {
  atlasRules,
  attackRules,
  codeExecution,
  componentRules,
  llmTerms,
  peerReviewedHosts,
  preprintHosts,
  textSignals,
  type AiComponent,
  type AttackType,
} from './tables.js';
import { headlineOf, plainText, summaryOf } from './text.js';

export const ruleClassifierModel = 'secwire-rules';
/** Bump when a rule or table changes: re-ingest then reclassifies unchanged records. */
export const ruleClassifierVersion = 'rules-1.0.0';

const typeRules: { type: IssueType; text: RegExp }[] = [
  { type: 'regulatory', text: /\b(regulation|regulatory|legislation|\blaw\b|act\b.*\b(enters?|entered) into force|directive|executive order|guidance|standard|framework (released|published)|compliance|regulator)/i },
  { type: 'research', text: /\b(paper|researchers?|study|preprint|arxiv|proceedings|we (show|demonstrate|present))\b/i },
  { type: 'incident', text: /\b(breach(ed)?|incident|attackers? (used|abused|compromised)|was (compromised|exploited|attacked)|in the wild|leaked)\b/i },
];

function inferType(item: Item, facts: Facts, text: string): { type: IssueType; confidence: number } {
  if (item.typeHint) return { type: item.typeHint, confidence: item.format === 'osv' ? 0.95 : 0.9 };
  if (facts.cveId || item.affected.length > 0) return { type: 'vulnerability', confidence: 0.8 };
  const rule = typeRules.find((r) => r.text.test(text));
  return rule ? { type: rule.type, confidence: 0.6 } : { type: 'news', confidence: 0.5 };
}

function attackTypesOf(item: Item, text: string): { types: AttackType[]; fromCwe: boolean } {
  const types: AttackType[] = [];
  let fromCwe = false;
  for (const rule of attackRules) {
    const byCwe = rule.cwes.some((c) => item.cweIds.includes(c));
    if (byCwe || rule.text.test(text)) {
      types.push(rule.type);
      fromCwe ||= byCwe;
    }
  }
  return { types, fromCwe };
}

function componentOf(item: Item, text: string): AiComponent | null {
  const early = componentRules.find((r) => r.beforePackage && r.text.test(text));
  if (early) return early.component;
  const fromPackage = knownPackagesOf(item).find((p) => p.component !== null)?.component;
  if (fromPackage) return fromPackage;
  return componentRules.find((r) => !r.beforePackage && r.text.test(text))?.component ?? null;
}

const impactOrder = ['confidentiality', 'integrity', 'availability', 'safety'];

function impactsOf(facts: Facts, attackTypes: AttackType[], codeExec: boolean, safety: boolean): string[] {
  const impacts = new Set<string>();
  if (facts.cvss) facts.cvss.impacts.forEach((i) => impacts.add(i));
  else if (facts.cweIds.length > 0) facts.cweIds.forEach((id) => cweEntry(id)?.impacts.forEach((i) => impacts.add(i)));
  if (impacts.size === 0) {
    if (codeExec) ['confidentiality', 'integrity', 'availability'].forEach((i) => impacts.add(i));
    if (attackTypes.includes('data_extraction') || attackTypes.includes('pii_leakage')) impacts.add('confidentiality');
    if (attackTypes.some((t) => t === 'supply_chain' || t === 'rag_poisoning' || t === 'prompt_injection')) impacts.add('integrity');
    if (attackTypes.includes('denial_of_service')) impacts.add('availability');
  }
  if (safety || attackTypes.includes('jailbreak')) impacts.add('safety');
  return impactOrder.filter((i) => impacts.has(i));
}

function sophisticationOf(facts: Facts, issueType: IssueType, text: string): Classification['attackSophistication'] {
  const cvss = facts.cvss;
  if (cvss) {
    if (cvss.attackComplexity === 'high') return 'advanced';
    if (cvss.privilegesRequired === 'none' && cvss.userInteraction === 'none') return 'trivial';
    return 'moderate';
  }
  if (textSignals.sophisticated.test(text) || issueType === 'research') return 'advanced';
  if (textSignals.trivial.test(text)) return 'trivial';
  return 'moderate';
}

function researchCategoryOf(item: Item, issueType: IssueType): string | null {
  if (issueType !== 'research') return null;
  if (item.researchCategory) return item.researchCategory;
  const host = new URL(item.url).hostname;
  if (peerReviewedHosts.test(host)) return 'peer_reviewed';
  if (preprintHosts.test(host)) return 'preprint';
  return null;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

export class RuleClassifier implements Classifier {
  readonly model = ruleClassifierModel;
  readonly promptVersion = ruleClassifierVersion;

  async classify(item: Item, facts: Facts): Promise<Classification> {
    const text = [item.title, plainText(item.details), item.vendorHints.join(' ')].join('\n');
    const relevance = decideRelevance(item, text, facts.vendors.normalised);
    const type = inferType(item, facts, text);
    const attacks = attackTypesOf(item, text);
    const codeExec = codeExecution.cwes.some((c) => item.cweIds.includes(c)) || codeExecution.text.test(text);
    const attackTypes: AttackType[] =
      attacks.types.length > 0 ? attacks.types : type.type === 'vulnerability' || type.type === 'incident' || item.atlasHints.length > 0 ? ['other'] : [];
    const knownExploited = item.knownExploited || item.kevDateAdded !== undefined || textSignals.exploited.test(text);
    // exploitMaturity counts an incident as exploitation; severity weighs the issue type on its own.
    const exploited = knownExploited || type.type === 'incident';
    const remote = facts.cvss ? facts.cvss.attackVector === 'network' : textSignals.remote.test(text);
    const concreteFlaw = facts.cveId !== null || item.affected.length > 0 || textSignals.concreteFlaw.test(text);
    const severity = decideSeverity({
      cvss: facts.cvss,
      stated: item.statedSeverity,
      issueType: type.type,
      concreteFlaw,
      codeExecution: codeExec,
      attackTypes,
      exploited: knownExploited,
      remote,
    });
    const llmSpecific = knownPackagesOf(item).some((p) => p.category === 'llm') || llmTerms.test(text);
    const safety = textSignals.safety.test(text);

    const labels = new Set<string>();
    if (type.type === 'vulnerability' || type.type === 'incident' || attackTypes.some((t) => t !== 'other')) labels.add('security');
    if (type.type === 'research') labels.add('research');
    if (type.type === 'regulatory') labels.add('policy');
    if (type.type === 'news') labels.add('industry');
    if (attackTypes.includes('pii_leakage') || textSignals.privacy.test(text)) labels.add('privacy');
    if (attackTypes.includes('jailbreak') || safety) labels.add('safety');

    const signals = new Set<string>(attackTypes);
    if (codeExec) signals.add('code_execution');
    if (type.type === 'vulnerability' && remote && relevance.relevant) signals.add('network_exploit');
    if (attackTypes.includes('supply_chain') && /pickle|model|checkpoint|weights/i.test(text)) signals.add('model_artifact');
    if (attackTypes.includes('prompt_injection') && textSignals.indirect.test(text)) signals.add('indirect');
    if (textSignals.credentials.test(text)) signals.add('credentials');
    if (textSignals.toolInvocation.test(text)) signals.add('tool_invocation');
    // ATLAS describes attacks on AI systems: an item outside that scope keeps only the ids it was given.
    const inferred = relevance.relevant ? atlasRules.filter((r) => signals.has(r.when)).flatMap((r) => r.ids) : [];
    const atlasIds = sortAtlasIds([...item.atlasHints, ...inferred]);

    const packageNames = [...facts.packages.fixes.keys()];
    const weakness = facts.cweIds.map(cweShortName).find((n) => n !== undefined);
    const solution = item.solutionHint ?? (facts.packages.fixes.size > 0 ? remediation(facts.packages) : noRemediation);

    // Confidence: how much of the classification rests on structured evidence rather than on
    // keywords. Each judgement reports its own; the issue carries their mean.
    const attackConfidence = attacks.fromCwe ? 0.9 : attacks.types.length > 0 ? 0.75 : attackTypes.length === 0 ? 0.7 : 0.5;
    const classifierConfidence = round2((relevance.confidence + type.confidence + severity.confidence + attackConfidence) / 4);

    return {
      relevant: relevance.relevant,
      issueType: type.type,
      severity: severity.severity,
      labels: [...labels],
      attackType: attackTypes,
      aiComponentTargeted: relevance.relevant ? componentOf(item, text) : null,
      impactType: impactsOf(facts, attackTypes, codeExec, safety),
      attackSophistication: sophisticationOf(facts, type.type, text),
      exploitMaturity: exploited ? 'active' : 'unknown',
      llmSpecific,
      atlasIds,
      headline: headlineOf(item, packageNames, weakness),
      summary: summaryOf(item),
      solution,
      affectedVendors: facts.vendors.normalised,
      researchCategory: researchCategoryOf(item, type.type),
      classifierConfidence,
    };
  }
}
