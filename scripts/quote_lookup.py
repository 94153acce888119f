#!/usr/bin/env python3
"""Quote lookup (issue 23): a sentence poppler's `pdftotext -f P -l P`
extracts from page P of paper X, searched with `litindex search
--passages`, must return X and page P first (P within the top passage's
pages) for >= 0.95 of 500 sentences.

Sampling: every page of every PDF of DIR through `pdftotext -f P -l P`
(default mode); lines joined (a line ending in a hyphen before a lowercase
letter is joined without it, as a reader reads it); cut into sentences at
`.`, `?` or `!` followed by a space and an uppercase letter or a digit;
sentences of 8 or more words whose words are mostly letters; duplicates
(the same sentence on two pages) dropped; then 500 drawn with
`random.Random(SEED)` (SEED 23 unless --seed). `--split even|odd|all`
keeps every other sampled sentence (a tuning / test split).

The index is made from DIR alone (`ingest DIR`) in a temporary folder,
or read from --db. `--dump FILE` writes the sampled quotes with their
paper id and page as JSON Lines (for examples/passage_weight.rs).

usage: scripts/quote_lookup.py [--bin target/debug/litindex] [--db DB] [--mode bm25|dense|hybrid] [DIR]
"""

import argparse
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile

SENT_END = re.compile(r"(?<=[.?!])\s+(?=[A-Z0-9])")


def page_count(pdf):
    out = subprocess.run(["pdfinfo", pdf], capture_output=True, text=True).stdout
    m = re.search(r"^Pages:\s+(\d+)", out, re.M)
    return int(m.group(1)) if m else 0


def page_text(pdf, p):
    out = subprocess.run(["pdftotext", "-f", str(p), "-l", str(p), pdf, "-"], capture_output=True, text=True)
    return out.stdout


def sentences(text):
    text = re.sub(r"-\n(?=[a-z])", "", text)
    text = re.sub(r"\s+", " ", text)
    for s in SENT_END.split(text):
        s = s.strip()
        words = s.split()
        if len(words) < 8:
            continue
        alpha = sum(1 for w in words if re.fullmatch(r"[A-Za-z][A-Za-z'’,;:.()\-]*", w))
        if alpha < 0.75 * len(words):
            continue
        yield s


def sample(dir_, seed, n):
    seen = {}
    for f in sorted(os.listdir(dir_)):
        if not f.lower().endswith(".pdf"):
            continue
        pdf = os.path.join(dir_, f)
        for p in range(1, page_count(pdf) + 1):
            for s in sentences(page_text(pdf, p)):
                key = s.lower()
                if key in seen:
                    seen[key] = None  # on two pages: no single right answer
                else:
                    seen[key] = (f, p, s)
    pool = sorted(v for v in seen.values() if v is not None)
    return random.Random(seed).sample(pool, min(n, len(pool))), len(pool)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", nargs="?", default="../shared/data/pdfs")
    ap.add_argument("--bin", default="target/debug/litindex")
    ap.add_argument("--db")
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("-n", type=int, default=500)
    ap.add_argument("--split", choices=["all", "even", "odd"], default="all")
    ap.add_argument("--dump")
    ap.add_argument("--mode", choices=["bm25", "dense", "hybrid"], default="bm25",
                    help="the passage search's mode; dense and hybrid embed the passages first "
                         "(`embed --passages`, the model from LITINDEX_MODEL_DIR)")
    ap.add_argument("--verbose", "-v", action="store_true")
    a = ap.parse_args()
    quotes, pool = sample(a.dir, a.seed, a.n)
    if a.split != "all":
        quotes = quotes[0 if a.split == "even" else 1::2]
    with tempfile.TemporaryDirectory() as tmp:
        db = a.db or os.path.join(tmp, "quotes.db")
        if not a.db:
            r = subprocess.run([a.bin, "--db", db, "ingest", "--quiet", "--skip-invalid", a.dir], capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"ingest failed:\n{r.stderr}")
            print(r.stdout.strip().splitlines()[-1])
        if a.mode != "bm25":
            r = subprocess.run([a.bin, "--db", db, "embed", "--passages", "--quiet"], capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"embed --passages failed:\n{r.stderr}")
            print(next((l for l in r.stdout.splitlines() if l.startswith("passages:")), r.stdout.strip()))
        con = sqlite3.connect(db)
        paper_of = {os.path.basename(path): pid for path, pid in con.execute(
            "SELECT d.path, r.paper_id FROM documents AS d JOIN records AS r ON r.source = 'pdf' AND r.source_id = d.source_id")}
        con.close()
        if a.dump:
            with open(a.dump, "w") as f:
                for file, page, s in quotes:
                    f.write(json.dumps({"file": file, "paper": paper_of.get(file), "page": page, "quote": s}) + "\n")
        right = paper_only = 0
        misses = []
        for file, page, s in quotes:
            out = subprocess.run([a.bin, "--db", db, "search", "--passages", "--mode", a.mode,
                                  "--format", "json", "--limit", "1", "--", s],
                                 capture_output=True, text=True)
            hits = json.loads(out.stdout)["hits"] if out.returncode == 0 else []
            top = hits[0] if hits else None
            want = paper_of.get(file)
            if top and want and top["paper_id"] == want:
                if top["page_first"] <= page <= top["page_last"]:
                    right += 1
                    continue
                paper_only += 1
                misses.append((file, page, s, f"right paper, pages {top['page_first']}-{top['page_last']}"))
            else:
                got = top["paper_id"] if top else "nothing"
                misses.append((file, page, s, f"got {got}" + ("" if want else " (the PDF was not indexed)")))
        n = len(quotes)
        if a.verbose:
            for m in misses:
                print(f"  miss {m[0]} p.{m[1]}: {m[3]}: {m[2][:100]}")
        print(f"quote lookup: {right}/{n} = {right / max(n, 1):.3f} paper and page first "
              f"({paper_only} right paper, wrong page; {n - right - paper_only} wrong paper); "
              f"seed {a.seed}, split {a.split}, mode {a.mode}, {pool} candidate sentences")


if __name__ == "__main__":
    main()
