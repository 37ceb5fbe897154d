"""The labelling rubric: docs/curation.md's policy written as patterns a reviewer can read.

It is not the service's classifier (src/ingest/classifier) and shares no code or table with it.
judge(item) returns relevant, group (why), the item's kind, and the expected fields. Hand
decisions that the rubric gets wrong go in overrides.json, keyed by link.
"""
import re

I = re.IGNORECASE

AI = re.compile(r"\b(a\.?i\.?|ai-\w+|artificial intelligence|gen ?ai|generative|llms?|mllms?|vlms?|large language models?|language models?|"
                r"chatgpt|gpt-?\w*|openai|anthropic|claude|gemini|copilot|chatbots?|deepseek|llama|mistral|grok|perplexity|sora|midjourney|"
                r"machine learning|deep learning|neural (networks?|nets?)|dnns?|cnns?|transformers?|diffusion models?|text-to-image|"
                r"deepfakes?|voice[- ]clon\w*|agentic|ai agents?|mcp|model context protocol|hugging ?face|langchain|ollama|rag|"
                r"retrieval[- ]augmented|federated learning|reinforcement learning|vision[- ]language|foundation models?|ml models?|"
                r"classifiers?|embeddings?|fine-?tun\w*|pre-?trained|computer vision|face recognition|facial recognition|autonomous driving|"
                r"reward models?|multimodal|nvidia|chips?|\w+[- ]learning|learned|trained|training data|datasets?|gradients?|bandits?|perceptrons?|lora|"
                r"segmentation|segment anything|object detect\w*|detectors?|speech recognition|speaker (recognition|verification)|recommend(er|ation) systems?|generative models?|gans?|autoencoders?|graph neural|gnns?|"
                r"vision transformers?|vits?|vlas?|vision-language-action|text-to-\w+|image classif\w*|video classif\w*|classification (models?|systems?)|"
                r"deep (rl|models?|hashing)|ml|surrogate models?|black-box models?|victim models?|target models?|learning-based|"
                r"data-driven|neural radiance|nerfs?|hashing based retrieval|face anti-spoofing|spoofing countermeasures)\b", I)

# Words that make the AI the object of the item's security, privacy or safety concern.
ATTACK_ON_AI = re.compile(r"\b(prompt[- ]injections?|jailbreak\w*|adversarial(ly)?|backdoor\w*|trojan(ed)? (models?|nets?)|"
                          r"(data|model|knowledge|rag|memory|training|tool) poisoning|poison\w*|membership inference|model (stealing|extraction|inversion|theft)|"
                          r"(training )?data extraction|extraction attacks?|inversion attacks?|evasion attacks?|red[- ]team\w*|guardrails?|"
                          r"safety alignment|misalign\w*|unsafe (content|outputs?|behaviou?r)|harmful (content|outputs?|responses?|requests?)|"
                          r"refusal|watermark\w*|fingerprint\w*|unlearning|privacy (attacks?|leak\w*|risks?|preserving|-preserving)|differential privacy|"
                          r"leak\w*|exfiltrat\w*|hijack\w*|manipulat\w*|deception|deceptive|sandbag\w*|scheming|reward hacking|"
                          r"model (security|safety|robustness)|robustness|certified|attacks? (on|against)|vulnerab\w*|exploit\w*|threats?|"
                          r"safety|secure|security|malicious|misuse|abuse\w*|deepfakes?|voice[- ]clon\w*|impersonat\w*|scams?|fraud\w*|"
                          r"attackers?|hack\w*|breach\w*|exposed|exposes?|flaws?|bugs?|rce|remote code execution|cves?-?[\d-]*|privacy|surveillance|"
                          r"lawsuits? over (suicide|death|harm)|suicide|self-harm|child safety|csam|nonconsensual|nudify|non-consensual)\b", I)

# The AI is the tool of defence: phishing or malware detectors, SOC assistants, vulnerability finders.
DEFENCE = re.compile(r"\b((llm|ai|ml|machine learning|deep learning|gpt|neural|transformer|agentic|genai)[- ](based|powered|driven|native|enabled|assisted|enhanced|first)"
                     r"|(using|leverag\w*|with|via|by) (an? )?(llms?|large language models?|ai|machine learning|deep learning|gpt-?\w*|agents?|agentic ai|neural networks?)"
                     r"|security copilot|copilot for security|ai soc|agentic soc|ai (security )?analysts?|ai for (cyber)?security|ai-assisted|ai (threat )?detection)\b", I)
DEFENDED = re.compile(r"\b(phishing|malware|intrusion|anomaly|fraud|spam|ransomware|botnet|ddos|vulnerability (detection|discovery|repair|management|triage)|"
                      r"(bug|vulnerability) (finding|hunting)|penetration test\w*|pentest\w*|fuzz\w*|threat (intelligence|hunting|detection)|soc\b|siem|"
                      r"incident response|log (analysis|parsing)|code (review|audit)|static analysis|smart contract|detection|detector|forensic\w*|cti|"
                      r"security (operations|analysts?|teams?|agents?|platform|posture|automation)|secure code generation|patch\w*)\b", I)
# The AI-specific harm that keeps a defensive item in scope (an attack on the detector itself).
AGAINST_THE_MODEL = re.compile(r"\b(adversarial|evasion|evade|poisoning|backdoor\w*|jailbreak\w*|prompt injection|robustness of|attacks? (on|against) (the )?(llm|ml|ai|machine learning|deep learning|detectors?|classifiers?|models?))\b", I)

LURE = re.compile(r"(\b(fake|bogus|malicious|spoofed|counterfeit|trojani[sz]ed|rogue|lookalike|imposter)\b.{0,40}\b(chatgpt|openai|ai|deepseek|claude|gemini|copilot|sora|midjourney|grok|kling|luma|veo)\b"
                  r"|\b(chatgpt|openai|ai|deepseek|claude|gemini|copilot|sora|midjourney|grok)\b.{0,30}\b(lures?|themed|disguise\w*|posing|masquerad\w*|impersonat\w*)\b"
                  r"|\b(disguised as|posing as|masquerading as|impersonating|lures?|baits?)\b.{0,40}\b(chatgpt|openai|ai|deepseek|claude|gemini|copilot|sora)\b)", I)
LURE_OBJECT = re.compile(r"\b(apps?|extensions?|sites?|websites?|installers?|tools?|ads|advertis\w*|packages?|downloads?|video generators?|malware|stealers?|infostealers?|trojans?|ransomware|rats?|pages?|domains?|software|utilit\w*)\b", I)

EFFICIENCY = re.compile(r"\b(quanti[sz]\w*|kv[- ]?cache|kvcache|caching|cache|routing|router|speculative decoding|serving|throughput|latency|inference (efficiency|acceleration|speed\w*)|"
                        r"pruning|sparsity|distillation|compression|compress\w*|memory[- ]efficient|efficient (inference|training|fine-tuning)|scheduling|batching|parallelism|"
                        r"low-rank|lora|mixture[- ]of[- ]experts|moe|token (reduction|pruning|merging)|long[- ]context)\b", I)

GENERAL_AI_NEWS = re.compile(r"\b(launch\w*|releas\w*|unveil\w*|announc\w*|raises?|raising|funding|valuation|ipo|invest\w*|acqui\w*|deal|chips?|gpus?|data ?cent(er|re)s?|"
                             r"ceo|executive|hires?|hiring|steps down|resign\w*|layoffs?|revenue|earnings|stock|shares|market cap|copyright|authors|publishers|licens\w*|"
                             r"subscription|pricing|users|downloads|partnership|antitrust|tariff\w*|export controls?)\b", I)

REGULATION = re.compile(r"\b(ai act|act on ai|ai law|ai laws|ai (bill|bills|legislation|regulation|regulations|rules?|governance|policy|standards?|framework|guidance|guidelines|code of practice)|"
                        r"executive order|regulat\w*|legislat\w*|ftc|fcc|nist|ncsc|enisa|cnil|"
                        r"data protection authority|privacy watchdog|watchdog|attorneys? general|bill|ban\w*|fined?|fines|guidance|guidelines|framework|standard|compliance|sb ?1047|sb ?53)\b", I)
SAFETY_REGULATION = re.compile(r"\b(ai act|ai (safety|security|risk|governance)|safety institute|frontier (ai|model)|deepfakes?|chatbots?|ai companions?|children|minors|teens|privacy|data protection|gdpr|"
                               r"facial recognition|face recognition|biometric|surveillance|high-risk|guardrails|risk management|nist ai|ai rmf|sb ?1047|sb ?53|transparency|red[- ]team\w*|watermark\w*)\b", I)

INCIDENT = re.compile(r"\b(breach\w*|leak\w*|exposed|exposes|hacked|compromised|stole|stolen|wiped|deleted|scam\w*|fraud\w*|victims?|arrested|charged|sued|lawsuit|"
                      r"cost|lost|swindl\w*|tricked|fooled|went rogue|goes rogue|exploited|actively exploit\w*|in the wild|abused|misused|used by|weaponi[sz]\w*|campaign|"
                      r"suicide|died|death|killed|crash\w*|outage)\b", I)
RESEARCH_NEWS = re.compile(r"\b(researchers?|study|studies|paper|academics|university|report finds|finds|found|discovered|discover|demonstrat\w*|proof[- ]of[- ]concept|poc)\b", I)

SECURITY = re.compile(r"\b(security|cyber\w*|hack\w*|breach\w*|vulnerab\w*|exploit\w*|malware|ransomware|phishing|attack\w*|threat\w*|cves?|patch\w*|zero[- ]day|apt\d*|"
                      r"espionage|spy\w*|botnet|ddos|stealer|backdoor|leak\w*|privacy|encrypt\w*|crypto\w*|quantum|surveillance|scam\w*|fraud\w*|sanction\w*|"
                      r"typhoon|lazarus|fbi|cisa|nsa|police|arrest\w*)\b", I)

ACTIVE = re.compile(r"\b(actively exploit\w*|exploited in the wild|in the wild|under (active )?attack|zero[- ]day attacks?|exploitation (attempts|observed)|attackers (are )?(exploiting|abusing)|being exploited|exploited (by|to))\b", I)

ATTACK_TYPES = [
    ('prompt_injection', re.compile(r"\bprompt[- ]injection|indirect (prompt )?injection|injected (instructions|prompts)|hidden (instructions|prompts)\b", I)),
    ('jailbreak', re.compile(r"\bjailbreak\w*|bypass\w* (safety|guardrails|safeguards|filters|content moderation)\b", I)),
    ('rag_poisoning', re.compile(r"\b(rag|retrieval[- ]augmented|knowledge (base|corpus)|vector (store|database)|memory) (poisoning|injection)|poison\w* (the )?(rag|retrieval|knowledge|memory|documents)\b", I)),
    ('data_extraction', re.compile(r"\bmembership inference|model inversion|(training[- ])?data extraction|inversion attack|gradient (inversion|leakage)|system prompt (leak\w*|extraction)|steal\w* (the )?system prompt\b", I)),
    ('model_extraction', re.compile(r"\bmodel (stealing|extraction|theft|imitation)|(model|weights) extraction attack|steal\w* (the |a )?(victim |target |black-box )?(models?|weights)\b|stolen models?\b", I)),
    ('pii_leakage', re.compile(r"\b(pii|personal (data|information)|personally identifiable|private (data|information)|privacy leak\w*|data (leak\w*|exposure)|leak\w* (user|personal|private|sensitive|chat|conversation)|exposed (user|personal|chat|conversations?|data)|(chats?|conversations?|prompts?) (leak\w*|exposed))\b", I)),
    ('supply_chain', re.compile(r"\b(supply[- ]chain|malicious (models?|packages?|pickles?|weights|checkpoints?|extensions?|plugins?|mcp servers?)|pickle|model hub|backdoored package|typosquat\w*|slopsquat\w*)\b", I)),
    # Attacks on models themselves, as MITRE ATLAS names them (AML.T0020, T0018.000, T0043, T0015).
    ('data_poisoning', re.compile(r"\b((training )?data|dataset|clean[- ]label|targeted|model|label[- ]flipping) poisoning|poisoning attacks?|poison\w* (the )?(training|dataset|data\b)|poisoned (training )?(data|samples|datasets?|examples)\b", I)),
    ('backdoor', re.compile(r"\b(backdoor\w*|trojan(ed)? (models?|nets?|networks?|attacks?)|neural trojans?|sleeper agents?)\b", I)),
    ('adversarial_examples', re.compile(r"\b(adversarial(ly)? (examples?|perturbations?|patch\w*|inputs?|samples?|images?|noise|attacks?|robust\w*|training)|evasion attacks?|certified (robustness|defen[cs]es?)|universal perturbations?|typographic attacks?)\b", I)),
    ('denial_of_service', re.compile(r"\b(denial[- ]of[- ]service|dos attack|resource exhaustion|sponge (examples|attack)|energy-latency|overthink\w*)\b", I)),
]


def attack_types(text):
    found = [name for name, pattern in ATTACK_TYPES if pattern.search(text)]
    return found


AI_ENTITY = r"(chatgpt|openai|copilot|claude|anthropic|gemini|grok|deepseek|llms?|large language models?|ai (agents?|models?|assistants?|chatbots?|coding (tools?|assistants?|agents?)|browsers?|tools?|systems?|apps?|platforms?|code editors?|companions?)|agentic ai|ai-powered (browsers?|assistants?|agents?)|chatbots?|mcp( servers?)?|model context protocol|hugging ?face|langchain|llama|ollama|cursor|windsurf|gpts?|genai (apps?|tools?)|generative ai (tools?|apps?|models?)|ai)"
HARM = r"(prompt[- ]injection|jailbreak\w*|vulnerab\w*|flaws?|bugs?|exploit\w*|zero[- ]click|rce|cve-\d+-\d+|leak\w*|exposed|exposes?|exposing|breach\w*|hijack\w*|backdoor\w*|poison\w*|malicious|security (risks?|holes?|issues?|gaps?)|attacks?|attackers?|hackers?|hacked|tricked|manipulat\w*|data exposure|privacy|safety|harm\w*|misuse\w*|abuse\w*|weaponi[sz]\w*|went rogue|goes rogue|deleted|wiped)"
STRONG_NEWS = re.compile(
    r"\b(prompt[- ]injection|jailbreak\w*|deepfakes?|voice[- ]clon\w*|slopsquat\w*|echoleak|llmjacking|ai[- ](generated|written|crafted|made) (malware|phishing|ransomware|scams?|exploits?|code)|"
    + HARM + r"\b.{0,60}\b" + AI_ENTITY + r"|" + AI_ENTITY + r"\b.{0,60}\b" + HARM + r"|"
    r"(hackers?|threat actors?|criminals?|cybercriminals?|scammers?|state[- ](backed|sponsored)|nation[- ]state|apts?|fraudsters?|spies|operatives?)\b.{0,50}\b(use[sd]?|using|abus\w*|leverag\w*|weaponi[sz]\w*|turn\w* to|exploit\w*|tap\w*)\b.{0,40}\b(ai|chatgpt|gemini|claude|llms?|gen ?ai|generative ai|copilot|deepseek)|"
    r"(bans?|banned|disrupt\w*|block\w*) .{0,40}(chatgpt|openai|claude|gemini) accounts)\b", I)
COMMENTARY = re.compile(r"\b(market|survey|report|reports|how to|ways|tips|webinar|podcast|recap|rewind|week|weekly|predictions?|trends?|landscape|future of|era|guide|why|what|keys?|strategy|strategies|ready|readiness|leaders|cisos?|executives|boards?|partner\w*|team up|launch\w*|unveil\w*|introduc\w*|announc\w*|raises?|funding|acqui\w*|startup)\b", I)


def judge(item):
    title = item['title']
    text = f"{title}\n{item.get('summary', '')}"
    has_ai = AI.search(text) is not None
    # A title that names an AI product or the field; "AI" inside another word does not count.
    concern = ATTACK_ON_AI.search(text) is not None
    kind = item['kind']

    def out(group):
        return {'relevant': False, 'group': group, 'kind': kind}

    if not has_ai:
        return out('security-general' if SECURITY.search(text) else 'unrelated')
    if LURE.search(title) and LURE_OBJECT.search(title) and not re.search(r"\b(prompt injection|jailbreak|(in|of) (chatgpt|claude|gemini|copilot|openai)'s)\b", title, I):
        return out('ai-brand-lure')
    misuse_defence = re.search(r"\b(deepfakes?|(llm|ai|machine)[- ]generated (text|content|images?|code)|jailbreak\w*|prompt injection)\b", text, I)
    if DEFENCE.search(text) and DEFENDED.search(text) and not AGAINST_THE_MODEL.search(title if kind == 'news' else text) and not misuse_defence:
        return out('ai-for-defence')
    if kind == 'research' and EFFICIENCY.search(title) and not re.search(r"attack|adversar|backdoor|poison|privacy|leak|extract|steal|watermark|jailbreak|membership|security|safety|harmful", text, I):
        return out('llm-efficiency')
    regulation = kind == 'news' and REGULATION.search(title) and SAFETY_REGULATION.search(title)
    if not concern and not regulation:
        if kind == 'news' and SECURITY.search(title) is None and GENERAL_AI_NEWS.search(title):
            return out('ai-general-news')
        return out('ai-general-news' if kind == 'news' else 'ai-without-security')
    if kind == 'news' and not regulation:
        # A press title is in scope only when it names an AI system and a harm to, through or by it;
        # "AI" as one word of a security story, trend pieces and vendor news are not.
        if not STRONG_NEWS.search(title):
            if SECURITY.search(title):
                return out('security-ai-only-a-word')
            return out('ai-general-news')
        if COMMENTARY.search(title) and not re.search(r"\b(prompt[- ]injection|jailbreak\w*|cve-\d+|zero[- ]click|echoleak|flaw|vulnerability in|exploit(ed)?|leak(ed|s)?|exposed|hijack\w*|deepfake|voice[- ]clon\w*|bans?|disrupt\w*)\b", title, I):
            return out('ai-general-news' if GENERAL_AI_NEWS.search(title) and not SECURITY.search(title) else 'security-ai-only-a-word')
    if kind == 'news':
        kind = 'regulation' if regulation else 'incident' if INCIDENT.search(title) and not RESEARCH_NEWS.search(title) else 'news'
    return {'relevant': True, 'group': 'in-scope', 'kind': kind, **fields(item, kind)}


def fields(item, kind):
    """The fields an in-scope item of this kind should carry."""
    text = f"{item['title']}\n{item.get('summary', '')}"
    types = attack_types(text)
    labels = {'research': ['research'], 'regulation': ['policy'], 'news': ['industry'], 'incident': []}[kind][:]
    if types or re.search(r"\b(attack\w*|vulnerab\w*|exploit\w*|malicious|backdoor\w*|poison\w*|adversarial|hack\w*|breach\w*|flaw|security|threat\w*)\b", text, I) or kind == 'incident':
        labels.append('security')
    if 'pii_leakage' in types or 'data_extraction' in types or re.search(r"\bprivacy|personal data|gdpr|data protection\b", text, I):
        labels.append('privacy')
    if 'jailbreak' in types or re.search(r"\b(safety|harmful|unsafe|suicide|self-harm|child|csam|deepfake|misinformation)\b", text, I):
        labels.append('safety')
    issue_type = {'research': 'research', 'regulation': 'regulatory', 'news': 'news', 'incident': 'incident'}[kind]
    attack = types if types else (['other'] if 'security' in labels and kind != 'regulation' else [])
    return {
        'issueType': issue_type,
        'labels': sorted(set(labels)),
        'attackType': attack,
        'exploitMaturity': 'active' if ACTIVE.search(text) else 'unknown',
    }
