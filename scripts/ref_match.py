#!/usr/bin/env python3
"""Reference matching on the dev PDFs: how many of each paper's gold
references its PDF's entries link to, and how many entries link to a wrong
paper.

The gold references (title, year, DOI of every entry, from gold.jsonl) are
ingested first as Paper JSON Lines (id: the DOI when gold has one, else
`gold-<file>-<n>`), then the PDFs. An entry of PDF X that is matched
(`doc_references.matched_by`) to a gold reference of X is a hit (or to a paper with the
same normalised title: two gold lists may both hold one paper, as two
records); one matched to any other paper is wrong. Recall = gold references of X some entry of X
matched / gold references of X, over every PDF with gold references.

    scripts/ref_match.py [--bin target/debug/litindex] [--dir ../shared/data/pdfs]
"""
import argparse, json, os, sqlite3, subprocess, sys, tempfile
from collections import Counter

ap = argparse.ArgumentParser()
ap.add_argument("--bin", default="target/debug/litindex")
ap.add_argument("--dir", default="../shared/data/pdfs")
args = ap.parse_args()

gold = [json.loads(l) for l in open(os.path.join(args.dir, "gold.jsonl"))]
tmp = tempfile.mkdtemp()
db, jsonl = os.path.join(tmp, "m.db"), os.path.join(tmp, "refs.jsonl")
want = {}  # file -> set of paper ids
norm = lambda t: " ".join("".join(c if c.isalnum() else " " for c in (t or "").lower()).split())
titles = {}  # file -> normalised gold titles
with open(jsonl, "w") as f:
    for g in gold:
        ids = set()
        for n, r in enumerate(g.get("references") or []):
            if not r.get("title") and not r.get("doi"):
                continue
            pid = ("doi:" + r["doi"].lower()) if r.get("doi") else f"gold-{g['file']}-{n}"
            f.write(json.dumps({"id": pid, "title": r.get("title") or "", "year": r.get("year")}) + "\n")
            ids.add(pid)
            titles.setdefault(g["file"], set()).add(norm(r.get("title")))
        if ids:
            want[g["file"]] = ids

def run(*a):
    p = subprocess.run([args.bin, "--db", db, *a], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(a)}: {p.stderr}")
    return p.stdout

run("ingest", "--quiet", "--format", "paper", jsonl)
run("ingest", "--quiet", "--skip-invalid", args.dir)
conn = sqlite3.connect(db)
canon = lambda i: (conn.execute("SELECT paper_id FROM aliases WHERE alias = ?", (i,)).fetchone() or (i,))[0]
key = lambda pid: canon(pid[4:] if pid.startswith("doi:") else pid)
hits = total = wrong = matched = 0
by = Counter()
for file, ids in sorted(want.items()):
    rows = conn.execute(
        "SELECT e.matched_by, e.target FROM doc_references AS e JOIN documents AS d ON d.document = e.document "
        "WHERE d.path LIKE ? AND e.matched_by IS NOT NULL", ("%/" + file,)).fetchall()
    gold_ids = {key(i) for i in ids}
    got, bad = set(), 0
    for m, t in rows:
        t = canon(t)
        matched += 1
        by[m] += 1
        title = (conn.execute("SELECT title FROM papers WHERE id = ?", (t,)).fetchone() or ("",))[0]
        if t in gold_ids:
            got.add(t)
        elif norm(title) in titles[file]:
            got.add("title:" + norm(title))
        else:
            bad += 1
    wrong += bad
    hits += len(got)
    total += len(gold_ids)
    print(f"{file:28} {len(got):3}/{len(gold_ids):3} matched, {bad:2} wrong")
print(f"reference matching: {hits}/{total} gold references linked = {hits / max(total, 1):.3f}; "
      f"{matched} entries matched ({', '.join(f'{k} {v}' for k, v in sorted(by.items()))}), {wrong} to a wrong paper")
