// The concern lexicon of the text items' features (issue 38): the acts and events docs/curation.md
// puts in scope, by family, in the words any publisher uses for them. Written from the policy's
// own wording (its in-scope groups and ambiguous-group decisions), not from the labelled items;
// the text model learns how much each family weighs, alone and beside an AI system.
export const concernLexicon = {
  /** A regulator's, government's or court's act. */
  act: /\b(bans?|banned|banning|fines?|fined|probes?|probing|investigat\w*|inquir(y|ies)|lawsuits?|sues?|sued|suing|court|judges?|ruling|settle(s|d|ment)?|regulators?|regulat(e|es|ed|ing|ion|ions)|watchdogs?|attorneys? general|ftc|fcc|nhtsa|ntsb|sec|eu|gdpr|ico|cnil|lawmakers?|legislat\w*|senators?|congress|parliament|laws?|bills?|executive order|guidance|guidelines|framework|standards?|orders?|ordered|prohibit\w*|restrict\w*|scrutiny|charged|liable|recalls?|recalled|complaints?|violat\w*|safety institute)\b/i,
  /** A concrete event: something leaked, was exploited or harmed someone. */
  event:
    /\b(leak(s|ed|ing)?|exposed?|exposes|breach(es|ed)?|hack(s|ed|ers?)?|stole|stolen|steal(s|ing)?|scams?|scammers?|scammed|fraud\w*|swindl\w*|crash(es|ed)?|killed|deaths?|died|suicid\w*|arrest\w*|wrongful\w*|victims?|abused?|misused?|weaponi[sz]\w*|rogue|sold|selling|disrupt\w*|shut(s)? down|pulled)\b/i,
  /** An attack on, or a flaw of, a system. */
  attack:
    /\b(jailbr(eak|oke|oken)\w*|prompt[- ]injections?|injection|exploit\w*|vulnerab\w*|flaws?|bugs?|backdoor\w*|poison\w*|hijack\w*|bypass\w*|tricked|trick(s|ing)?|fool(s|ed|ing)?|manipulat\w*|zero[- ]click|rce|cve-\d+-\d+|bug bount\w*|red[- ]team\w*|attacks?|attackers?|malicious|malware|phishing)\b/i,
  /** Misuse: deception, fakes and influence operations. */
  misuse:
    /\b(deepfakes?|fakes?|faked|fake|impersonat\w*|disinformation|misinformation|propaganda|influence (operations?|campaigns?)|nonconsensual|non-consensual|nudes?|csam|cloned|clones?|spoof\w*|falsehoods?)\b/i,
  /** Privacy: personal data collected, kept, heard or exposed. */
  privacy:
    /\b(privacy|private|personal (data|information)|surveil\w*|spy|spies|spying|snoop\w*|monitor(s|ed|ing)? (staff|workers|employees|students)|surveillance|tracks?|tracking|track(ed|ing)? everything|listening|listen(s|ed)?|recordings?|record(s|ed)?|consent|scrap(e|es|ed|ing)|data (collection|retention)|train(s|ed|ing)? on (your|user|customer)|biometric\w*|identity|secrets?|credentials?|passwords?|chat (logs?|histor(y|ies)))\b/i,
  /** Safety: harm, danger and misbehaviour of the system itself. */
  safety:
    /\b(safety|safe|unsafe|harm\w*|danger\w*|risks?|risky|threats?|toxic\w*|bias(ed|es)?|racist|sexist|misogyn\w*|antisemit\w*|hate|unfair\w*|disparit\w*|sycophan\w*|delusion\w*|mental health|discriminat\w*|hallucinat\w*|fabricat\w*|defam\w*|lies|lying|lied|misbehav\w*|misalign\w*|deceiv\w*|decept\w*|wrong|errors?|mistakes?|concerns?|warn(s|ed|ing|ings)?|alarm\w*|backlash|criticism|accountab\w*|children|kids|minors|teens?)\b/i,
} as const;

export type ConcernFamily = keyof typeof concernLexicon;

/** The concern families a text names. */
export function concernFamilies(text: string): ConcernFamily[] {
  return (Object.keys(concernLexicon) as ConcernFamily[]).filter((f) => concernLexicon[f].test(text));
}
