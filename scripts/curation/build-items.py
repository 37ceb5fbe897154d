#!/usr/bin/env python3
"""Rebuilds data/labelled-items/items.json from local git mirrors of public repositories.

    python3 scripts/curation/build-items.py <mirrors-dir>
    python3 scripts/curation/build-items.py --relabel    (items.json as it stands: see relabel())

<mirrors-dir> holds bare clones named owner+name/repo (see data/labelled-items/README.md for the
repositories, their licences and the commits read). Deterministic: the same mirrors give the same
file. arXiv labels come from the written policy (docs/curation.md) applied by the rubric in
labels.py, then the hand decisions in overrides.json; press labels from reading (apply-readings.py,
run after a rebuild); never from the service's classifier.
"""
import hashlib, html, json, re, subprocess, sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from labels import fields, judge  # noqa: E402

MIRRORS = Path(sys.argv[1] if len(sys.argv) > 1 else '/work/.mirror')
OUT = Path(__file__).resolve().parents[2] / 'data' / 'labelled-items'


def git(repo, *args):
    return subprocess.run(['git', '-C', str(MIRRORS / repo / 'repo'), *args], capture_output=True, text=True, check=True).stdout


def blobs(repo, wanted):
    """Every distinct blob of the paths `wanted(path)` accepts, over the whole history, oldest commit first."""
    seen = set()
    for line in reversed(git(repo, 'log', '--format=%H %ad', '--date=short').split('\n')):
        if not line:
            continue
        commit, day = line.split()
        if day.startswith('2023'):
            # Feed captures from 2023 are reserved for an independent check.
            continue
        for entry in git(repo, 'ls-tree', '-r', commit).split('\n'):
            if '\t' not in entry:
                continue
            meta, path = entry.split('\t', 1)
            blob = meta.split()[2]
            if blob in seen or not wanted(path):
                continue
            seen.add(blob)
            yield day, path, git(repo, 'cat-file', '-p', blob)


def first_sentence(text):
    text = re.sub(r'\s+', ' ', text).strip()
    m = re.search(r'(?<=[a-z0-9\)][.!?])\s+(?=[A-Z])', text)
    return text[: m.start()] if m else text


def reserved_arxiv(aid):
    # arXiv listings of January and February 2026 are kept for an independent check.
    return aid.startswith('2601.') or aid.startswith('2602.')


def pick(items, n, salt):
    """A deterministic sample of n items (by a hash of their link), in a stable order."""
    ranked = sorted(items, key=lambda it: hashlib.sha256((salt + it['link']).encode()).hexdigest())
    return ranked[:n]


def adversarial_papers():
    repo = 'shenyizg+NewAdversarialAttackPaper'
    papers = {}
    for day, path, text in blobs(repo, lambda p: p in ('README.md', 'README_LLM.md')):
        if day >= '2026-01-01':
            continue
        for block in re.split(r'\n## \*\*\d+\. ', text)[1:]:
            link = re.search(r'\[abs\]\(https?://arxiv\.org/abs/([0-9.]+)(v\d+)?\)', block)
            abstract = re.search(r'\*\*Abstract\*\*:\s*(.+?)(\n\n|$)', block, re.S)
            submitted = re.search(r'\*\*SubmitDate\*\*:\s*([0-9-]+)', block)
            if not link or not abstract or reserved_arxiv(link.group(1)) or link.group(1) in papers:
                continue
            if (submitted.group(1) if submitted else day).startswith('2023'):
                continue
            feed = 'arxiv-adversarial-llm' if path == 'README_LLM.md' else 'arxiv-adversarial'
            papers[link.group(1)] = {
                'source': feed,
                'origin': f'github.com/{repo.replace("+", "/")}/{path}',
                'licence': 'CC0-1.0 (arXiv metadata)',
                'link': f'https://arxiv.org/abs/{link.group(1)}',
                'title': re.sub(r'\s+', ' ', block.split('**')[0]).strip(),
                'summary': re.sub(r'\s+', ' ', abstract.group(1)).strip(),
                'publishedAt': submitted.group(1) if submitted else day,
                'kind': 'research',
            }
    return list(papers.values())


def daily_scroll_papers():
    repo = 'a1henu+arxiv-daily-scroll'
    papers = {}
    for day, path, text in blobs(repo, lambda p: re.fullmatch(r'data/\d{4}-\d{2}-\d{2}/arxiv(_[0-9-]+)?\.json', p) is not None):
        listed = path.split('/')[1]
        if listed.startswith('2026-01') or listed.startswith('2026-02'):
            continue
        for p in json.loads(text).get('papers', []):
            aid = re.sub(r'v\d+$', '', p['arxiv_id'])
            if reserved_arxiv(aid) or aid in papers:
                continue
            papers[aid] = {
                'source': 'arxiv-daily-scroll',
                'origin': f'github.com/a1henu/arxiv-daily-scroll/{path}',
                'licence': 'CC0-1.0 (arXiv metadata)',
                'link': f'https://arxiv.org/abs/{aid}',
                'title': re.sub(r'\s+', ' ', p['title']).strip(),
                'summary': re.sub(r'\s+', ' ', p['summary']).strip(),
                'publishedAt': listed,
                'kind': 'research',
            }
    return list(papers.values())


TABLE_ROW = re.compile(r'^\|\*\*(\d{4}-\d{2}-\d{2})\*\*\|\*\*(.+?)\*\*\|.*?\[(\d{4}\.\d{4,5})[^\]]*\]\(', re.M)


def title_listings(repo, feed, wanted, section=None):
    papers = {}
    for day, path, text in blobs(repo, wanted):
        if section:
            parts = re.split(r'\n#+ ', text)
            text = '\n'.join(p for p in parts if p.startswith(section))
        for date, title, aid in TABLE_ROW.findall(text):
            if reserved_arxiv(aid) or aid in papers or date.startswith('2023'):
                continue
            papers[aid] = {
                'source': feed,
                'origin': f'github.com/{repo.replace("+", "/")}/{path}',
                'licence': 'CC0-1.0 (arXiv metadata)',
                'link': f'https://arxiv.org/abs/{aid}',
                'title': re.sub(r'\s+', ' ', title).strip(),
                'summary': '',
                'publishedAt': date,
                'kind': 'research',
            }
    return list(papers.values())


def tracker_news():
    repo = 'delldevmann+cybersecurity-news-tracker'
    items = {}
    for day, path, text in blobs(repo, lambda p: p == 'README.md'):
        for section in re.split(r'<h2 id="', text)[1:]:
            for publisher, date, link, title in re.findall(r'<tr>\s*<td><strong>(.*?)</strong>\s*(.*?)</td>\s*<td><a href="(.*?)">(.*?)</a></td>', section, re.S):
                title = html.unescape(title).strip()
                if title.lower() in items or date.strip().endswith('2023'):
                    continue
                items[title.lower()] = {
                    'source': f'news:{html.unescape(publisher).strip()}',
                    'origin': f'github.com/delldevmann/cybersecurity-news-tracker/README.md ({day})',
                    'licence': 'title and link only (headline belongs to its publisher); list MIT',
                    'link': html.unescape(link),
                    'title': title,
                    'summary': '',
                    'publishedAt': day,
                    'kind': 'news',
                }
    return list(items.values())


def ridehome_news():
    repo = 'pberry+ridehome'
    items = {}
    for year in ('2024', '2025'):
        text = git(repo, 'show', f'HEAD:docs/all-links-{year}.md')
        day = None
        for line in text.split('\n'):
            heading = re.match(r'\*\*\w+, (\w+ \d+ \d{4})', line)
            if heading:
                day = heading.group(1)
            m = re.match(r'\s+\* \[(.+?)\]\((https?://[^)\s]+)\) \((.+?)\)\s*$', line)
            if not m or not day:
                continue
            title, link, publisher = html.unescape(m.group(1)), m.group(2), m.group(3)
            if title.lower() in items:
                continue
            items[title.lower()] = {
                'source': f'news:{publisher}',
                'origin': f'github.com/pberry/ridehome/docs/all-links-{year}.md',
                'licence': 'title and link only (headline belongs to its publisher); list MIT',
                'link': link,
                'title': title,
                'summary': '',
                'publishedAt': day,
                'kind': 'news',
            }
    return list(items.values())


FIELDS = ('issueType', 'labels', 'attackType', 'exploitMaturity')


def apply_override(item, verdict, override):
    """A hand decision: relevance, group or kind (and why); the expected fields follow from them."""
    verdict = {k: v for k, v in {**verdict, **override}.items() if k not in FIELDS and k != 'reason'}
    if verdict['relevant']:
        verdict.update(fields(item, verdict['kind']))
    return verdict


def main():
    from datetime import datetime

    raw = {
        'adversarial': adversarial_papers(),
        'scroll': daily_scroll_papers(),
        'security-titles': title_listings('regainer27+cv-arxiv-daily', 'arxiv-security-keyword', lambda p: p.startswith('archives/2025/') or p.startswith('archives/2026/0') and not p.startswith('archives/2026/01') and not p.startswith('archives/2026/02'), section='Security'),
        'llm-titles': title_listings('Sanzo00+daily-paper', 'arxiv-llm-systems', lambda p: p == 'docs/llm.md'),
        'tracker': tracker_news(),
        'ridehome': ridehome_news(),
    }
    overrides = json.loads((Path(__file__).parent / 'overrides.json').read_text())
    judged = {}
    for name, items in raw.items():
        out = []
        for it in items:
            out.append({**it, **judge(it)})
        judged[name] = out

    def split(name):
        pos = [i for i in judged[name] if i['relevant']]
        neg = [i for i in judged[name] if not i['relevant']]
        hard = [i for i in neg if i['group'] != 'unrelated']
        easy = [i for i in neg if i['group'] == 'unrelated']
        return pos, hard, easy

    chosen = []
    quota = {
        # name: (positives, hard negatives, other negatives)
        'adversarial': (800, 200, 0),
        'scroll': (40, 250, 160),
        'security-titles': (120, 160, 80),
        'llm-titles': (20, 150, 0),
        'tracker': (400, 250, 150),
        'ridehome': (200, 300, 150),
    }
    for name, (np_, nh, ne) in quota.items():
        pos, hard, easy = split(name)
        chosen += pick(pos, np_, name + '+') + pick(hard, nh, name + '-') + pick(easy, ne, name + '0')

    def iso(d):
        for fmt in ('%Y-%m-%d', '%B %d %Y', '%b %d %Y'):
            try:
                return datetime.strptime(d, fmt).strftime('%Y-%m-%d')
            except ValueError:
                pass
        return d

    # Hand decisions apply after the sample is drawn, so a decision never changes which items are in it.
    for i, it in enumerate(chosen):
        if it['link'] in overrides:
            raw = {k: v for k, v in it.items() if k in ('source', 'origin', 'licence', 'link', 'title', 'summary', 'publishedAt')}
            raw['kind'] = 'research' if it['source'].startswith('arxiv-') else 'news'
            chosen[i] = {**raw, **apply_override(raw, judge(raw), overrides[it['link']])}
    for it in chosen:
        it['publishedAt'] = iso(it['publishedAt'])
        it['summary'] = first_sentence(it['summary']) if it['kind'] == 'news' else it['summary']
    chosen.sort(key=lambda it: (it['source'], it['link']))
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / 'items.json').write_text(json.dumps(chosen, indent=1, ensure_ascii=False) + '\n')
    pos = sum(1 for i in chosen if i['relevant'])
    print(f'{len(chosen)} items, {pos} in scope; now run apply-readings.py: press labels come from reading', file=sys.stderr)


def relabel():
    """Re-applies overrides.json and the rubric's fields to items.json as it stands, for a change of
    the rubric's fields or a new hand decision when the mirrors are not at hand: what a full rebuild
    gives, for the arXiv items. Press items are left alone: their labels come from reading
    (apply-readings.py), not from the rubric."""
    overrides = json.loads((Path(__file__).parent / 'overrides.json').read_text())
    items = json.loads((OUT / 'items.json').read_text())
    for i, it in enumerate(items):
        if not it['source'].startswith('arxiv-'):
            continue
        raw = {k: v for k, v in it.items() if k in ('source', 'origin', 'licence', 'link', 'title', 'summary', 'publishedAt')}
        if it['link'] in overrides:
            raw['kind'] = 'research' if it['source'].startswith('arxiv-') else 'news'
            items[i] = {**raw, **apply_override(raw, judge(raw), overrides[it['link']])}
        elif it['relevant'] and it['kind'] == 'research':
            it.update(fields(raw, it['kind']))
        elif it['relevant']:
            it['attackType'] = fields(raw, it['kind'])['attackType']
    (OUT / 'items.json').write_text(json.dumps(items, indent=1, ensure_ascii=False) + '\n')
    print(f'{len(items)} items, {sum(1 for i in items if i["relevant"])} in scope', file=sys.stderr)


if __name__ == '__main__':
    relabel() if sys.argv[1:] == ['--relabel'] else main()
