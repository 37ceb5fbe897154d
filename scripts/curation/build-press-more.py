"""More press candidates for reading (issue 38): headlines and links from Techmeme Ride Home's show
links (2019-2022, and the 2024-2025 items not yet in the labelled set), the cybersecurity news
tracker's captures not yet used, a monthly AI security newsletter and a timeline of AI agent
incidents. Reads local clones of the four repositories (see data/labelled-items/README.md).

  python3 scripts/curation/build-press-more.py <ridehome> <tracker> <newsletter> <timeline> > scripts/curation/candidates-more.json

<ridehome>: github.com/pberry/ridehome; <tracker>: github.com/delldevmann/cybersecurity-news-tracker;
<newsletter>: github.com/TalEliyahu/AI-Security-Newsletter; <timeline>:
github.com/webpro255/awesome-ai-agent-attacks (local clones).

Which items are kept for reading (a selection, never a label):
- every item of the two topical lists (newsletter, timeline) and of the tracker's "ai-security" section;
- every item whose title has a word of the AI field (AI_WORDS, broad on purpose);
- a fixed sample of the rest by a hash of the normalised link: for Ride Home one in three for
  2019-2022 and one in four for 2024-2025 (SAMPLE_ONE_IN), for the tracker one in four, so items
  without those words are read too.
Items already in data/labelled-items/items.json (by normalised link or by title) and repeats within
the lists are left out; 2023 (reserved for an independent check) and 2026 (outside 2019-2025) are
not read. Only the title, link, date and publisher are kept (and, for the MIT timeline, the first
sentence of an entry's impact line).
Output is sorted by date, then link. Labels come from reading, never from this script.
"""
import hashlib
import html
import json
import re
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

ITEMS = Path(__file__).resolve().parents[2] / "data" / "labelled-items" / "items.json"
YEARS = ("2019", "2020", "2021", "2022", "2024", "2025")
SAMPLE_ONE_IN = {"2019": 3, "2020": 3, "2021": 3, "2022": 3, "2024": 4, "2025": 4}
LICENCE = "headline and link only, as facts; the headline belongs to its publisher. List: MIT, Copyright (c) 2018 Patrick Berry"
AI_WORDS = re.compile(
    r"\b(ai|a\.i\.|genai|llms?|gpt[\w.-]*|chatgpt|openai|gemini|claude|anthropic|copilot|deepfakes?|agentic|agents?|"
    r"chatbots?|bots?|machine learning|deep learning|neural|models?|deepmind|deepseek|grok|xai|mistral|llama|"
    r"hugging ?face|perplexity|jailbreak\w*|prompt injection|artificial intelligence|generative|midjourney|"
    r"stable diffusion|dall-e|sora|bard|character\.ai|replika|voice clon\w*|facial recognition|face recognition|"
    r"algorithm\w*|autopilot|self-driving|autonomous|robots?|robotaxis?|automated|clearview|synthetic)\b",
    re.I,
)
TRACKING = re.compile(r"^(utm_\w+|sref|smid|fbclid|gclid|mc_cid|mc_eid|ref|ref_src|cmpid|taid|guccounter|guce_\w+|sh|src|s|mod|tpcc|partner|cid)$", re.I)
HEADING = re.compile(r"\*\*\w+, (\w+ \d+ \d{4})")
LINE = re.compile(r"\s+\* \[(.+?)\]\((https?://[^)\s]+)\) \((.+?)\)\s*$")


def normalise(link: str) -> str:
    """The link without tracking parameters or fragment, so repeats and known items are found."""
    parts = urlsplit(link.strip())
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not TRACKING.match(k)])
    host = parts.netloc.lower().removeprefix("www.")
    return urlunsplit(("https", host, parts.path.rstrip("/"), query, ""))


def strip_tracking(link: str) -> str:
    parts = urlsplit(link.strip())
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not TRACKING.match(k)])
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


def sampled(link: str, one_in: int) -> bool:
    return int(hashlib.sha256(normalise(link).encode()).hexdigest(), 16) % one_in == 0


def headline(source: str, origin: str, licence: str, link: str, title: str, published: str) -> dict:
    """A link list's item: headline and link only (no summary was kept)."""
    return {"source": source, "origin": origin, "licence": licence, "link": link, "title": title, "summary": "", "publishedAt": published, "kind": "news"}


def ridehome(clone: str, known_links: set, known_titles: set) -> list:
    head = git(clone, "rev-parse", "HEAD").strip()
    out = []
    for year in YEARS:
        path = f"docs/all-links-{year}.md"
        text = git(clone, "show", f"HEAD:{path}")
        day = None
        for line in text.split("\n"):
            heading = HEADING.match(line)
            if heading:
                day = datetime.strptime(heading.group(1), "%B %d %Y").date().isoformat()
            m = LINE.match(line)
            if not m or not day or not day.startswith(year):
                continue
            title = re.sub(r"\s+", " ", html.unescape(m.group(1))).strip()
            link, publisher = strip_tracking(m.group(2)), m.group(3).strip()
            key = normalise(link)
            if key in known_links or title.lower() in known_titles:
                continue
            known_links.add(key)
            known_titles.add(title.lower())
            if not (AI_WORDS.search(title) or sampled(link, SAMPLE_ONE_IN[year])):
                continue
            out.append(headline(f"news:{publisher}", f"github.com/pberry/ridehome/{path}@{head[:8]}", LICENCE, link, title, day))
    return out


def git(clone: str, *args: str) -> str:
    return subprocess.run(["git", "-C", clone, *args], capture_output=True, text=True, check=True).stdout


TRACKER_ROW = re.compile(r'<tr>\s*<td><strong>(.*?)</strong>\s*(.*?)</td>\s*<td><a href="(.*?)">(.*?)</a></td>', re.S)
TRACKER_SAMPLE_ONE_IN = 4
TRACKER_LICENCE = "headline and link only, as facts; the headline belongs to its publisher. List: MIT, Copyright (c) 2025 delldevmann"


def tracker(clone: str, known_links: set, known_titles: set) -> list:
    """Every capture of the tracker's README over its history, oldest first; the row's own date when
    it has one (else the capture day). The "ai-security" section is kept whole."""
    out = []
    blobs = set()
    for line in reversed(git(clone, "log", "--format=%H %ad", "--date=short", "--", "README.md").split("\n")):
        if not line:
            continue
        commit, day = line.split()
        blob = git(clone, "rev-parse", f"{commit}:README.md").strip()
        if blob in blobs:
            continue
        blobs.add(blob)
        for section in re.split(r'<h2 id="', git(clone, "cat-file", "-p", blob))[1:]:
            section_id = section.split('"', 1)[0]
            for publisher, date, link, title in TRACKER_ROW.findall(section):
                title = re.sub(r"\s+", " ", html.unescape(title)).strip()
                link = strip_tracking(html.unescape(link))
                try:
                    published = datetime.strptime(date.strip(), "%b %d, %Y").date().isoformat()
                except ValueError:
                    published = day
                key = normalise(link)
                if key in known_links or title.lower() in known_titles or published[:4] not in YEARS:
                    continue
                known_links.add(key)
                known_titles.add(title.lower())
                if not (section_id == "ai-security" or AI_WORDS.search(title) or sampled(link, TRACKER_SAMPLE_ONE_IN)):
                    continue
                out.append(headline(f"news:{html.unescape(publisher).strip()}", f"github.com/delldevmann/cybersecurity-news-tracker/README.md ({day})@{commit[:8]}", TRACKER_LICENCE, link, title, published))
    return out


NEWSLETTER_ITEM = re.compile(r"^\W{0,4}\s*\[(.+?)\]\((https?://[^)\s]+)\)")
NEWSLETTER_SECTIONS = re.compile(r"insights|reports|cves", re.I)
NOT_PRESS = re.compile(r"//(www\.)?(arxiv\.org|github\.com|linkedin\.com|x\.com|twitter\.com|youtube\.com|youtu\.be|reddit\.com|huggingface\.co|docs\.google\.com|drive\.google\.com)/")
LINK_DATE = re.compile(r"/(20\d\d)[/-](0[1-9]|1[0-2])(?:[/-](0[1-9]|[12]\d|3[01]))?(?=[/-])")
MONTHS = {m: i for i, m in enumerate(("january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"), 1)}


def newsletter(clone: str, known_links: set, known_titles: set) -> list:
    """The monthly AI Security Newsletter: headline and link of each item under Insights, Reports and
    CVEs (tools, events, videos, papers and social posts are not press). Issues of 2025 only. The
    newsletter's own descriptions are not kept (the list states no licence)."""
    head = git(clone, "rev-parse", "HEAD").strip()
    out = []
    for path in sorted(git(clone, "ls-tree", "-r", "--name-only", "-z", "HEAD").split("\0")):
        issue = re.search(r"(january|february|march|april|may|june|july|august|september|october|november|december)\s+(20\d\d)\.md$", path, re.I)
        if not issue or issue.group(2) not in YEARS:
            continue
        month = f"{issue.group(2)}-{MONTHS[issue.group(1).lower()]:02d}"
        keep = False
        for line in git(clone, "show", f"HEAD:{path}").split("\n"):
            if line.startswith("#"):
                keep = bool(NEWSLETTER_SECTIONS.search(line))
                continue
            m = NEWSLETTER_ITEM.match(line)
            if not keep or not m or NOT_PRESS.search(m.group(2)):
                continue
            title = re.sub(r"\s+", " ", html.unescape(m.group(1))).strip()
            link = strip_tracking(m.group(2))
            dated = LINK_DATE.search(link)
            published = f"{dated.group(1)}-{dated.group(2)}-{dated.group(3) or '01'}" if dated else f"{month}-01"
            key = normalise(link)
            if key in known_links or title.lower() in known_titles or published[:4] not in YEARS:
                continue
            known_links.add(key)
            known_titles.add(title.lower())
            out.append(headline(f"news:{urlsplit(link).netloc.lower().removeprefix('www.')}", f"github.com/TalEliyahu/AI-Security-Newsletter/{path}@{head[:8]}", "headline and link only, as facts; the headline belongs to its publisher. List: no licence stated (only headline and link kept)", link, title, published))
    return out


TIMELINE_ENTRY = re.compile(r"^### (20\d\d-\d\d(?:-\d\d)?) - (.+)$")
TIMELINE_LINK = re.compile(r"\[[^\]]*\]\((https?://[^)\s]+)\)")


def timeline(clone: str, known_links: set, known_titles: set) -> list:
    """A timeline of AI agent incidents (awesome-ai-agent-attacks): the entry's title and date, the
    first sentence of its "Impact" line as the summary, and its first source that is not a paper,
    a repository or an advisory database as the link. Entries of 2024 and 2025 only."""
    head = git(clone, "rev-parse", "HEAD").strip()
    out = []
    entry = None

    def close(e):
        if not e or not e.get("link") or e["publishedAt"][:4] not in YEARS:
            return
        key = normalise(e["link"])
        if key in known_links or e["title"].lower() in known_titles:
            return
        known_links.add(key)
        known_titles.add(e["title"].lower())
        out.append(e)

    for line in git(clone, "show", "HEAD:README.md").split("\n"):
        m = TIMELINE_ENTRY.match(line)
        if m or line.startswith("## "):
            close(entry)
            entry = None
        if m:
            date = m.group(1) if len(m.group(1)) == 10 else f"{m.group(1)}-01"
            entry = {
                "source": "incident:awesome-ai-agent-attacks",
                "origin": f"github.com/webpro255/awesome-ai-agent-attacks/README.md@{head[:8]}",
                "licence": "entry title and the first sentence of its impact line: MIT, Copyright (c) 2026 awesome-ai-agent-attacks contributors; the linked article belongs to its publisher",
                "link": "",
                "title": m.group(2).strip(),
                "summary": "",
                "publishedAt": date,
                "kind": "news",
            }
        elif entry and line.startswith("- **Impact:**"):
            text = line.split("**Impact:**", 1)[1].strip()
            entry["summary"] = re.split(r"(?<=[a-z0-9)][.!?;])\s+", text, maxsplit=1)[0].rstrip(";")[:300]
        elif entry and line.startswith("- **Sources:**"):
            links = [strip_tracking(u) for u in TIMELINE_LINK.findall(line) if not NOT_PRESS.search(u) and "nvd.nist.gov" not in u and "cve.org" not in u]
            entry["link"] = links[0] if links else ""
    close(entry)
    return out


def main(argv: list) -> None:
    if len(argv) != 4:
        raise SystemExit(__doc__)
    items = json.loads(ITEMS.read_text())
    known_links = {normalise(i["link"]) for i in items}
    known_titles = {i["title"].lower() for i in items}
    # Order matters for duplicates: the topical lists first, so an item they share with the general
    # list keeps the topical origin.
    out = timeline(argv[3], known_links, known_titles)
    out += newsletter(argv[2], known_links, known_titles)
    out += tracker(argv[1], known_links, known_titles)
    out += ridehome(argv[0], known_links, known_titles)
    out.sort(key=lambda i: (i["publishedAt"], i["link"]))
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
