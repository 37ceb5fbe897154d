"""Third round of press candidates for reading (issue 38): AI incident and vulnerability lists (MITRE
ATLAS case studies, AVID reports, Awful AI), Simon Willison's link blog (2019-2022) and the Hacker
News daily top 30 (August 2024 - December 2025). Reads local clones (see data/labelled-items/README.md).

  python3 scripts/curation/build-press-third.py <atlas-data> <avid-db> <awful-ai> <simonwillisonblog-backup> <hackernews-daily> > scripts/curation/candidates-third.json

<atlas-data>: github.com/mitre-atlas/atlas-data; <avid-db>: github.com/avidml/avid-db; <awful-ai>:
github.com/daviddao/awful-ai; <simonwillisonblog-backup>: github.com/simonw/simonwillisonblog-backup;
<hackernews-daily>: github.com/meixger/hackernews-daily (local clones).

Which items are kept for reading (a selection, never a label):
- every dated entry of the three topical lists (ATLAS, AVID, Awful AI) that links to press or a
  vendor's report;
- from the link blog, every link whose title has a word of the AI field (AI_WORDS of
  build-press-more.py) or that the blog tagged with an AI tag (AI_TAGS), and one in four of the rest;
- from Hacker News, every story whose title has a word of the AI field, one in HN_CONCERN_ONE_IN of
  the stories with only a word of concern (CONCERN_WORDS: harm, attack, privacy, law ... broad on
  purpose), and one in HN_REST_ONE_IN of the rest (hash of the normalised link), so general AI news
  and general security stories are read as hard negatives.
Items already in data/labelled-items/items.json or scripts/curation/candidates-more.json (by
normalised link or lower-cased title) and repeats across the lists are left out; items dated 2023
(reserved) or outside 2019-2025 are not read; links to arXiv, GitHub, social networks, videos and
Hacker News itself are left out (not press). Only title, first sentence of a summary (where the
list has its own, under a licence that allows it), link, date and publisher are kept.
Output is sorted by date, then link. Labels come from reading, never from this script.
"""
import html
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import yaml

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("build_press_more", HERE / "build-press-more.py")
more = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(more)
normalise, strip_tracking, sampled, AI_WORDS, LINK_DATE = more.normalise, more.strip_tracking, more.sampled, more.AI_WORDS, more.LINK_DATE

ITEMS = HERE.parents[1] / "data" / "labelled-items" / "items.json"
SECOND_ROUND = HERE / "candidates-more.json"
YEARS = ("2019", "2020", "2021", "2022", "2024", "2025")
NOT_PRESS = re.compile(
    r"//([\w-]+\.)*(arxiv\.org|github\.com|github\.io|gitlab\.com|gist\.github\.com|togithub\.com|linkedin\.com|x\.com|twitter\.com|youtube\.com|youtu\.be|"
    r"reddit\.com|huggingface\.co|docs\.google\.com|drive\.google\.com|news\.ycombinator\.com|t\.me|mastodon\.social|bsky\.app|"
    r"facebook\.com|instagram\.com|tiktok\.com|vimeo\.com|openreview\.net|paperswithcode\.com|pypi\.org|npmjs\.com|"
    r"cve\.org|nvd\.nist\.gov|huntr\.(com|dev)|vuldb\.com|openwall\.com|lists\.[\w.-]+|atlas\.mitre\.org|incidentdatabase\.ai)(/|$)|\.pdf($|\?)",
    re.I,
)
CONCERN_WORDS = re.compile(
    r"\b(hack\w*|attack\w*|exploit\w*|vulnerab\w*|flaws?|bugs?|bug bounty|cve|leak\w*|breach\w*|expos\w*|steal\w*|stole\w*|theft|"
    r"malware|ransomware|phish\w*|scam\w*|fraud\w*|jailbr\w*|injection|inject\w*|poison\w*|backdoor\w*|privacy|private|surveil\w*|"
    r"spy\w*|spies|track\w*|deepfakes?|misinformation|disinformation|propaganda|manipulat\w*|deceiv\w*|decepti\w*|lie|lies|lying|"
    r"hallucinat\w*|fabricat\w*|fake\w*|security|secure|insecure|password\w*|credential\w*|secrets?|exfiltrat\w*|abuse\w*|misuse\w*|"
    r"weapon\w*|bioweapon\w*|sabotag\w*|blackmail\w*|rogue|delet\w*|wip(e|ed|es)|harm\w*|danger\w*|unsafe|safety|risk\w*|"
    r"suicide|self-harm|death|dies|died|kill\w*|crash\w*|injur\w*|child\w*|minors?|teens?|kids|bias\w*|racis\w*|discriminat\w*|"
    r"wrongful\w*|arrest\w*|police|polic(e|ing)|ban|bans|banned|banning|fine|fined|fines|regulat\w*|law|laws|lawsuit\w*|sue|sues|sued|"
    r"bill|act|ftc|sec|fcc|gdpr|ico|eu|europe\w*|investigat\w*|probe\w*|court|judge|senat\w*|congress|government|guidance|"
    r"copyright\w*|consent|censor\w*|sycophan\w*|alignment|misalign\w*|spam\w*|bot ?nets?|impersonat\w*|clon\w*|nude\w*|csam|"
    r"abus\w*|threat\w*|compromis\w*|sandbox\w*|guardrail\w*|red[- ]team\w*|audit\w*|outage\w*)\b",
    re.I,
)
HN_CONCERN_ONE_IN = 5
HN_REST_ONE_IN = 25
BLOG_ONE_IN = 4
AI_TAGS = {
    "ai", "machine-learning", "generative-ai", "llms", "gpt-3", "gpt-2", "openai", "deepfakes", "facial-recognition",
    "ai-ethics", "prompt-injection", "deep-learning", "neural-networks", "chatgpt", "dalle", "stable-diffusion",
    "computer-vision", "ethics", "algorithms", "self-driving", "github-copilot", "whisper", "nlp", "jailbreaking",
}


def git(clone: str, *args: str) -> str:
    return subprocess.run(["git", "-C", clone, *args], capture_output=True, text=True, check=True).stdout


def first_sentence(text: str) -> str:
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text or "")
    text = re.sub(r"<[^>]+>", "", html.unescape(text))
    text = re.sub(r"\s+", " ", text).strip()
    return re.split(r"(?<=[a-z0-9)\]\"'][.!?])\s+(?=[A-Z\"'])", text, maxsplit=1)[0][:300]


def host(link: str) -> str:
    return urlsplit(link).netloc.lower().removeprefix("www.")


def clean(title: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(title)).strip()


def link_date(link: str) -> str:
    m = LINK_DATE.search(link)
    return f"{m.group(1)}-{m.group(2)}-{m.group(3) or '01'}" if m else ""


class Seen:
    """Known links and titles: the labelled set, the second round, and what this round took already."""

    def __init__(self, rows: list):
        self.links = {normalise(r["link"]) for r in rows}
        self.titles = {r["title"].lower() for r in rows}

    def take(self, link: str, title: str) -> bool:
        key = normalise(link)
        if key in self.links or title.lower() in self.titles:
            return False
        self.links.add(key)
        self.titles.add(title.lower())
        return True


def item(source, origin, licence, link, title, summary, published) -> dict:
    return {"source": source, "origin": origin, "licence": licence, "link": link, "title": title, "summary": summary, "publishedAt": published, "kind": "news"}


ATLAS_LICENCE = "case-study name and the first sentence of its summary: Apache-2.0, Copyright 2021-2025 MITRE; the linked article belongs to its publisher"


def atlas(clone: str, seen: Seen) -> list:
    """MITRE ATLAS case studies: name, first sentence of the summary, incident date, and the first
    reference that is press or a vendor's report."""
    head = git(clone, "rev-parse", "HEAD").strip()
    out = []
    for path in sorted(git(clone, "ls-tree", "-r", "--name-only", "HEAD", "data/case-studies/").split("\n")):
        if not path.endswith(".yaml"):
            continue
        case = yaml.safe_load(git(clone, "show", f"HEAD:{path}"))
        published = str(case.get("incident-date", ""))[:10]
        links = [strip_tracking(r["url"]) for r in case.get("references") or [] if r.get("url") and not NOT_PRESS.search(r["url"])]
        if not links or published[:4] not in YEARS:
            continue
        title = clean(case["name"])
        if seen.take(links[0], title):
            out.append(item("incident:mitre-atlas", f"github.com/mitre-atlas/atlas-data/{path}@{head[:8]}", ATLAS_LICENCE, links[0], title, first_sentence(case.get("summary", "")), published))
    return out


AVID_LICENCE = "report title and the first sentence of its description: MIT, Copyright (c) 2022 AI Vulnerability Database (AVID); the linked article belongs to its publisher"
AVID_NOT_PRESS = re.compile(r"0din\.ai/disclosures|\.s3\.amazonaws\.com|nvidia\.custhelp|msrc\.microsoft|security\.snyk|xforce|access\.redhat|oracle\.com/security|wordpress\.org|cert-portal|tools\.cisco|security\.netapp|security\.gentoo|jira\.|hackerone\.com|^\.\./", re.I)


def avid(clone: str, seen: Seen) -> list:
    """AVID reports and vulnerabilities: title, first sentence of the description, the report's date
    (else the date in the link), and the first reference that is press or a vendor's write-up (not
    an advisory database, a repository or a paper)."""
    head = git(clone, "rev-parse", "HEAD").strip()
    out = []
    for path in sorted(git(clone, "ls-tree", "-r", "--name-only", "HEAD", "reports/", "vulnerabilities/").split("\n")):
        if not path.endswith(".json"):
            continue
        report = json.loads(git(clone, "show", f"HEAD:{path}"))
        links = [strip_tracking(r["url"]) for r in report.get("references") or [] if r.get("url", "").startswith("http") and not NOT_PRESS.search(r["url"]) and not AVID_NOT_PRESS.search(r["url"])]
        if not links:
            continue
        published = (report.get("reported_date") or link_date(links[0]))[:10]
        title = clean(((report.get("problemtype") or {}).get("description") or {}).get("value", ""))
        if not title or published[:4] not in YEARS or title.lower().startswith("vulnerability cve-"):
            continue
        if seen.take(links[0], title):
            out.append(item("incident:avid", f"github.com/avidml/avid-db/{path}@{head[:8]}", AVID_LICENCE, links[0], title, first_sentence((report.get("description") or {}).get("value", "")), published))
    return out


AWFUL_LICENCE = "entry summary and the first sentence of its details: CC0 1.0 (Awful AI, David Dao and contributors); the linked article belongs to its publisher"
AWFUL_ROW = re.compile(r"^\|\s*(?P<app>[^|]+?)\s*\|\s*(?P<summary>[^|]+?)\s*\|\s*(?P<details>.*?)\s*\|\s*(?P<refs>.*?)\s*\|\s*$")
MD_LINK = re.compile(r"\[[^\]]*\]\((https?://[^)\s]+)\)")


def awful(clone: str, seen: Seen) -> list:
    """Awful AI's categories of harmful uses (not its contestation sections): the entry's summary as
    title, the first sentence of its details, the first press reference, dated by that link."""
    head = git(clone, "rev-parse", "HEAD").strip()
    out = []
    keep = False
    for line in git(clone, "show", "HEAD:README.md").split("\n"):
        if line.startswith("# "):
            keep = line.strip() == "# Awful AI Categories"
            continue
        m = AWFUL_ROW.match(line)
        if not keep or not m or m.group("app") in ("Application", "-------------") or set(m.group("app")) <= set("-: "):
            continue
        for link in MD_LINK.findall(m.group("refs")):
            published = link_date(link)
            if NOT_PRESS.search(link) or published[:4] not in YEARS:
                continue
            title = clean(m.group("summary"))
            if seen.take(strip_tracking(link), title):
                details = re.sub(r"</?details>|<summary>.*?</summary>", "", m.group("details"))
                out.append(item("incident:awful-ai", f"github.com/daviddao/awful-ai/README.md@{head[:8]}", AWFUL_LICENCE, strip_tracking(link), title, first_sentence(details), published))
            break
    return out


BLOG_LICENCE = "headline and link only, as facts; the headline belongs to its publisher. List: Simon Willison's link blog (simonwillison.net), no licence stated (only headline and link kept)"


def blog(clone: str, seen: Seen) -> list:
    """Simon Willison's link blog ("blogmarks") of 2019-2022, from the last backup of the table
    before 2023 (later backups are too large to be fetched); the blog's commentary is not kept."""
    path = "simonwillisonblog/blog_blogmark.ndjson"
    commit = git(clone, "log", "-1", "--format=%H", "--before=2023-01-01", "--", path).strip()
    tag_names = {r[0]: r[1] for r in map(json.loads, git(clone, "show", "HEAD:simonwillisonblog/blog_tag.ndjson").splitlines())}
    tags = {}
    for _, mark, tag in map(json.loads, git(clone, "show", "HEAD:simonwillisonblog/blog_blogmark_tags.ndjson").splitlines()):
        tags.setdefault(mark, set()).add(tag_names.get(tag, ""))
    out = []
    for row in map(json.loads, git(clone, "show", f"{commit}:{path}").splitlines()):
        mark, link, title, published = row[0], strip_tracking(row[2] or ""), clean(row[3] or ""), (row[7] or "")[:10]
        if published[:4] not in YEARS or not link.startswith("http") or not title or NOT_PRESS.search(link):
            continue
        if not seen.take(link, title):
            continue
        if not (AI_WORDS.search(title) or tags.get(mark, set()) & AI_TAGS or sampled(link, BLOG_ONE_IN)):
            continue
        out.append(item(f"news:{host(link)}", f"github.com/simonw/simonwillisonblog-backup/{path}@{commit[:8]}", BLOG_LICENCE, link, title, "", published))
    return out


HN_LICENCE = "headline and link only, as facts; the headline belongs to its publisher. List: Hacker News Daily Top 30 (meixger/hackernews-daily), no licence stated (only headline and link kept)"
HN_ISSUE = re.compile(r"<item>.*?Top 30 @(\d{4}-\d\d-\d\d).*?</item>", re.S)
HN_STORY = re.compile(r'<li><a href="([^"]+)"><strong>(.*?)</strong>')


def hackernews(clone: str, seen: Seen) -> list:
    """Every capture of the daily top-30 feed over the repository's history, oldest first; a story
    is dated by the day of its issue."""
    out = []
    blobs = set()
    for line in reversed(git(clone, "log", "--format=%H", "--", "rss2.xml").split()):
        blob = git(clone, "rev-parse", f"{line}:rss2.xml").strip()
        if blob in blobs:
            continue
        blobs.add(blob)
        feed = git(clone, "cat-file", "-p", blob)
        for issue in re.finditer(r"<item>(.*?)</item>", feed, re.S):
            day = re.search(r"Top 30 @(\d{4}-\d\d-\d\d)", issue.group(1))
            if not day or day.group(1)[:4] not in YEARS:
                continue
            for href, title in HN_STORY.findall(issue.group(1)):
                link, title = strip_tracking(html.unescape(href)), clean(title)
                if NOT_PRESS.search(link) or re.match(r"(show|ask|tell|launch) hn\b", title, re.I) or not seen.take(link, title):
                    continue
                ai, concern = AI_WORDS.search(title), CONCERN_WORDS.search(title)
                if not (ai or (concern and sampled(link, HN_CONCERN_ONE_IN)) or sampled(link, HN_REST_ONE_IN)):
                    continue
                out.append(item(f"news:{host(link)}", f"github.com/meixger/hackernews-daily/rss2.xml ({day.group(1)})@{line[:8]}", HN_LICENCE, link, title, "", day.group(1)))
    return out


def main(argv: list) -> None:
    if len(argv) != 5:
        raise SystemExit(__doc__)
    seen = Seen(json.loads(ITEMS.read_text()) + json.loads(SECOND_ROUND.read_text()))
    # The topical lists first, so an item they share with a general list keeps the topical origin.
    out = atlas(argv[0], seen)
    out += avid(argv[1], seen)
    out += awful(argv[2], seen)
    out += blog(argv[3], seen)
    out += hackernews(argv[4], seen)
    write_candidates(out)


def write_candidates(out: list) -> None:
    """The candidates on stdout, sorted by date, then link, so that a rebuild gives the same file."""
    out.sort(key=lambda i: (i["publishedAt"], i["link"]))
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
