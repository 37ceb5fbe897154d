# Regenerates data/catalogue/registry-*.txt from tab-separated registry snapshots
# (name, version, ..., summary): python3 scripts/registry-catalogue.py pypi.tsv npm.tsv
import re, sys

vocabulary = re.compile(r"\b(llms?|large language models?|language models?|machine[- ]learning|deep[- ]learning|neural[- ]net(work)?s?|artificial intelligence|generative ai|gen ?ai|ai|ml|nlp|natural language processing|transformer models?|embeddings?|vector (databases?|search|stores?)|chatbots?|chat ?gpt|gpt-?[345]o?|openai|langchain|llama ?index|mlops|federated learning|computer vision|reinforcement learning|text-to-speech|speech recognition|stable diffusion|diffusion models?|hugging ?face|rag|retrieval[- ]augmented|ai agents?|agentic|model context protocol|mcp server|inference (server|engine)|model serving|pytorch|tensorflow|keras|onnx|jupyter\w*)\b", re.I)

for path, name, column in [(sys.argv[1], 'pypi', 4), (sys.argv[2], 'npm', 3)]:
    names = set()
    for line in open(path):
        parts = line.rstrip('\n').split('\t')
        if len(parts) > column and vocabulary.search(parts[column]):
            names.add(re.sub(r'[-_.]+', '-', parts[0].lower()) if name == 'pypi' else parts[0].lower())
    open(f'data/catalogue/registry-{name}.txt', 'w').write('\n'.join(sorted(names)) + '\n')
