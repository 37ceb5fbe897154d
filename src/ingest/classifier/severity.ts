// The severity rule (docs/ingestion.md, "Fields that follow the source", states it for clients),
// the one place that decides it:
// 1. The severity the source itself assigned (GitHub's reviewed severity, a native hint).
// 2. Else the band of the CVSS vector severity prefers: 4.0 where there is one (GitHub's own
//    severity follows 4.0), else 3.x (0.0 gives info).
// A known-exploited item (exploitation.ts) is at least high after 1 or 2, and after 3 and 4:
// whether KEV knew it at ingest or learned it later, as a KEV change classifies its issues again.
// 3. Else news, research and regulatory items are info unless they describe a concrete
//    exploitable flaw: one with a CVE id or affected packages.
// 4. Else points: impact (code execution 3; data theft, privacy, supply chain, poisoning,
//    injection 2; anything else 1) + exploitation (known exploited or an incident: 1) + reach
//    (remote or unauthenticated: 1). 5 critical, 4 high, 2-3 medium, 1 low.
import { atLeastSeverity } from '../../issues/severities.js';
import type { IssueType, Severity } from '../item.js';
import type { CvssFacts } from './cvss.js';
import type { AttackType } from './tables.js';

export interface SeverityInput {
  /** The vector severity follows: Facts.severityCvss. */
  cvss: CvssFacts | null;
  stated?: Severity;
  issueType: IssueType;
  concreteFlaw: boolean;
  codeExecution: boolean;
  attackTypes: AttackType[];
  exploited: boolean;
  remote: boolean;
}

export interface SeverityDecision {
  severity: Severity;
  confidence: number;
  basis: 'source' | 'cvss' | 'type' | 'rule';
}

export function decideSeverity(input: SeverityInput): SeverityDecision {
  const decision = unfloored(input);
  return input.exploited ? { ...decision, severity: atLeastSeverity(decision.severity, 'high') } : decision;
}

function unfloored(input: SeverityInput): SeverityDecision {
  if (input.stated) return { severity: input.stated, confidence: 0.95, basis: 'source' };
  if (input.cvss) {
    const band = input.cvss.band === 'none' ? 'info' : input.cvss.band;
    return { severity: band, confidence: 0.9, basis: 'cvss' };
  }
  if ((input.issueType === 'news' || input.issueType === 'research' || input.issueType === 'regulatory') && !input.concreteFlaw) {
    return { severity: 'info', confidence: 0.7, basis: 'type' };
  }
  const heavy: AttackType[] = ['data_extraction', 'pii_leakage', 'supply_chain', 'rag_poisoning', 'prompt_injection', 'jailbreak'];
  const impact = input.codeExecution ? 3 : input.attackTypes.some((t) => heavy.includes(t)) ? 2 : 1;
  const points = impact + (input.exploited || input.issueType === 'incident' ? 1 : 0) + (input.remote ? 1 : 0);
  const severity: Severity = points >= 5 ? 'critical' : points === 4 ? 'high' : points >= 2 ? 'medium' : 'low';
  return { severity, confidence: 0.5, basis: 'rule' };
}
