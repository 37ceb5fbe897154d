# Regenerates the mechanically derived lists in data/catalogue/ (see its README):
#   registry-pypi.txt, registry-npm.txt from tab-separated registry snapshots (name, version, ..., summary):
#     python3 scripts/registry-catalogue.py pypi.tsv npm.tsv
#   registry-github.txt from the READMEs of well-known curated lists of AI/ML software:
#     python3 scripts/registry-catalogue.py --lists README.md [README.md ...]
import re, sys

vocabulary = re.compile(r"\b(llms?|large language models?|language models?|machine[- ]learning|deep[- ]learning|neural[- ]net(work)?s?|artificial intelligence|generative ai|gen ?ai|ai|ml|nlp|natural language processing|transformer models?|embeddings?|vector (databases?|search|stores?)|chatbots?|chat ?gpt|gpt-?[345]o?|openai|langchain|llama ?index|mlops|federated learning|computer vision|reinforcement learning|text-to-speech|speech recognition|stable diffusion|diffusion models?|hugging ?face|rag|retrieval[- ]augmented|ai agents?|agentic|model context protocol|mcp server|inference (server|engine)|model serving|pytorch|tensorflow|keras|onnx|jupyter\w*)\b", re.I)

# General-purpose software that a list names for an AI use it serves (data stores with vector
# search, data orchestrators, a tweet-text utility under an NLP heading): its advisories are about
# the general product, so the list must not speak for it.
general = {'redis/redis', 'paradedb/paradedb', 'geldata/gel', 'risingwavelabs/risingwave', 'dagster-io/dagster', 'twitter/twitter-text'}


def registry(pypi, npm):
    for path, name, column in [(pypi, 'pypi', 4), (npm, 'npm', 3)]:
        names = set()
        for line in open(path):
            parts = line.rstrip('\n').split('\t')
            if len(parts) > column and vocabulary.search(parts[column]):
                names.add(re.sub(r'[-_.]+', '-', parts[0].lower()) if name == 'pypi' else parts[0].lower())
        open(f'data/catalogue/registry-{name}.txt', 'w').write('\n'.join(sorted(names)) + '\n')


def lists(readmes):
    """A GitHub repository listed under a heading, or on a line, that uses the vocabulary above:
    the same test as a registry summary, applied to what the list says of the project."""
    repos = set()
    for path in readmes:
        heading = ''
        for line in open(path, encoding='utf8'):
            found = re.match(r'^#+\s+(.*)', line)
            if found:
                heading = found.group(1)
                continue
            if not (vocabulary.search(heading) or vocabulary.search(line)):
                continue
            for owner, name in re.findall(r'github\.com/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)', line):
                repos.add(f'{owner.lower()}/{re.sub(r"[.]git$", "", name.lower())}')
    repos -= general
    open('data/catalogue/registry-github.txt', 'w').write('\n'.join(sorted(repos)) + '\n')


if sys.argv[1] == '--lists':
    lists(sys.argv[2:])
else:
    registry(sys.argv[1], sys.argv[2])
