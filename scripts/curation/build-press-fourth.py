"""Fourth round of press candidates for reading (issue 38): the link lists of the "Last Week in AI"
digests (Skynet Today, 2019-2022 and 2024-2025) and the curated press references of an LLM-attack
catalogue (llmattacks, 2024-2025). Reads local clones (see data/labelled-items/README.md).

  python3 scripts/curation/build-press-fourth.py <skynet-today> <llmattacks> > scripts/curation/candidates-fourth.json

<skynet-today>: github.com/skynettoday/skynet-today; <llmattacks>: github.com/nnnsss999/llmattacks
(local clones; a bare git directory is enough).

Which items are kept for reading (a selection, never a label):
- every dated press link of the LLM-attack catalogue's reference lists (a topical list);
- from the digests, every link of the digest's own "Concerns", "Hype" and "Policy" sections (the
  sections the digest itself gives to AI's risks and its regulation), every link of its other
  sections whose title has a word of concern (CONCERN_WORDS of build-press-third.py: attack, leak,
  privacy, law, harm ... broad on purpose), and one in DIGEST_REST_ONE_IN of the rest (hash of the
  normalised link), so general AI news is read as hard negatives.
Items already in data/labelled-items/items.json, scripts/curation/candidates-more.json or
scripts/curation/candidates-third.json (by normalised link or lower-cased title) and repeats across
the lists are left out; digests dated 2023 (reserved) or outside 2019-2025 are not read, nor
catalogue links dated so; links to arXiv, GitHub, social networks, videos, paper indexes and PDFs
are left out (not press). Only title, link, date and publisher are kept: neither list states a
licence for its own summaries, so none is kept.
Output is sorted by date, then link. Labels come from reading, never from this script.
"""
import calendar
import html
import importlib.util
import json
import re
import subprocess
import sys
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _load(name: str, file: str):
    spec = importlib.util.spec_from_file_location(name, HERE / file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


more = _load("build_press_more", "build-press-more.py")
third = _load("build_press_third", "build-press-third.py")
strip_tracking, sampled = more.strip_tracking, more.sampled
NOT_PRESS, CONCERN_WORDS, Seen, item, host, clean, link_date = (
    third.NOT_PRESS, third.CONCERN_WORDS, third.Seen, third.item, third.host, third.clean, third.link_date,
)

ITEMS = HERE.parents[1] / "data" / "labelled-items" / "items.json"
EARLIER_ROUNDS = (HERE / "candidates-more.json", HERE / "candidates-third.json")
YEARS = ("2019", "2020", "2021", "2022", "2024", "2025")
NOT_PRESS_MORE = re.compile(
    r"//([\w-]+\.)*(doi\.org|semanticscholar\.org|scholar\.google\.com|aclanthology\.org|ieeexplore\.ieee\.org|dl\.acm\.org|"
    r"usenix\.org|adsabs\.harvard\.edu|podbean\.com|apple\.com/podcasts|spotify\.com|substack\.com/p/\d)(/|$)",
    re.I,
)


def git(clone: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir(clone), *args], capture_output=True, text=True, check=True).stdout


def git_dir(clone: str) -> str:
    """A work tree's .git, or the clone itself when it is a bare directory (as fetched mirrors are)."""
    return str(Path(clone) / ".git") if (Path(clone) / ".git").exists() else clone


def press(link: str) -> bool:
    return link.startswith("http") and not NOT_PRESS.search(link) and not NOT_PRESS_MORE.search(link)


DIGEST_REST_ONE_IN = 6
DIGEST_LICENCE = (
    "headline and link only, as facts; the headline belongs to its publisher. List: Last Week in AI digests "
    "(Skynet Today); the repository's MIT licence covers its site theme, not the digests' text, so the digests' "
    "summaries are not kept"
)
DIGEST_FILE = re.compile(r"^_posts/digests/(\d{4})-(\d{1,2})-(\d{1,2})-\w+\.md$")
DIGEST_HEADING = re.compile(r"^#{2,4}\s+([^\[\s].*?)\s*$")
DIGEST_LINK = re.compile(r"^(?:[*-]\s+|#{3,4}\s+)?\[(.+?)\]\((https?://[^)\s]+)\)")
TOPICAL_SECTION = re.compile(r"concern|hype|policy", re.I)
SKIPPED_SECTION = re.compile(r"podcast|video|tweet", re.I)
# A digest whose generator lost a headline printed "nan" in its place.
PLACEHOLDER_TITLES = {"", "nan", "none"}


def digest_day(year: int, month: int, day: int) -> str:
    """The day in the file name, zero-padded; some names are not padded and one names 29 February 2021,
    which is read as the month's last day."""
    return date(year, month, min(day, calendar.monthrange(year, month)[1])).isoformat()


def digests(clone: str, seen: Seen) -> list:
    """Every digest's links, dated by the digest; the section is the last heading above the link."""
    head = git(clone, "rev-parse", "HEAD").strip()
    out = []
    for path in sorted(git(clone, "ls-tree", "-r", "--name-only", "HEAD", "_posts/digests/").split("\n")):
        m = DIGEST_FILE.match(path)
        if not m or m.group(1) not in YEARS:
            continue
        published, section = digest_day(*map(int, m.groups())), ""
        for line in git(clone, "show", f"HEAD:{path}").split("\n"):
            heading = DIGEST_HEADING.match(line)
            if heading:
                section = heading.group(1)
                continue
            found = DIGEST_LINK.match(line.strip())
            if not found or SKIPPED_SECTION.search(section):
                continue
            title = clean(re.sub(r"[*_`]+", "", html.unescape(found.group(1))))
            link = strip_tracking(found.group(2))
            if title.lower() in PLACEHOLDER_TITLES or not press(link) or not seen.take(link, title):
                continue
            topical = TOPICAL_SECTION.search(section)
            if not (topical or CONCERN_WORDS.search(title) or sampled(link, DIGEST_REST_ONE_IN)):
                continue
            out.append(item(f"news:{host(link)}", f"github.com/skynettoday/skynet-today/{path}@{head[:8]}", DIGEST_LICENCE, link, title, "", published))
    return out


CATALOGUE_LICENCE = (
    "headline and link only, as facts; the headline belongs to its publisher. List: CC BY 4.0 (llmattacks, "
    "github.com/nnnsss999/llmattacks)"
)
CATALOGUE_LINE = re.compile(r"^\s*[-*]\s+\[(.+?)\]\((https?://[^)\s]+)\)")


def catalogue(clone: str, seen: Seen) -> list:
    """The catalogue's reference lists (docs/ and attacks/): press links dated by the date in the link."""
    head = git(clone, "rev-parse", "HEAD").strip()
    out = []
    for path in sorted(git(clone, "ls-tree", "-r", "--name-only", "HEAD", "docs/", "attacks/").split("\n")):
        if not path.endswith(".md"):
            continue
        for line in git(clone, "show", f"HEAD:{path}").split("\n"):
            m = CATALOGUE_LINE.match(line)
            if not m:
                continue
            link, title = strip_tracking(m.group(2)), clean(re.sub(r"[*_`]+", "", m.group(1)))
            published = link_date(link)
            if published[:4] not in YEARS or not press(link) or not title or not seen.take(link, title):
                continue
            out.append(item(f"news:{host(link)}", f"github.com/nnnsss999/llmattacks/{path}@{head[:8]}", CATALOGUE_LICENCE, link, title, "", published))
    return out


def main(argv: list) -> None:
    if len(argv) != 2:
        raise SystemExit(__doc__)
    rows = json.loads(ITEMS.read_text())
    for path in EARLIER_ROUNDS:
        rows += json.loads(path.read_text())
    seen = Seen(rows)
    # The topical list first, so an item it shares with the digests keeps the topical origin.
    out = catalogue(argv[1], seen)
    out += digests(argv[0], seen)
    third.write_candidates(out)


if __name__ == "__main__":
    main(sys.argv[1:])
