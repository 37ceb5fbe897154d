"""Press items from a public archive of security feeds (issue 38): title, the feed summary's first
sentence and the link, with the publisher as source. Reads a local clone of
github.com/clivoa/S33R (MIT): every version of its news JSON over the repository's history.

  python3 scripts/curation/build-press-feeds.py <clone> > candidates.json

Which items are kept for reading: every item whose title or summary has a word of the AI field
(AI_WORDS, broad on purpose: it selects what to read, it decides no label), and a fixed sample of
the rest by a hash of the link (about one in twelve), so items without those words are read too.
Community posts (Reddit), videos and podcasts are left out: they are not press. Labels come from
reading (scripts/curation/readings/), never from this script.
"""
import hashlib
import html
import json
import re
import subprocess
import sys

AI_WORDS = re.compile(
    r"\b(ai|a\.i\.|genai|llms?|gpt[\w.-]*|chatgpt|openai|gemini|claude|anthropic|copilot|deepfakes?|agentic|agents?|"
    r"chatbots?|machine learning|neural|model|models|mcp|deepseek|grok|xai|mistral|llama|hugging ?face|perplexity|"
    r"jailbreak\w*|prompt injection|artificial intelligence|generative|cursor|sora|midjourney|voice clon\w*)\b",
    re.I,
)
EXCLUDED_TYPES = {"osint", "podcasts"}
SAMPLE_ONE_IN = 12


def first_sentence(summary: str) -> str:
    text = re.sub(r"<[^>]+>", " ", html.unescape(summary or ""))
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s*(The post .*? appeared first on .*|Read more.*|Continue reading.*|\[…\].*|\[\.\.\.\].*)$", "", text)
    m = re.search(r"^(.{40,}?[.!?])\s+[A-Z\"“]", text)
    sentence = m.group(1) if m else text
    return sentence[:300].rstrip()


def versions(clone: str):
    revs = subprocess.run(["git", "-C", clone, "rev-list", "--all", "--", "data"], capture_output=True, text=True, check=True).stdout.split()
    for rev in revs:
        names = subprocess.run(["git", "-C", clone, "ls-tree", "-r", "--name-only", rev, "data"], capture_output=True, text=True).stdout.split()
        for name in names:
            if not name.endswith(".json") or any(k in name for k in ("morning", "trends", "promo")):
                continue
            blob = subprocess.run(["git", "-C", clone, "show", f"{rev}:{name}"], capture_output=True)
            if blob.returncode:
                continue
            try:
                data = json.loads(blob.stdout)
            except ValueError:
                continue
            items = data.get("items") if isinstance(data, dict) else data
            if isinstance(items, list):
                yield rev, name, items


def main(clone: str) -> None:
    head = subprocess.run(["git", "-C", clone, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    seen: dict[str, dict] = {}
    for _rev, name, items in versions(clone):
        for it in items:
            if not isinstance(it, dict) or not it.get("link") or not it.get("title") or not it.get("published"):
                continue
            if it.get("type") in EXCLUDED_TYPES or "reddit.com" in it["link"] or "youtube.com" in it["link"]:
                continue
            if it["published"].startswith("2023") or it["link"] in seen:
                continue
            publisher = re.sub(r"^https?://(www\.)?([^/]+).*$", r"\2", it.get("source") or "").strip()
            seen[it["link"]] = {
                "source": f"feed:{publisher}",
                "origin": f"github.com/clivoa/S33R/{name}@{head[:8]}",
                "licence": "headline, first sentence of the feed summary and link, as facts; the text belongs to its publisher. Archive: MIT, Copyright (c) 2025 clivoa",
                "link": it["link"],
                "title": re.sub(r"\s+", " ", html.unescape(it["title"])).strip(),
                "summary": first_sentence(it.get("summary") or ""),
                "publishedAt": it["published"][:10],
            }
    out = []
    for link in sorted(seen):
        item = seen[link]
        text = f"{item['title']} {item['summary']}"
        sampled = int(hashlib.sha256(link.encode()).hexdigest(), 16) % SAMPLE_ONE_IN == 0
        if AI_WORDS.search(text) or sampled:
            out.append(item)
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main(sys.argv[1])
