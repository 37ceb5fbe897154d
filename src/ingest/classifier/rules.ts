// The deterministic, rule-based classifier: the same item always gets the same fields. Its
// knowledge is in tables.ts, cwe.ts (MITRE CWE/CAPEC) and atlas.ts (MITRE ATLAS).
import type { Item, IssueType } from '../item.js';
import { sortAtlasIds } from './atlas.js';
import { cweEntry, cweShortName } from './cwe.js';
import type { Classification, Classifier, Facts } from './index.js';
import { noRemediation, remediation } from './packages.js';
import { crosswalk } from './crosswalk.js';
import { isTextItem, textItemType, type TrainedItems } from './items.js';
import { defaultJudge, type RelevanceJudge } from './relevance.js';
import { exploitMaturityOf, isKnownExploited } from './exploitation.js';
import { decideSeverity } from './severity.js';
import {
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
import type { CatalogueEntry } from './catalogue.js';

export const ruleClassifierModel = 'secwire-rules';

function inferType(item: Item, facts: Facts, items?: TrainedItems): IssueType {
  if (item.typeHint) return item.typeHint;
  if (item.affected.length > 0) return 'vulnerability';
  // A source's default (an arXiv listing is research) before a CVE its text names.
  if (item.sourceHints?.issueType) return item.sourceHints.issueType;
  // A record of a vulnerability (an advisory page's entry, a KEV item) is one; an article naming
  // a CVE is news (or research...) about it, typed by its words as any text item.
  if (facts.cveId && !item.article) return 'vulnerability';
  if (isTextItem(item)) return items ? textItemType(item, items.typer) : 'news';
  return 'vulnerability';
}

function attackTypesOf(item: Item, text: string): AttackType[] {
  return attackRules.filter((rule) => rule.cwes.some((c) => item.cweIds.includes(c)) || rule.text.test(text)).map((rule) => rule.type);
}

function componentOf(entries: CatalogueEntry[], text: string): AiComponent | null {
  const early = componentRules.find((r) => r.beforePackage && r.text.test(text));
  if (early) return early.component;
  const fromPackage = entries.find((p) => p.component !== null)?.component;
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
    if (attackTypes.some((t) => t === 'data_extraction' || t === 'pii_leakage' || t === 'model_extraction')) impacts.add('confidentiality');
    if (attackTypes.some((t) => ['supply_chain', 'rag_poisoning', 'prompt_injection', 'data_poisoning', 'backdoor', 'adversarial_examples'].includes(t)))
      impacts.add('integrity');
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

/** Labels that name an issue type: an issue carries them only with that type. */
const kindLabels: Partial<Record<string, IssueType>> = { research: 'research', policy: 'regulatory', industry: 'news' };

const round2 = (n: number) => Math.round(n * 100) / 100;

export class RuleClassifier implements Classifier {
  readonly model = ruleClassifierModel;
  /** Changes with the rules, the catalogue, the cross-walk and the training examples. */
  readonly promptVersion: string;

  constructor(private readonly judge: RelevanceJudge = defaultJudge()) {
    this.promptVersion = judge.version;
  }

  async classify(item: Item, facts: Facts, lookedUp?: ReadonlyMap<string, string>): Promise<Classification> {
    const text = [item.title, plainText(item.details), item.vendorHints.join(' ')].join('\n');
    const relevance = this.judge.decide(item, facts.vendors.normalised, lookedUp);
    const issueType = inferType(item, facts, this.judge.items);
    const attacks = attackTypesOf(item, text);
    const codeExec = codeExecution.cwes.some((c) => item.cweIds.includes(c)) || codeExecution.text.test(text);
    // An item that describes an attack of no type above is `other`: a flaw, an incident, an ATLAS
    // case, or a served news or research item about an attack on or through an AI system
    // (docs/curation.md); a regulation describes none.
    const describesAttack =
      issueType === 'vulnerability' ||
      issueType === 'incident' ||
      item.atlasHints.length > 0 ||
      (relevance.relevant && isTextItem(item) && issueType !== 'regulatory' && textSignals.security.test(text));
    const attackTypes: AttackType[] = attacks.length > 0 ? attacks : describesAttack ? ['other'] : [];
    const exploitMaturity = exploitMaturityOf(item, text);
    const knownExploited = isKnownExploited(exploitMaturity);
    const remote = facts.cvss ? facts.cvss.attackVector === 'network' : textSignals.remote.test(text);
    // Code execution in a product is a concrete flaw whatever kind of item describes it.
    const concreteFlaw = facts.cveId !== null || item.affected.length > 0 || codeExec || textSignals.concreteFlaw.test(text);
    const severity = decideSeverity({
      cvss: facts.severityCvss,
      stated: item.statedSeverity,
      issueType,
      concreteFlaw,
      codeExecution: codeExec,
      attackTypes,
      exploited: knownExploited,
      remote,
    });
    const llmSpecific = relevance.entries.some((p) => p.category === 'llm') || llmTerms.test(text);
    const safety = textSignals.safety.test(text);

    const labels = new Set<string>();
    if (issueType === 'vulnerability' || issueType === 'incident' || attackTypes.some((t) => t !== 'other')) labels.add('security');
    // An item served for an attack on, a flaw in or a threat to an AI system is a security item whatever its type.
    if (relevance.relevant && textSignals.security.test(text)) labels.add('security');
    if (issueType === 'research') labels.add('research');
    if (issueType === 'regulatory') labels.add('policy');
    if (issueType === 'news') labels.add('industry');
    // Extracting training data, inverting a model or inferring membership reveals what it learned from people.
    if (attackTypes.includes('pii_leakage') || attackTypes.includes('data_extraction') || textSignals.privacy.test(text)) labels.add('privacy');
    if (attackTypes.includes('jailbreak') || safety) labels.add('safety');
    // A source's labels, except a kind's label that another issue type contradicts.
    for (const label of item.sourceHints?.labels ?? []) if (!(label in kindLabels) || kindLabels[label] === issueType) labels.add(label);

    const signals = new Set<string>(attackTypes);
    if (codeExec) signals.add('code_execution');
    if (issueType === 'vulnerability' && remote && relevance.relevant) signals.add('network_exploit');
    if (attackTypes.includes('supply_chain') && /pickle|model|checkpoint|weights/i.test(text)) signals.add('model_artifact');
    if (attackTypes.includes('prompt_injection') && textSignals.indirect.test(text)) signals.add('indirect');
    if (textSignals.credentials.test(text)) signals.add('credentials');
    if (textSignals.toolInvocation.test(text)) signals.add('tool_invocation');
    // ATLAS describes attacks on AI systems: an item outside that scope keeps only the ids it was given.
    if (textSignals.systemPrompt.test(text)) signals.add('system_prompt');
    if (textSignals.misinformation.test(text)) signals.add('misinformation');
    const implied = relevance.relevant ? crosswalk(signals, llmSpecific) : { owaspIds: [], atlasIds: [] };
    const atlasIds = sortAtlasIds([...item.atlasHints, ...implied.atlasIds]);

    const packageNames = [...facts.packages.fixes.keys()];
    const weakness = facts.cweIds.map(cweShortName).find((n) => n !== undefined);
    const solution = item.solutionHint ?? (facts.packages.fixes.size > 0 ? remediation(facts.packages) : noRemediation);

    // Confidence: the calibrated probability that the relevance decision is right (eval/README.md
    // shows its reliability table).
    const classifierConfidence = round2(relevance.relevant ? relevance.probability : 1 - relevance.probability);

    return {
      relevant: relevance.relevant,
      issueType,
      severity: severity.severity,
      labels: [...labels],
      attackType: attackTypes,
      aiComponentTargeted: relevance.relevant ? componentOf(relevance.entries, text) : null,
      impactType: impactsOf(facts, attackTypes, codeExec, safety),
      attackSophistication: sophisticationOf(facts, issueType, text),
      exploitMaturity,
      llmSpecific,
      atlasIds,
      headline: headlineOf(item, packageNames, weakness),
      summary: summaryOf(item),
      solution,
      affectedVendors: facts.vendors.normalised,
      researchCategory: researchCategoryOf(item, issueType),
      classifierConfidence,
      owaspIds: implied.owaspIds,
      provenance: {
        version: relevance.version,
        relevant: relevance.relevant,
        probability: relevance.probability,
        modelScore: relevance.modelScore,
        reasons: relevance.reasons,
      },
    };
  }
}
