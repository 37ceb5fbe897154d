"""Press labels by reading (issue 38): the labelled set's press items take the label two readings
gave them, the disagreements settled by a third look (scripts/curation/readings/).

  python3 scripts/curation/apply-readings.py [candidates.json]

candidates.json is build-press-feeds.py's output: its items not yet in items.json are added first.
Every press item (a source that is not an arXiv listing) must have been read; the script stops if
one was not. arXiv items are left as they are (their labels are the rubric's and overrides').

A reading is a code per item, keyed by link:
  n, i, r  in scope, and the item is news, an incident or a regulator's/government's act
  g        ai-general-news          d  ai-for-defence          l  ai-brand-lure
  w        security-ai-only-a-word  s  security-general        u  unrelated
The label is the readings' when they agree, adjudicated.json's where they disagreed on scope or on
the kind of an in-scope item, and reading 2's where both put the item out of scope under different
groups (the group does not change the label, and reading 2 applied the policy's groups as written).
"""
import json
import sys
from pathlib import Path

HERE = Path(__file__).parent
ITEMS = HERE.parent.parent / "data" / "labelled-items" / "items.json"
IN_SCOPE = {"n": "news", "i": "incident", "r": "regulation"}
GROUPS = {
    "g": "ai-general-news",
    "d": "ai-for-defence",
    "l": "ai-brand-lure",
    "w": "security-ai-only-a-word",
    "s": "security-general",
    "u": "unrelated",
}
ISSUE_TYPE = {"news": "news", "incident": "incident", "regulation": "regulatory"}


def load(name):
    return json.loads((HERE / "readings" / name).read_text())


def final_code(link, r1, r2, adjudicated):
    if link in adjudicated:
        return adjudicated[link]["label"]
    a, b = r1[link], r2[link]
    if a == b or (a not in IN_SCOPE and b not in IN_SCOPE):
        return b
    raise SystemExit(f"{link}: readings disagree ({a} / {b}) and no adjudication")


def main():
    items = json.loads(ITEMS.read_text())
    known = {i["link"] for i in items}
    if len(sys.argv) > 1:
        for c in json.loads(Path(sys.argv[1]).read_text()):
            if c["link"] not in known:
                items.append({**c, "kind": "news", "relevant": False, "group": "unrelated"})
                known.add(c["link"])
    r1, r2, adjudicated = load("reading1.json"), load("reading2.json"), load("adjudicated.json")
    for item in items:
        if item["source"].startswith("arxiv-"):
            continue
        code = final_code(item["link"], r1, r2, adjudicated)
        was_relevant = item.get("relevant")
        if code in IN_SCOPE:
            item["kind"] = IN_SCOPE[code]
            item["relevant"] = True
            item["group"] = "in-scope"
            item["issueType"] = ISSUE_TYPE[item["kind"]]
            # Labels, attackType and exploitMaturity were the rubric's, not read: kept only where the
            # rubric had the item in scope too, so the per-field check compares the service with them.
            if not was_relevant:
                for field in ("labels", "attackType", "exploitMaturity"):
                    item.pop(field, None)
        else:
            item["relevant"] = False
            item["group"] = GROUPS[code]
            for field in ("issueType", "labels", "attackType", "exploitMaturity"):
                item.pop(field, None)
    ITEMS.write_text(json.dumps(items, indent=1, ensure_ascii=False) + "\n")
    press = [i for i in items if not i["source"].startswith("arxiv-")]
    print(f"{len(items)} items; press {len(press)}, in scope {sum(i['relevant'] for i in press)}")


if __name__ == "__main__":
    main()
