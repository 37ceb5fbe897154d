# Builds data/distant/*.json: extra training text for the relevance model by distant supervision
# (see data/distant/README.md). Each advisory's label comes from one mechanical test that is
# independent of the labelled examples: whether its package is in the project's registry lists
# (data/catalogue/registry-pypi.txt: the PyPI summary uses AI/ML vocabulary; registry-github.txt:
# a curated AI/ML list names the Go module's repository). No advisory is read to label it.
#   python3 scripts/distant-training.py pypa <git dir of a pypa/advisory-database snapshot> [commit]
#   python3 scripts/distant-training.py go <git dir of a golang/vulndb snapshot> [commit]
# Deterministic: same snapshot, same registry lists, same output.
import glob, hashlib, json, re, subprocess, sys

import yaml

source, git_dir = sys.argv[1], sys.argv[2]
commit = sys.argv[3] if len(sys.argv) > 3 else 'HEAD'

# Per-package caps keep one project (TensorFlow has hundreds of advisories, repeated for
# tensorflow-cpu and tensorflow-gpu; Ollama dozens) from becoming the model's idea of "AI
# software", and one general package from filling the other class.
per_relevant_package = 6
per_other_package = 2

pypi_registry = {line.strip() for line in open('data/catalogue/registry-pypi.txt') if line.strip()}
github_registry = {line.strip() for line in open('data/catalogue/registry-github.txt') if line.strip()}


def timestamp(value):
    # YAML reads unquoted timestamps as datetimes; OSV wants RFC 3339 text.
    return f'{value.year:04d}-{value.strftime("%m-%dT%H:%M:%S")}Z' if hasattr(value, 'strftime') else str(value)


def git(*args, data=None):
    return subprocess.run(['git', f'--git-dir={git_dir}', *args], input=data, capture_output=True, check=True).stdout


def blobs(resolved, folder, suffix):
    """Every file under folder at the commit, as (path, bytes), in one git process."""
    paths = [p for p in git('ls-tree', '-r', '--name-only', resolved, folder).decode().split('\n') if p.endswith(suffix)]
    out = git('cat-file', '--batch', data=''.join(f'{resolved}:{p}\n' for p in paths).encode())
    offset = 0
    for path in paths:
        header_end = out.index(b'\n', offset)
        size = int(out[offset:header_end].split()[2])
        yield path, out[header_end + 1 : header_end + 1 + size]
        offset = header_end + 1 + size + 1


def project_ids():
    """GHSA, CVE and other ids the project already trains or evaluates on: never repeated here."""
    ids = set()
    for path in glob.glob('data/relevance/*/*.json') + glob.glob('data/advisories/*.json'):
        body = json.load(open(path))
        records = body if isinstance(body, list) else body.get('items', [body])
        for record in records:
            if isinstance(record, dict):
                ids.add(record.get('id', ''))
                ids.update(record.get('aliases') or [])
    return ids


def github_repo(module):
    found = re.match(r'github\.com/([^/]+)/([^/]+)', module)
    return f'{found[1].lower()}/{found[2].lower()}' if found else None


resolved = git('rev-parse', commit).decode().strip()
records = []  # (package key, relevant, osv body)
if source == 'pypa':
    for path, raw in blobs(resolved, 'vulns/', '.yaml'):
        body = yaml.safe_load(raw)
        body['modified'] = timestamp(body['modified'])
        body['published'] = timestamp(body.get('published', body['modified']))
        package = path.split('/')[1]
        records.append((package, re.sub(r'[-_.]+', '-', package.lower()) in pypi_registry, body))
    notice = ('pypa/advisory-database (Python Packaging Advisory Database), https://github.com/pypa/advisory-database',
              'CC-BY-4.0. Attribution: "Python Packaging Advisory Database, https://github.com/pypa/advisory-database, CC-BY-4.0". Keep this notice with the file.',
              'relevant = the package is in data/catalogue/registry-pypi.txt')
elif source == 'go':
    # The Go database leaves modified/published as placeholders (year 1); the snapshot's date stands in.
    date = git('show', '-s', '--format=%cI', resolved).decode().strip()[:10] + 'T00:00:00Z'
    for path, raw in blobs(resolved, 'data/osv/', '.json'):
        body = json.loads(raw)
        body['modified'] = body['published'] = date
        modules = [a['package']['name'] for a in body.get('affected', []) if a.get('package')]
        if not modules:
            continue
        records.append((modules[0].lower(), any(github_repo(m) in github_registry for m in modules), body))
    notice = ('golang/vulndb (Go vulnerability database, data/osv), https://github.com/golang/vulndb',
              'CC-BY-4.0 (data/LICENSE of that repository). Attribution: "Go Vulnerability Database, https://github.com/golang/vulndb, CC-BY-4.0". Keep this notice with the file.',
              'relevant = a module repository is in data/catalogue/registry-github.txt')
else:
    sys.exit(f'unknown source {source}')

known = project_ids()
seen_text = set()
by_package = {}
for package, relevant, body in sorted(records, key=lambda r: (r[0], r[2]['id'])):
    # Withdrawn advisories, ones without text and ones with placeholder dates are not usable.
    if body.get('withdrawn') or not body.get('details') or not body['modified'].startswith(('19', '20')):
        continue
    text = re.sub(r'\s+', ' ', body['details']).strip().lower()
    digest = hashlib.sha256(text.encode()).hexdigest()
    # The same CVE text appears under tensorflow, tensorflow-cpu and tensorflow-gpu: keep it once.
    if ({body['id'], *(body.get('aliases') or [])} & known) or digest in seen_text:
        continue
    seen_text.add(digest)
    by_package.setdefault(package, []).append((relevant, body))

# Negatives are matched to positives by kind of bug: ML libraries have many deserialisation and
# code-execution advisories, and a random sample of other advisories would teach the model that
# "untrusted data" means AI. Each relevant advisory brings `matched` others of the same kind, from
# different packages, so within a kind only the software's own words tell the classes apart.
kinds = [
    ('deserialisation', r'deseriali|pickle|unpickl|yaml\.load|marshal'),
    ('code execution', r'arbitrary code|code execution|remote code|\beval\b|\bexec\b|code injection'),
    ('command injection', r'command injection|os command|shell'),
    ('path traversal', r'path traversal|directory traversal|\.\./|arbitrary file'),
    ('ssrf', r'ssrf|server-side request'),
    ('xss', r'xss|cross-site scripting'),
    ('sql injection', r'sql injection'),
    ('memory and crash', r'denial of service|\bdos\b|crash|out of memory|infinite loop|segfault|null pointer|overflow|out-of-bounds|check fail|assert'),
    ('access control', r'authenticat|authori[sz]|access control|permission|privilege'),
]
matched = 4


def kind(body):
    text = f"{body.get('summary', '')} {body['details']}".lower()
    return next((name for name, pattern in kinds if re.search(pattern, text)), 'other')


def hashed(rb):
    return hashlib.sha256(rb[1]['id'].encode()).hexdigest()


chosen = []
wanted = {}
for package in sorted(by_package):
    if by_package[package][0][0]:
        # A fixed pseudo-random choice (hash of the id) rather than each package's oldest advisories.
        for rb in sorted(by_package[package], key=hashed)[:per_relevant_package]:
            chosen.append(rb)
            wanted[kind(rb[1])] = wanted.get(kind(rb[1]), 0) + matched
pool = {}
for package in sorted(by_package):
    if not by_package[package][0][0]:
        for rb in sorted(by_package[package], key=hashed)[:per_other_package]:
            pool.setdefault(kind(rb[1]), []).append(rb)
for name in sorted(wanted):
    chosen += sorted(pool.get(name, []), key=hashed)[: wanted[name]]

out = []
for relevant, body in sorted(chosen, key=lambda rb: rb[1]['id']):
    out.append({
        'relevant': relevant,
        'osv': {
            'schema_version': '1.6.0',
            'id': body['id'],
            'modified': body['modified'],
            'published': body['published'],
            'aliases': body.get('aliases') or [],
            'summary': body.get('summary', ''),
            'details': body['details'].strip(),
            'affected': [{'package': {'ecosystem': a['package']['ecosystem'], 'name': a['package']['name']}} for a in body.get('affected', []) if a.get('package')],
            'references': [{'type': r.get('type', 'WEB'), 'url': r['url']} for r in body.get('references', []) if r.get('url')],
        },
    })

name = {'pypa': 'pypa-advisories', 'go': 'go-vulndb'}[source]
document = {
    'source': notice[0],
    'licence': notice[1],
    'commit': resolved,
    'label': f'{notice[2]} (distant supervision, not a human label)',
    'caps': {'perRelevantPackage': per_relevant_package, 'perOtherPackage': per_other_package, 'matchedPerRelevant': matched},
    'records': out,
}
with open(f'data/distant/{name}.json', 'w') as f:
    json.dump(document, f, indent=1, ensure_ascii=False)
    f.write('\n')
print(f"{name}: {sum(r['relevant'] for r in out)} relevant, {sum(not r['relevant'] for r in out)} other, from {len(by_package)} packages")
