"""The rubric (labels.py) as a baseline: its precision and recall on the press items against the
labels by reading (apply-readings.py). It judges each press item as the feed meets it, a news item
with a title and, where the archive kept it, the summary's first sentence.

  python3 scripts/curation/baseline.py
"""
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import labels  # noqa: E402

ITEMS = Path(__file__).parent.parent.parent / "data" / "labelled-items" / "items.json"


def main():
    press = [i for i in json.loads(ITEMS.read_text()) if not i["source"].startswith("arxiv-")]
    rows = []
    for item in press:
        verdict = labels.judge({**item, "kind": "news"})
        rows.append((item, verdict["relevant"]))

    def line(name, subset, precision=True):
        c = Counter((i["relevant"], said) for i, said in subset)
        tp, fp, fn = c[(True, True)], c[(False, True)], c[(True, False)]
        p = f"{tp / (tp + fp):.3f}" if precision and tp + fp else "-"
        r = f"{tp / (tp + fn):.3f}" if tp + fn else "-"
        print(f"| {name} | {len(subset)} | {tp} | {fp if precision else '-'} | {fn} | {p} | {r} |")

    print("| press items | n | TP | FP | FN | precision | recall |")
    print("|---|---|---|---|---|---|---|")
    line("all", rows)
    for kind in ("news", "incident", "regulation"):
        # Recall by the read kind (the rubric's own kinds are not the read ones, so no precision).
        line(f"in scope as {kind}", [r for r in rows if r[0]["kind"] == kind and r[0]["relevant"]], precision=False)
    missed = Counter(i["group"] for i, said in rows if said and not i["relevant"])
    print("\nServed out of scope, by read group:", dict(missed.most_common()))


if __name__ == "__main__":
    main()
