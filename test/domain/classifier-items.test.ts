// Text items (news, research, regulation, incidents): the labelled set keeps its promises, and the
// decision needs both kinds of evidence. Quality figures are npm run eval's (eval/README.md).
import { describe, expect, it } from 'vitest';
import { decideItem, defaultThreshold, itemExamples, pressThreshold } from '../../src/ingest/classifier/items.js';
import { defaultJudge } from '../../src/ingest/classifier/relevance.js';
import { parseEntry } from '../../src/ingest/parse.js';

const outOfScopeGroups = [
  'ai-general-news',
  'ai-for-defence',
  'ai-brand-lure',
  'llm-efficiency',
  'ai-without-security',
  'security-ai-only-a-word',
  'security-general',
];

const judge = (title: string, summary?: string, hints?: { issueType: 'research' }) => {
  const parsed = parseEntry({
    title,
    url: `https://news.example/${encodeURIComponent(title)}`,
    publishedAt: '2025-06-01',
    ...(summary ? { summary } : {}),
    ...(hints ? { sourceHints: hints } : {}),
  });
  if (!('item' in parsed)) throw new Error(parsed.message);
  return defaultJudge().decide(parsed.item, []);
};

describe('labelled items', () => {
  it('are real, sourced, from many publishers and years, with hard negatives of the out-of-scope groups, and none reserved', () => {
    const all = itemExamples().map((e) => e.labelled);
    // The press part (issue 38): 5,000 items from many publishers, every year from 2019 (bar the
    // reserved 2023), 1,500 of them in scope.
    const press = all.filter((l) => !l.source.startsWith('arxiv-'));
    expect(press.length).toBeGreaterThanOrEqual(5000);
    expect(press.filter((l) => l.relevant).length).toBeGreaterThanOrEqual(1500);
    expect(new Set(press.map((l) => l.source)).size).toBeGreaterThanOrEqual(20);
    expect(new Set(press.map((l) => l.publishedAt.slice(0, 4)))).toEqual(new Set(['2019', '2020', '2021', '2022', '2024', '2025']));
    const groups = new Set(all.filter((l) => !l.relevant).map((l) => l.group));
    for (const g of outOfScopeGroups.filter((g) => g !== 'ai-brand-lure')) expect(groups, g).toContain(g);
    for (const l of all) {
      expect(l.source && l.link && l.licence && l.kind, l.link).toBeTruthy();
      expect(l.link, 'arXiv listings of January and February 2026 are reserved').not.toMatch(/arxiv\.org\/abs\/26(01|02)\./);
      expect(l.publishedAt.startsWith('2023'), `${l.link}: 2023 captures are reserved`).toBe(false);
      if (l.relevant) expect(l.issueType, l.link).toBeDefined();
    }
  });

  it('no source is in two folds', () => {
    const foldOf = new Map<string, number>();
    for (const e of itemExamples()) {
      expect(foldOf.get(e.labelled.source) ?? e.fold, e.labelled.source).toBe(e.fold);
      foldOf.set(e.labelled.source, e.fold);
    }
  });
});

describe('a text item', () => {
  it('is served only with evidence of AI and of security, privacy or safety, and says which is missing', () => {
    const both = judge('Prompt injection in Microsoft Copilot leaks private mail to attackers');
    expect(both.relevant).toBe(true);
    expect(both.reasons.map((r) => r.kind)).toEqual(expect.arrayContaining(['concern-term', 'model']));

    const aiOnly = judge('OpenAI launches a new reasoning model for enterprise customers');
    expect(aiOnly.relevant).toBe(false);
    expect(aiOnly.reasons.find((r) => r.kind === 'missing')?.detail).toBe('nothing says the item is about security, privacy or safety');

    const securityOnly = judge('Ransomware gang leaks data stolen from a hospital chain');
    expect(securityOnly.relevant).toBe(false);
    expect(securityOnly.reasons.find((r) => r.kind === 'missing')?.detail).toBe('nothing says the item is about an AI/ML system');
  });

  it('is not served when AI is only the defender’s tool or the bait', () => {
    const lure = judge('Fake ChatGPT apps on app stores drop an infostealer on Android phones');
    expect(lure.relevant).toBe(false);
    expect(lure.reasons.map((r) => r.kind)).toContain('tool-or-bait');
    const defence = judge('Phishing detection using large language models on enterprise email');
    expect(defence.relevant).toBe(false);
    // Evading the detector is an attack on the model: in scope.
    expect(
      judge('Adversarial emails evade LLM-based phishing detection', 'Researchers craft adversarial attacks that fool a machine learning classifier.').relevant,
    ).toBe(true);
  });

  it('needs the concern to be about the AI system, not a word with another sense, business news or commentary', () => {
    // An adversary in a game is no AI system, and "safety" of a robot arm is no AI safety item.
    // Papers, as a listing's hint says (press items are judged on slopes of their own).
    const paper = { issueType: 'research' } as const;
    expect(judge('Resource allocation under adversarial attacks', 'A defender and an adversary who attacks network links play a game.', paper).relevant).toBe(
      false,
    );
    expect(
      judge('Diffusion policies for robotic manipulation', 'We exploit tactile feedback and improve safety of grasping with deep learning.', paper).relevant,
    ).toBe(false);
    const launch = judge('OpenAI unveils a faster language model for developers', 'The company says the model is cheaper, and that it ran safety evaluations.');
    expect(launch.relevant).toBe(false);
    expect(launch.reasons.map((r) => r.kind)).toContain('tool-or-bait');
    expect(judge('How to build a career in AI security').relevant).toBe(false);
    expect(judge('How generative AI is changing cybersecurity', 'Security teams adopt AI tools while attackers experiment with them.').relevant).toBe(false);
    // A concrete event in the title keeps it in scope.
    expect(judge('OpenAI unveils fix for ChatGPT flaw that leaked chat histories').relevant).toBe(true);
  });

  it('knows AI software by the names curated lists give it, but not by words that are also things of security news', () => {
    expect(judge('Critical Langflow Vulnerability Actively Exploited to Deliver Flodrix Botnet').relevant).toBe(true);
    expect(judge('ComfyUI servers exposed online leak user images').relevant).toBe(true);
    // BRUSHFIRE is malware here, though a machine-learning library of that name is on the lists.
    expect(judge('Critical Ivanti Flaw Actively Exploited to Deploy TRAILBLAZE and BRUSHFIRE Malware').relevant).toBe(false);
    expect(judge('Authorities shut down darknet market and arrest its administrators').relevant).toBe(false);
    expect(judge('Jupyter notebooks targeted by new infostealer campaign').relevant).toBe(false);
  });

  it('is served from pressThreshold when it is press, and from 0.5 when it is research, on the same calibrated probability', () => {
    expect(pressThreshold).toBeLessThan(defaultThreshold);
    const { items, catalogue } = defaultJudge();
    const title = 'Researchers show a chatbot can be tricked into revealing user data';
    for (const [hints, at] of [
      [undefined, pressThreshold],
      [{ issueType: 'research' } as const, defaultThreshold],
    ] as const) {
      const parsed = parseEntry({ title, url: 'https://news.example/chatbot', publishedAt: '2025-06-01', ...(hints ? { sourceHints: hints } : {}) });
      if (!('item' in parsed)) throw new Error(parsed.message);
      const decided = decideItem(items!, parsed.item, catalogue, []);
      expect(decided.threshold).toBe(at);
      const d = defaultJudge().decide(parsed.item, []);
      expect(d.relevant, `${d.probability}`).toBe(d.probability >= at);
    }
  });
});
