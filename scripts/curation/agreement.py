"""Agreement between the two readings of a round (data/labelled-items/README.md's table) and the
items they disagree on, to adjudicate:

  python3 scripts/curation/agreement.py scripts/curation/candidates-fourth.json

Cohen's kappa on two scales: in scope or not, and the code itself (the kind when in scope, the
out-of-scope group otherwise). Prints the disagreements on scope or on an in-scope item's kind that
adjudicated.json does not settle yet.
"""
import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).parent
IN_SCOPE = set("nir")


def kappa(pairs):
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(first[c] * second[c] for c in first) / (n * n)
    return observed, (observed - expected) / (1 - expected)


def main():
    links = [c["link"] for c in json.loads(Path(sys.argv[1]).read_text())]
    r1, r2 = (json.loads((HERE / "readings" / f"reading{k}.json").read_text()) for k in (1, 2))
    adjudicated = json.loads((HERE / "readings" / "adjudicated.json").read_text())
    pairs = [(r1[link], r2[link]) for link in links]
    scope = [(a in IN_SCOPE, b in IN_SCOPE) for a, b in pairs]
    (o1, k1), (o2, k2) = kappa(scope), kappa(pairs)
    print(f"{len(pairs)} items; in scope or not: observed {o1:.3f} ({sum(a != b for a, b in scope)} disagreements), kappa {k1:.3f}; code: observed {o2:.3f}, kappa {k2:.3f}")
    open_ = [link for link, (a, b) in zip(links, pairs) if a != b and (a in IN_SCOPE or b in IN_SCOPE) and link not in adjudicated]
    print(f"to adjudicate: {len(open_)}")
    for link in open_:
        print(json.dumps({"link": link, "reading1": r1[link], "reading2": r2[link]}))


if __name__ == "__main__":
    main()
