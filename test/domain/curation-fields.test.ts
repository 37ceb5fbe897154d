// Fields decided from an item alone (severity, exploitMaturity), classified by the service's own
// classifier on real sample records; no database is needed to judge one item.
import { describe, expect, it } from 'vitest';
import { extractFacts } from '../../src/ingest/classifier/index.js';
import { RuleClassifier } from '../../src/ingest/classifier/rules.js';
import { summarise, summaryOf } from '../../src/ingest/classifier/text.js';
import { parseEntry } from '../../src/ingest/parse.js';
import { loadAdvisory } from '../helpers/samples.js';

const classifier = new RuleClassifier();
async function classify(record: Record<string, unknown>) {
  const parsed = parseEntry(record);
  if (!('item' in parsed)) throw new Error(parsed.message);
  const facts = extractFacts(parsed.item);
  return { facts, c: await classifier.classify(parsed.item, facts) };
}
const news = (title: string, summary: string, extra: Record<string, unknown> = {}) => ({
  title,
  summary,
  url: 'https://example.org/a',
  publishedAt: '2025-01-01',
  ...extra,
});

describe('severity', () => {
  it('follows CVSS 4.0 where the advisory has no reviewed severity; the CVSS fields keep the 3.1 vector', async () => {
    const mage = loadAdvisory('GHSA-c6mm-2g84-v4m7'); // GitHub: high; 3.1 says medium (5.9), 4.0 says high
    expect((await classify(mage)).c.severity).toBe('high');
    const { facts, c } = await classify({ ...mage, database_specific: { ...mage.database_specific, severity: undefined } });
    expect(c.severity).toBe('high');
    expect(facts.cvss).toMatchObject({ version: '3.1', band: 'medium' });
  });

  it('follows 3.1 where there is no 4.0 vector and no reviewed severity', async () => {
    const mage = loadAdvisory('GHSA-c6mm-2g84-v4m7');
    const only31 = { ...mage, database_specific: {}, severity: mage.severity.filter((s: { type: string }) => s.type === 'CVSS_V3') };
    expect((await classify(only31)).c.severity).toBe('medium');
  });

  it('gives an item describing code execution in a product a severity from its impact, not info', async () => {
    const { c } = await classify(
      news(
        'Researchers find remote code execution in a popular LLM serving framework',
        'The paper shows unauthenticated remote code execution in vLLM through a crafted request.',
        { type: 'research' },
      ),
    );
    expect(c.severity).not.toBe('info');
    expect(c.severity).not.toBe('low');
  });

  it('raises a known-exploited item to at least high', async () => {
    const litellm = loadAdvisory('GHSA-3xr8-qfvj-9p9j'); // GitHub: moderate
    const parsed = parseEntry(litellm);
    if (!('item' in parsed)) throw new Error(parsed.message);
    const item = { ...parsed.item, kevDateAdded: '2025-09-01' };
    expect((await classifier.classify(item, extractFacts(item))).severity).toBe('high');
  });
});

describe('exploitMaturity only from evidence', () => {
  it.each([
    [
      'an incident with no exploitation',
      news('Company bans staff from using chatbots', 'After an incident, the company told employees not to paste code into chatbots.', { type: 'incident' }),
      'unknown',
    ],
    [
      'a statement of exploitation in the wild',
      news('Ray AI framework flaw exploited in the wild', 'Attackers have actively exploited the flaw to take over clusters.'),
      'active',
    ],
    ['a denied statement', news('Patch for an LLM gateway flaw', 'There is no evidence that it has been exploited in the wild.'), 'unknown'],
    ['a public exploit', news('Proof-of-concept exploit released for a Jupyter flaw', 'A proof-of-concept exploit is publicly available.'), 'poc'],
    ["the source's own flag", news('LLM app flaw', 'A flaw in an LLM app.', { knownExploited: true }), 'active'],
  ])('%s', async (_name, record, maturity) => {
    expect((await classify(record)).c.exploitMaturity).toBe(maturity);
  });
});

describe('issueType of press items', () => {
  it.each([
    [
      "a vendor banning abusers' accounts is an incident",
      news('OpenAI bans ChatGPT accounts used by state hacker groups', 'The accounts used the chatbot to write malware.'),
      'incident',
    ],
    [
      // docs/curation.md: a flaw found is not an event; press reports of flaws and research are news.
      'a flaw disclosed is news',
      news(
        'Zero-click flaw in Microsoft 365 Copilot could expose sensitive data',
        'Researchers showed that attackers could exfiltrate mail through a prompt injection.',
      ),
      'news',
    ],
    [
      'a law is regulatory',
      news('Senate passes AI safety bill for frontier models', 'The bill requires safety testing of large language models.'),
      'regulatory',
    ],
  ])('%s', async (_name, record, type) => {
    expect((await classify(record)).c.issueType).toBe(type);
  });
});

describe('attackType', () => {
  const arxiv = (title: string, summary: string) => news(title, summary, { url: 'https://arxiv.org/abs/2501.00001', sourceHints: { issueType: 'research' } });
  it.each([
    [
      'a backdoor in a model, with its ATLAS techniques',
      arxiv('Stealthy Backdoor Attacks on Vision Transformers', 'We implant a backdoor in vision transformers that activates on a hidden trigger.'),
      ['backdoor'],
      ['AML.T0018.000', 'AML.T0043.004'],
    ],
    [
      'adversarial examples',
      arxiv(
        'Transferable Adversarial Examples for Object Detectors',
        'We craft adversarial perturbations that make deep neural network detectors miss objects.',
      ),
      ['adversarial_examples'],
      ['AML.T0015', 'AML.T0043'],
    ],
    [
      'poisoned training data',
      arxiv(
        'Clean-Label Data Poisoning of Image Classifiers',
        'An attacker who adds a few poisoned samples to the training set controls the deep learning model.',
      ),
      ['data_poisoning'],
      ['AML.T0020'],
    ],
    [
      'a stolen model',
      arxiv('Model Stealing Attacks on Machine Learning APIs', 'We show that an adversary can steal the victim model by querying its prediction API.'),
      ['model_extraction'],
      ['AML.T0024.002'],
    ],
    [
      'an attack of no named type',
      arxiv('Side-Channel Attacks on Machine Learning Accelerators', 'We show an attack that recovers the architecture of a neural network from power traces.'),
      ['other'],
      [],
    ],
  ])('%s', async (_name, record, types, atlas) => {
    const { c } = await classify(record);
    expect(c.relevant).toBe(true);
    expect(c.attackType).toEqual(types);
    for (const id of atlas) expect(c.atlasIds).toContain(id);
  });

  it('is empty for a regulation, which describes no attack', async () => {
    const { c } = await classify(
      news('EU AI Act: rules for high-risk AI systems take effect', 'The regulation sets security and risk management duties for providers of AI systems.', {
        type: 'regulatory',
      }),
    );
    expect(c.attackType).toEqual([]);
  });
});

describe('summaries', () => {
  // Each first sentence holds a full stop that ends nothing; the summary must be that sentence
  // whole, from the text's first character, with every figure as written.
  it.each([
    ['a version followed by a full stop', 'The flaw is fixed in protobuf 4.25. Earlier releases stay exposed.'],
    ['a three-part version', 'Versions before 0.0.21 of the LLM gateway let anyone read its keys. Upgrade now.'],
    ['e.g.', 'Agents that call tools, e.g. a shell, run whatever the model asks. Restrict them.'],
    ['a domain name', 'A breach at ID.me exposed selfies used for face matching. The company said little.'],
    ['a file name', 'A heap overflow in dlpack.cc lets a crafted tensor corrupt memory. Upgrade TensorFlow.'],
    ['an amount', "Scammers cloned a director's voice and took $3.4 million in payments. Police arrested two."],
    ['an initialism', 'The U.S. Commerce Department asked AI labs to report red-team results. The rule starts in 2025.'],
  ])('%s', (_name, text) => {
    const first = text.slice(0, text.lastIndexOf('. ', text.length - 3) + 1);
    expect(summarise(text, first.length + 5)).toBe(first);
    expect(summarise(text, text.length - 1)).toBe(first);
  });

  it("leave out GitHub's template prompts", async () => {
    const { c } = await classify(loadAdvisory('GHSA-c7vm-f5p4-8fqh'));
    expect(c.summary).not.toMatch(/What kind of vulnerability|Who is impacted/);
    expect(c.summary).toMatch(/Open redirect vulnerability - a maliciously crafted link/);
  });

  it("start with the source's first sentence, whole, for a feed entry longer than a summary", async () => {
    const long = `${'Researchers showed that a prompt injection in version 0.0.21 of the agent leaks e.g. API keys. '.repeat(20)}`;
    const parsed = parseEntry(news('Agent leaks keys', long));
    if (!('item' in parsed)) throw new Error(parsed.message);
    const summary = summaryOf(parsed.item);
    expect(long.startsWith(summary)).toBe(true);
    expect(summary.endsWith('keys.')).toBe(true);
  });
});

describe('headlines', () => {
  it('keep what the title says and add the CVE ("Local file inclusion in gradio")', async () => {
    const { c } = await classify(loadAdvisory('GHSA-6v6g-j5fq-hpvw'));
    expect(c.headline).toBe('Local file inclusion in gradio (CVE-2024-4941)');
  });

  it('name the package when the title does not, and the weakness only when the title names no problem', async () => {
    const gradio = loadAdvisory('GHSA-3x5j-9vwr-8rr5');
    expect((await classify(gradio)).c.headline).toBe('gradio: Update share links to use FRP instead of SSH tunneling (CVE-2023-25823)');
    expect((await classify({ ...gradio, summary: 'gradio vulnerability' })).c.headline).toBe('gradio: Use of Hard-coded Credentials (CVE-2023-25823)');
  });
});
