# Regenerates the mechanically derived lists in data/catalogue/ (see its README):
#   registry-pypi.txt, registry-npm.txt from tab-separated registry snapshots (name, version, ..., summary):
#     python3 scripts/registry-catalogue.py pypi.tsv npm.tsv
#   registry-github.txt from the READMEs of well-known curated lists (data/catalogue/README.md names
#   them, in this order; `general:` before a list of software of every kind, `whole:` before a list
#   whose subject is AI software):
#     python3 scripts/registry-catalogue.py --lists README.md [general:README.md ...] [whole:README.md ...]
import re, sys

# One pattern for the snapshot lists here and the service's own registry lookups (src/registry).
vocabulary = re.compile(open('data/catalogue/registry-vocabulary.txt').read().strip(), re.I)

# General-purpose software that a list names for an AI use it serves (data stores with vector
# search, data orchestrators, a tweet-text utility under an NLP heading, an editor as MCP client,
# game AI and a data library under an "Artificial Intelligence" or "Machine Learning and Data
# Science" heading, a list): its advisories are about the general product, so the list must not
# speak for it.
general = {'zed-industries/zed', 'recastnavigation/recastnavigation', 'aigamedev/btsk', 'fsprojects/fsharp.data', 'vinta/awesome-python', 'redis/redis', 'paradedb/paradedb', 'geldata/gel', 'risingwavelabs/risingwave', 'dagster-io/dagster', 'twitter/twitter-text'}


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
    the same test as a registry summary, applied to what the list says of the project. A README
    given as `whole:README.md` is a list whose subject is AI software (MCP servers, LLM apps): every
    repository that one of its list items names first counts, except links into a folder of a bigger repository
    (an MCP server inside a vendor's SDK monorepo). One given as `general:README.md` lists software
    of every kind (awesome-go): only its section headings are tested ("Machine Learning"), since its
    lines' words are marketing ("AI-friendly boilerplate", "embedding migrations")."""
    repos = set()
    for path in readmes:
        kind, _, file = path.rpartition(':')
        heading = ''
        for line in open(file, encoding='utf8'):
            found = re.match(r'^#+\s+(.*)', line)
            if found:
                heading = found.group(1)
                continue
            item = re.match(r'^\s*([-*+]|\d+\.|\|)\s', line)
            # "Resource Embedding" in a general list is about files compiled into a program.
            topic = re.sub(r'\bembedd?ing\b', ' ', heading, flags=re.I) if kind == 'general' else heading
            if not ((kind == 'whole' and item) or vocabulary.search(topic) or (kind != 'general' and vocabulary.search(line))):
                continue
            links = re.findall(r'github\.com/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)(/(?:tree|blob)/)?', line)
            # A whole list's item names its project first; later links are what it works with (Zed, APISIX).
            for owner, name, folder in links[:1] if kind == 'whole' else links:
                if kind == 'whole' and folder:
                    continue
                repos.add(f'{owner.lower()}/{re.sub(r"[.]git$", "", name.lower())}')
    repos -= general
    open('data/catalogue/registry-github.txt', 'w').write('\n'.join(sorted(repos)) + '\n')


if sys.argv[1] == '--lists':
    lists(sys.argv[2:])
else:
    registry(sys.argv[1], sys.argv[2])
