// The rule-based classifier's knowledge, kept as data. Changing any table changes what the
// classifier says: bump promptVersion in rules.ts when you do, so re-ingest reclassifies.

export type AiComponent = 'rag' | 'api' | 'framework' | 'agent' | 'plugin' | 'inference' | 'model';
/**
 * The spec's observed values, and four attacks on models themselves that MITRE ATLAS names and the
 * research feed is mostly about (docs/curation.md): adversarial examples (AML.T0043, T0015), data
 * poisoning (T0020), backdoors (T0018.000, T0043.004) and model extraction (T0024.002).
 */
export type AttackType =
  | 'rag_poisoning'
  | 'prompt_injection'
  | 'jailbreak'
  | 'data_extraction'
  | 'model_extraction'
  | 'pii_leakage'
  | 'supply_chain'
  | 'data_poisoning'
  | 'backdoor'
  | 'adversarial_examples'
  | 'denial_of_service'
  | 'other';

/** Weights (log-odds) of each kind of rule evidence; relevance.ts scales their sum. */
export const evidenceWeights = {
  cataloguePackage: 6,
  registrySummary: 4,
  catalogueRepository: 5,
  catalogueOrganisation: 3.5,
  /** Curated AI/ML lists: mechanically derived like the registry summaries (data/catalogue/README.md). */
  listedRepository: 4,
  listedOrganisation: 3,
  packageName: 2.5,
  termFirst: 2.5,
  termMore: 1,
  termMax: 4.5,
  domainFirst: 1.5,
  domainMore: 0.75,
  domainMax: 3,
  atlas: 5,
  aiVendor: 3,
  /** A text item's only words of concern are the weak ones (items.ts): shown, not counted. */
  concernWeak: 0,
};

/** Words in a package name that make it AI/ML software ("guardrails-ai", "stanford-corenlp"'s "nlp"). */
export const aiNameTokens = {
  exact: new Set([
    'ai',
    'ml',
    'llm',
    'llms',
    'gpt',
    'nlp',
    'neural',
    'tensor',
    'tensorflow',
    'torch',
    'pytorch',
    'onnx',
    'llama',
    'genai',
    'chatbot',
    'bert',
    'mlops',
    'automl',
    'diffusion',
    'transformer',
    'transformers',
    'embedding',
    'embeddings',
    'rag',
    'agentic',
    'langchain',
    'openai',
    'anthropic',
    'ollama',
    'huggingface',
    'keras',
    'deeplearning',
    'mcp',
    'inference',
    'vllm',
    'gguf',
    'ggml',
    // Model libraries and formats whose names third-party packages take ("torch-geometric", "sklearn-pandas").
    'sklearn',
    'scikit',
    'xgboost',
    'lightgbm',
    'catboost',
    'mxnet',
    'paddle',
    'paddlepaddle',
    'jax',
    'flax',
    'diffusers',
    'safetensors',
    'tflite',
    'tensorrt',
    'openvino',
    'deepspeed',
    'mlx',
    'lora',
    'qlora',
    'peft',
    'whisper',
    'yolo',
    'yolov5',
    'yolov8',
    // Words of the trade: vector stores, embeddings, agents built on models, language understanding.
    'vectordb',
    'vectorstore',
    'reranker',
    'rerank',
    'nlu',
    'asr',
    'tts',
    'chatgpt',
    'copilot',
    'autogen',
    'aiagent',
    'rlhf',
    'mlops',
  ]),
  /** Compounds: chatgpt, autogpt, llmops, gptcache, torchvision, tensorboard; "ml" prefixes (mlflow-like) are too loose to use. */
  affix: /^(llm|gpt|torch|tensor)[a-z]|[a-z](gpt|llm)$/,
  /** Adjacent name words that together name the field ("machine-learning-kit", "deep_learning"). */
  pairs: [
    ['machine', 'learning'],
    ['deep', 'learning'],
    ['neural', 'network'],
    ['language', 'model'],
    ['vector', 'database'],
    ['vector', 'store'],
  ] as [string, string][],
  /** A word followed by these is something else: ML-KEM and ML-DSA are post-quantum cryptography (FIPS 203, 204). */
  notBefore: { ml: new Set(['kem', 'dsa']) } as Record<string, Set<string>>,
};

/**
 * Normalised vendor names and the spellings that mean them (package owners on GitHub, product
 * names). A raw name containing one of the patterns normalises to the vendor.
 */
export const vendorAliases: { vendor: string; pattern: RegExp; ai?: true }[] = [
  { vendor: 'LangChain', pattern: /\blangchain(-ai)?\b|\bhwchase17\b/i, ai: true },
  { vendor: 'LlamaIndex', pattern: /\bllama[-_ ]?index\b|\brun-llama\b|\bjerryjliu\b/i, ai: true },
  { vendor: 'BerriAI', pattern: /\bberriai\b|\blitellm\b/i, ai: true },
  { vendor: 'deepset', pattern: /\bdeepset(-ai)?\b|\bhaystack\b/i, ai: true },
  { vendor: 'Langflow', pattern: /\b(langflow|logspace)(-ai)?\b/i, ai: true },
  { vendor: 'Ollama', pattern: /\bollama\b/i, ai: true },
  { vendor: 'Hugging Face', pattern: /\bhugging ?face\b|\bgradio(-app)?\b/i, ai: true },
  { vendor: 'Google', pattern: /\bgoogle\b|\btensorflow\b|\bgemini\b|\bbard\b|\bcolab\b|\bdeepmind\b/i },
  { vendor: 'Lightning AI', pattern: /\blightning-ai\b|\bpytorch-?lightning\b|\bpytorchlightning\b/i, ai: true },
  { vendor: 'PyTorch', pattern: /\bpytorch\b(?!-?lightning)/i },
  { vendor: 'MLflow', pattern: /\bmlflow\b/i, ai: true },
  { vendor: 'MindsDB', pattern: /\bmindsdb\b/i, ai: true },
  { vendor: 'NVIDIA', pattern: /\bnvidia\b|\bnvflare\b/i },
  { vendor: 'vantage6', pattern: /\bvantage6\b/i },
  { vendor: 'Horovod', pattern: /\bhorovod\b/i },
  { vendor: 'Meta', pattern: /\bmeta( ai| platforms)?\b|\bfacebook(research)?\b|\bparlai\b|\bllama ?[234]\b/i },
  { vendor: 'NLTK', pattern: /\bnltk\b/i },
  { vendor: 'AimStack', pattern: /\baimhubio\b|\baimstack\b/i },
  { vendor: 'Mage', pattern: /\bmage-ai\b/i },
  { vendor: 'Project Jupyter', pattern: /\bjupyter(lab|hub)?\b|\bipython\b|\bbinderhub\b/i },
  { vendor: 'Streamlit', pattern: /\bstreamlit\b/i },
  { vendor: 'Dask', pattern: /\bdask\b/i },
  { vendor: 'Qdrant', pattern: /\bqdrant\b/i, ai: true },
  { vendor: 'OpenAI', pattern: /\bopenai\b|\bchatgpt\b|\bgpt-[2345]/i, ai: true },
  { vendor: 'Anthropic', pattern: /\banthropic\b|\bclaude\b/i, ai: true },
  { vendor: 'Microsoft', pattern: /\bmicrosoft\b|\bazure\b|\bbing chat\b|\bm365 copilot\b|\bcopilot studio\b|\btay\b/i },
  { vendor: 'GitHub', pattern: /\bgithub copilot\b/i },
  { vendor: 'Amazon', pattern: /\bamazon\b|\baws\b/i },
  { vendor: 'Apple', pattern: /\bapple\b/i },
  { vendor: 'Samsung', pattern: /\bsamsung\b/i },
  { vendor: 'Salesforce', pattern: /\bslack\b|\bsalesforce\b/i },
  { vendor: 'Atlassian', pattern: /\batlassian\b|\bjira\b/i },
  { vendor: 'Anysphere', pattern: /\bcursor\b/i },
  { vendor: 'DeepSeek', pattern: /\bdeepseek\b/i, ai: true },
  { vendor: 'Mistral AI', pattern: /\bmistral\b/i, ai: true },
  { vendor: 'Clearview AI', pattern: /\bclearview ?ai\b/i, ai: true },
  { vendor: 'Palo Alto Networks', pattern: /\bpalo alto networks\b/i },
  { vendor: 'Cylance', pattern: /\bcylance\b/i },
  { vendor: 'Proofpoint', pattern: /\bproofpoint\b/i },
  { vendor: 'VirusTotal', pattern: /\bvirustotal\b/i },
  { vendor: 'ID.me', pattern: /\bid\.me\b/i },
  { vendor: 'Ray (Anyscale)', pattern: /\banyscale\b|\bray (framework|cluster|dashboard|jobs api)\b|\bshadowray\b/i },
];

/** Words that make a text about AI/ML systems; strong ones decide on their own. */
export const aiTerms = {
  strong:
    /\b(llms?|large language models?|language models?|machine learning|deep learning|neural networks?|artificial intelligence|generative ai|gen ?ai|ai models?|ai systems?|ai agents?|ml models?|chatgpt|gpt-?[2345]o?|chatbots?|prompt injection|jailbreak(s|ing)?|retrieval[- ]augmented|text-to-sql|model weights|training data|adversarial (examples?|samples?|attacks?|machine learning)|deepfakes?|copilot|ai act|ai risk|foundation models?|natural language processing|nlp|computer vision|reinforcement learning|federated learning|vector (databases?|search engine|similarity search)|embedding models?|model (serving|registry|inference)|inference (servers?|engine)|text generation|speech recognition|object detection|mlops|hugging ?face|transformers? models?|diffusion models?|stable diffusion|fine-?tun(e|ed|ing)|pre-?trained models?|neural network libraries|mcp servers?|model context protocol)\b/i,
  weak: /\b(ai|ml|models?|inference|embeddings?|agents?|classifiers?|prompts?|dataset|vector (store|database)|tokenizer|checkpoints?)\b/i,
  /**
   * The field's own words and the platforms ML work runs on: weaker than `strong`, and never
   * words that general software uses in another sense (type inference, database checkpoints,
   * federated identity, lexers' tokenizers, ORM models, user agents, "embedding" a credential,
   * the datasets of any data or scientific software, an ORM's "crafted model");
   * "AI" and "ML" only as words of their own, not inside a hyphenated name. "MCP" alone (an
   * advisory of an MCP gateway or tool host names the protocol, not always an "MCP server") and
   * LLM providers' model names, but not "Mistral" or "Gemini", which are also OpenStack's workflow
   * service and a web protocol.
   */
  domain:
    /(?<![\w./-])(ai|ml)(?![\w/-])|\b(jupyter\w*|ipython|ipynb|pytorch|torch|tensorflow|keras|onnx|scikit-learn|sklearn|xgboost|embeddings|(text|word|sentence|vector|image) embeddings?|embedding (models?|vectors?)|agentic|openai|langchain|llama[- ]?index|vector (stores?|index(es)?|embeddings?)|(malicious(ly)?|untrusted|uploaded|pickled|poisoned|trained|pre-?trained)\s+(['‘’"]?[\w-]+['‘’"]?\s+)?models?|model (files?|uploads?|checkpoints?|artifacts?|training|weights|loading)|safetensors|gguf|ollama|vllm|llama\.cpp|mcp|claude|anthropic|deepseek|qwen|chat completions?)\b/i,
};

/**
 * Words that make an item about security, privacy or safety: with AI evidence beside them, a text
 * item may be served (items.ts); without them, an item about AI is general AI news. Attacks and
 * flaws, misuse, leaks and privacy, harm and safety, and the regulators' vocabulary of risk.
 */
export const concernTerms = {
  /** Attacks, flaws, leaks, misuse and harm: each says the item is about one, wherever it stands. */
  strong:
    /\b(prompt[- ]injections?|jailbreak(s|ing|ed)?|adversarial (examples?|samples?|attacks?|perturbations?|patch(es)?|inputs?|robustness|training|prompts?)|adversarially|backdoor(s|ed)?|trojan(s|ed)?|byzantine|poison(s|ed|ing)?|membership inference|model (stealing|extraction|inversion|theft)|stolen models?|extraction of [\w-]+( [\w-]+)? models|extraction attacks?|inversion attacks?|evasion attacks?|red[- ]team(s|ing)?|guardrails?|vulnerab(le|ility|ilities)|exploited|exploitation|exploits? (a |the |an )?(vulnerabilit\w*|flaws?|bugs?)|attacks?|attackers?|malicious|malware|hack(s|ed|ers?|ing)?|breach(es|ed)?|leak(s|ed|ing|age)?|exfiltrat\w*|hijack(s|ed|ing)?|flaws?|zero[- ]click|remote code execution|rce|cve-\d{4}-\d+|deepfakes?|voice[- ]clon\w*|impersonat\w*|scams?|fraud\w*|unlearning|differential privacy|privacy (attacks?|leak\w*|risks?|threats?)|self-harm|suicide|csam|nonconsensual|non-consensual|unauthori[sz]ed|intrusions?|misuse|abuse[sd]?|harmful (content|outputs?|responses?|requests?|behaviou?rs?|prompts?)|unsafe (content|outputs?|responses?|behaviou?rs?|prompts?)|safety (alignment|guardrails?|filters?|risks?|evaluation|benchmark)|(ai|llm|model|agent|agentic|genai|chatbot) (safety|security)|(safety|security|privacy) (of|for|in) (the )?(ai|llms?|(language |ai |ml )?models?|agents?|agentic|chatbots?|generative ai|machine learning)|secur(e|es|ing) (the )?(ai|llms?|agents?|models?|agentic|generative ai|machine learning)|liable|liability|risk management|high-risk (ai|systems?|uses?|applications?)|ai act|ai (laws?|regulations?|rules|standards?|governance|management system)|prohibited (ai )?practices)\b/i,
  /**
   * Words of concern that research abstracts also use in another sense ("we exploit the structure",
   * "robot safety", "without compromising quality", "privacy-preserving" in passing, a surveillance
   * application): they count in the title, and in the body only beside a strong word.
   */
  titled:
    /\b(exploit(s|ing)?|exposed|exposes|privacy|private data|personal (data|information)|surveillance|unsafe|harmful|watermark\w*|fingerprint\w*|safety|security|secure|secrets|compromised?|high-risk|adversarial)\b/i,
  /** Words of risk that many texts use in passing ("robust", "risk", "biased"): alone they serve nothing. */
  weak: /\b(harms?|threats?|risks?|robustness|misalign\w*|deceptive|deception|manipulat\w*|disinformation|misinformation|hallucinat\w*|wrong answers?|misleading|accidents?|injur\w*|discriminat\w*|biased)\b/i,
};

/**
 * AI words of papers and press beyond aiTerms (which advisories share): the architectures, tasks and
 * model families research names ("DNNs", "text-to-image models", "object detectors", "VLA models").
 * Only text items weigh them (items.ts), as evidence that the item is about an AI/ML system.
 */
export const itemAiTerms =
  /\b(dnns?|cnns?|rnns?|gnns?|deep neural|neural|vision[- ]language(-action)?|vlms?|vlas?|mllms?|lvlms?|lrms?|multimodal (large )?(language |reasoning )?models?|text-to-(image|video|speech|sql)|image generat\w*|generative (models?|ai)|gans?|diffusion|object detect\w*|detectors?|face recognition|facial recognition|speaker (recognition|verification)|speech recognition|asr|recommender systems?|recommendation (systems?|models?)|graph (neural|learning)|reinforcement learning|federated learning|split learning|contrastive learning|self-supervised|representation learning|[\w-]+ learning|classifiers?|image classification|segment anything|foundation models?|pre-?trained|fine-?tun\w*|transformers?|bert|vision transformers?|vits?|reasoning models?|agents?|agentic|autonomous (driving|vehicles?)|embeddings?|chatbots?|ai|a\.i\.|copilot|chatgpt|openai|anthropic|claude|gemini|grok|deepseek|llama|mistral|qwen|gpt-?[\w.]*|llms?|deepfakes?|voice[- ]clon\w*|mcp|membership inference|adversarial (examples?|training|robustness|perturbations?|patch(es)?|attacks?)|adversarially|(data|model) poisoning|poisoning attacks?|backdoor attacks?|model (stealing|extraction|inversion)|stolen models?|evasion attacks?|certified (robustness|defen[cs]es?)|learned ind(ex|exes|ices))\b/i;

/**
 * Text items where AI is only the defender's tool or the bait (docs/curation.md, out of scope):
 * "LLM-based phishing detection", "AI-powered SOC", a fake ChatGPT app that drops a stealer. Each
 * counts against serving, unless the item also attacks the model itself (`againstTheModel`).
 */
export const toolOrBait = {
  defence:
    /\b(detect\w*|detectors?|intrusion|malware|malicious (software|packages?|code|urls?|traffic|domains?)|phishing|fuzz\w*|pentest\w*|penetration test\w*|honeypots?|cti|threat (intelligence|hunting|detection)|vulnerability (evaluation|detection|discovery|assessment|repair|management)|squatting|misbehaviou?r|anomal\w*|edr|siem|soc|incident response|forensic\w*|security patches|detection rules|(smart contract|code|security) (auditing|audits?|analysis)|hardening)\b.{0,100}\b(llms?|large language models?|language models?|machine learning|deep learning|gpt-?[\w.]*|bert|mistral[\w-]*|llama[\w-]*|ai|agents?|agentic|neural networks?|transformers?|gnns?|gans?)\b|\b(llms?|large language models?|machine learning|deep learning|gpt-?[\w.]*|bert|mistral[\w-]*|llama[\w-]*|ai|ml|transformers?( models?)?|gnns?|gans?|agentic|generative (ai|agents?|models?))[- ]?(based|powered|driven|native|enabled|assisted|aided|enhanced|for)?\b.{0,100}\b(detect\w*|detectors?|intrusion|malware (analysis|detection)|phishing detection|fuzz\w*|pentest\w*|penetration test\w*|honeypots?|threat (intelligence|hunting|detection)|vulnerability (evaluation|detection|discovery|assessment|repair)|security (operations|automation|auditing|analysis)|soc|siem|incident response|anomal\w*|(smart contract|code) (auditing|audits?)|hardening|defen[cs]e against (\w+ )?(emails?|phishing|malware|intrusions?|cyber\w*))\b|\b(security copilot|copilot for security|ai soc|agentic soc|ai (security )?analysts?|autonomous security operations)\b|\b(combat\w*|fight\w*|tackl\w*|thwart\w*|defend\w* against|protect\w* (your )?(business|enterprises?|organi[sz]ations?)|weapons? against|stop(s|ping)?|block(s|ing)?)\b.{0,40}\b(cyber\w*|threats?|attacks?|malware|phishing|ransomware|fraud|scams?)\b/i,
  lure: /\b(fake|bogus|malicious|spoofed|counterfeit|trojani[sz]ed|rogue|lookalike)\s+(chatgpt|openai|deepseek|claude|gemini|copilot|sora|ai)\b.{0,40}\b(apps?|extensions?|sites?|installers?|tools?|ads|downloads?|video generators?)|\b(chatgpt|openai|deepseek|claude|gemini|ai)[- ](themed|branded)\b|\b(disguised as|posing as|masquerading as|impersonating)\s+(an? )?(chatgpt|openai|deepseek|claude|gemini|ai)\b/i,
  againstTheModel:
    /\b(adversarial\w*|evasion|evade[sd]?|bypass\w*|fool\w*|trick\w*|poison\w*|backdoor\w*|jailbreak\w*|prompt[- ]injection|model (stealing|extraction|inversion)|membership|memori[sz]\w*|training data|transfer attacks?|robustness|certif\w*|(ai|llm|machine)[- ](generated|modified|written|crafted)|vulnerabilit\w* (in|of) (the )?(llms?|language models?|ai|models?|agents?)|attacks? (on|against) (the )?(llms?|ml|ai|machine learning|deep learning|detectors?|classifiers?|models?))\b/i,
  /**
   * Business news: a launch, a funding round, results, a deal or an appointment. Out of scope
   * (ai-general-news) when its title has no word of concern at all, whatever its summary says.
   */
  business:
    /\b(launch(es|ed)?|unveil(s|ed)?|announc(es|ed|ement)|introduc(es|ed)|rais(es|ed) \$|funding|valuation|ipo|earnings|revenue|shares (soar|fall|jump|drop|rise)\w*|acquir(es|ed)|acquisition|partners? with|partnership|appoints?|hires?|names .{0,30} (ceo|chief))\b/i,
  /**
   * Commentary, advice and trend pieces ("How to craft an AI security policy", "AI threats in the
   * era of agents"): out (security-ai-only-a-word) unless the title reports a concrete attack, flaw,
   * leak or incident (`event`).
   */
  commentary:
    /^(how|why|what)\b|\b(how to|tips|ways to|webinar|podcast|recap|predictions?|trends|guide to|in the (age|era) of|era\b|careers?|certifications?|courses?|landscape|transforms?|(is|are) (changing|reshaping|transforming))\b/i,
  event:
    /\b(prompt[- ]injection|jailbr(eak|oke|oken)\w*|vulnerab\w*|flaws?|bugs?|exploit(s|ed)?|leak(s|ed)?|breach(es|ed)?|hack(s|ed)?|hijack\w*|exposed?s?|cve-\d+-\d+|zero[- ]click|deepfakes?|voice[- ]clon\w*|scam(s|med)?|stole|stolen|bans?|banned|disrupt\w*|poison\w*|backdoor\w*)\b/i,
  weight: -4,
};

/** Terms that make an item specific to large language models. */
export const llmTerms =
  /\b(llms?|large language models?|language models?|prompt injection|system prompts?|prompts? (template|injection)|chatgpt|gpt-?[2345]o?|gpts|chatbots?|jailbreak(s|ing)?|copilot|claude|gemini|bard|llama ?[234]?|mistral|text-to-sql|rag|retrieval[- ]augmented|ai agents?|mcp)\b/i;

/** Attack types: text patterns and the CWE ids that imply them, checked in this order. */
export const attackRules: { type: Exclude<AttackType, 'other'>; text: RegExp; cwes: string[] }[] = [
  {
    type: 'prompt_injection',
    text: /\bprompt[- ]injection|injected (instructions|prompts?)|malicious (prompts?|instructions)|via (a |the |crafted |user )?prompts?\b|(english|natural) language input|indirect injection|prompt infiltration/i,
    cwes: ['CWE-1427'],
  },
  { type: 'jailbreak', text: /\bjailbreak|guardrails? bypass|bypass(es|ing)? (the )?(safety|content|model) (filters?|guardrails?|alignment)/i, cwes: [] },
  {
    type: 'rag_poisoning',
    text: /\brag poisoning|poison(s|ed|ing)? (the )?(retrieval|knowledge base|vector (store|database)|rag|index(ed)? documents?)|retrieval content crafting|false rag entr/i,
    cwes: [],
  },
  {
    type: 'pii_leakage',
    text: /\bpii\b|personally identifiable|personal (data|information)|(user|private) conversations?|chat histor(y|ies)|privacy (breach|leak|violation)|biometric data/i,
    cwes: ['CWE-359'],
  },
  {
    type: 'data_extraction',
    text: /exfiltrat|(data|code|secrets?) (leak(age|s|ed)?|extraction|theft)|(data|secrets|keys|tokens|credentials) (were |was |are )?(exposed|accessed without)|exposed .{0,40}\b(data|secrets|keys|tokens)\b|extract(ion of|s|ed|ing)? (the )?(system prompt|training data|secrets?|credentials|api keys?)|model inversion|inversion attacks?|gradient (inversion|leakage)|(read|access|leak)s? (arbitrary|sensitive|local) (files?|data)|arbitrary file (read|access|disclosure)|file disclosure|information disclosure|server-side request forgery|\bssrf\b|membership inference/i,
    cwes: ['CWE-22', 'CWE-23', 'CWE-29', 'CWE-36', 'CWE-200', 'CWE-538', 'CWE-918', 'CWE-532'],
  },
  {
    type: 'model_extraction',
    text: /\bmodel (extraction|stealing|theft|replication|imitation)|(steal|extract|clon|replicat)(s|ed|es|ing|e)? (the |a |an )?(victim |target |black-box |proprietary )?(models?|weights|model parameters)\b|stolen models?|knockoff nets|imitation attacks?/i,
    cwes: [],
  },
  {
    type: 'supply_chain',
    text: /supply[- ]chain|malicious (packages?|models?|dependenc(y|ies)|pypi|npm|checkpoints?|model files?)|typosquat|dependency confusion|poisoned (models?|packages?|datasets?|skill|mcp)|backdoor(ed)? (package|dependency)|compromised (dependency|package|extension)|pickle|unsafe (deserialization|model loading)|untrusted (model|checkpoint)/i,
    cwes: ['CWE-502', 'CWE-494', 'CWE-506', 'CWE-829', 'CWE-1357'],
  },
  {
    type: 'data_poisoning',
    text: /\b(data|training[- ]data|dataset|clean[- ]label|targeted|availability|model|label[- ]flipping) poisoning|poisoning attacks?|poison(s|ed|ing)? (the )?(training( data| set)?|datasets?|data|samples)|poisoned (training )?(data|samples|datasets?|examples)/i,
    cwes: [],
  },
  {
    type: 'backdoor',
    text: /\bbackdoor(s|ed|ing)?\b|\btrojan(ed|ing)? (models?|networks?|nets|attacks?|triggers?)|neural trojans?|trigger[- ](injection|patterns?)|sleeper agents?/i,
    cwes: [],
  },
  {
    type: 'adversarial_examples',
    text: /\badversarial(ly)? (examples?|perturbations?|patch(es)?|inputs?|samples?|images?|noise|attacks?|robust\w*|training)|evasion attacks?|evad(e|es|ing) (the )?(detectors?|classifiers?|(ml |ai |target )?models?)|universal perturbations?|typographic attacks?|certified (robustness|defen[cs]es?)/i,
    cwes: [],
  },
  {
    type: 'denial_of_service',
    text: /denial[- ]of[- ]service|\bre?dos\b|\bcrash(es|ing)?\b|resource exhaustion|infinite loop|out[- ]of[- ]memory|segmentation fault|segfault|null pointer dereference|division by zero|service disruption|cost harvesting/i,
    cwes: ['CWE-400', 'CWE-1333', 'CWE-369', 'CWE-770', 'CWE-674', 'CWE-835', 'CWE-476', 'CWE-1050'],
  },
];

/** Code execution: not an attack type of its own in the spec's vocabulary, but it sets impact and ATLAS. */
export const codeExecution = {
  text: /\b(remote |arbitrary )?code execution|\brce\b|execute (arbitrary|malicious|shell|system) (code|commands?)|arbitrary (python|os|shell) (code|commands?)|command injection|code injection|template injection|\bssti\b|reverse shell/i,
  cwes: ['CWE-94', 'CWE-95', 'CWE-77', 'CWE-78', 'CWE-1336', 'CWE-76', 'CWE-913'],
};

/** AI component from the text, most specific first; a package's default sits between. */
export const componentRules: { component: AiComponent; text: RegExp; beforePackage: boolean }[] = [
  {
    component: 'agent',
    text: /(?<!user[- ])\bagents?\b|agentic|tool (calling|invocation)|computer[- ]use|\bmcp\b|model context protocol/i,
    beforePackage: true,
  },
  { component: 'rag', text: /\brag\b|retrieval[- ]augmented|vector (store|database|db)|knowledge base|retriever/i, beforePackage: true },
  { component: 'plugin', text: /\bplug-?ins?\b|browser extension|\bskills?\b|gpt store/i, beforePackage: true },
  {
    component: 'model',
    text: /model (files?|weights|checkpoints?|loading|artifacts?)|\bcheckpoints?\b|pickle|safetensors|poisoned model|malicious model/i,
    beforePackage: false,
  },
  { component: 'inference', text: /inference (server|endpoint|api|service)|model serving|serving (endpoint|server)/i, beforePackage: false },
  { component: 'api', text: /\bapi (key|endpoint|server|access)|proxy server|rest api|inference api|chat api/i, beforePackage: false },
];

export const textSignals = {
  indirect: /indirect (prompt )?injection|injected (via|through) (a |the )?(document|web ?page|email|website|retrieved)/i,
  credentials:
    /(api keys?|credentials|secrets?|tokens?) (are |were )?(exposed|leaked|stolen|disclosed|logged)|unsecured credentials|credential (theft|harvesting|access)/i,
  toolInvocation: /tool (invocation|calling)|agent tools?|invok(e|es|ing) tools?/i,
  exploited: /exploited in the wild|actively exploited|in-the-wild|under active exploitation|known exploited/i,
  security:
    /\b(attack(s|ed|ers?)?|vulnerab\w*|exploit\w*|malicious|malware|backdoor\w*|poison\w*|adversarial|hack(s|ed|ers?|ing)?|breach\w*|flaws?|security|threats?|prompt[- ]injection|jailbreak\w*)\b/i,
  privacy: /privacy|gdpr|personal data|surveillance|facial recognition|biometric/i,
  safety: /\bsafety\b|\bharmful\b|\bunsafe\b|deepfakes?|misinformation|disinformation|self-harm|suicide|\bcsam\b/i,
  sophisticated: /sophisticated|nation[- ]state|\bapt\d*\b|advanced persistent|multi-stage|novel (technique|attack)|white-box|gradient/i,
  trivial: /\btrivial(ly)?\b|single (request|http request|prompt)|no (authentication|interaction) (is )?required|unauthenticated|publicly available exploit/i,
  remote: /\bremote(ly)?\b|unauthenticated|over the network|network[- ]reachable|internet[- ]exposed|public[- ]facing|\bhttp\b|endpoint/i,
  concreteFlaw: /\bcve-\d{4}-\d{4,}\b/i,
  systemPrompt: /(leak|extract|reveal|disclos)\w* (the |its )?system prompts?|system prompt (leak|extraction|disclosure)/i,
  misinformation: /misinformation|disinformation|hallucinat/i,
};

/** Research venues whose papers are peer reviewed. */
export const peerReviewedHosts =
  /(^|\.)(usenix\.org|acm\.org|ieee\.org|neurips\.cc|openreview\.net|aclanthology\.org|springer\.com|ndss-symposium\.org|proceedings\.mlr\.press|aaai\.org)$/i;
export const preprintHosts = /(^|\.)(arxiv\.org|ssrn\.com|biorxiv\.org)$/i;
