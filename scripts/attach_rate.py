#!/usr/bin/env python3
"""Attach rate of PDFs to their papers (issue 23).

The set's gold metadata is ingested first, as Paper JSON Lines built from
gold.jsonl (id: the DOI when printed, else the arXiv id, else `gold-FILE`;
title, authors, year, abstract), then the folder of PDFs in a second
`ingest`. A PDF is attached right when its document is filed under the
paper of its own gold line, wrong when under another gold paper, and
unattached when it became a paper of its own.

Target: >= 0.95 attached right, none wrong.

usage: scripts/attach_rate.py [--bin target/debug/litindex] [--keep DB] [DIR]
       DIR defaults to ../shared/data/pdfs (from the repository root)
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile


def run(bin_, db, *args):
    out = subprocess.run([bin_, "--db", db, *args], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"litindex {' '.join(args)} failed ({out.returncode}):\n{out.stderr}")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", nargs="?", default="../shared/data/pdfs")
    ap.add_argument("--bin", default="target/debug/litindex")
    ap.add_argument("--verbose", "-v", action="store_true")
    ap.add_argument("--keep", metavar="DB", help="build the index at DB and keep it (for examples/passage_weight.rs)")
    a = ap.parse_args()
    gold = [json.loads(l) for l in open(os.path.join(a.dir, "gold.jsonl")) if l.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        db = a.keep or os.path.join(tmp, "attach.db")
        if a.keep and os.path.exists(db):
            sys.exit(f"{db} exists; --keep builds a new index")
        meta = os.path.join(tmp, "gold.paper.jsonl")
        ids = {}
        with open(meta, "w") as f:
            for g in gold:
                pid = g.get("doi") or (("arXiv:" + g["arxiv"]) if g.get("arxiv") else "gold-" + g["file"][:-4])
                ids[g["file"]] = pid
                f.write(json.dumps({"id": pid, "title": g["title"], "authors": g.get("authors") or [],
                                    "year": g.get("year"), "abstract": g.get("abstract") or ""}) + "\n")
        run(a.bin, db, "ingest", "--quiet", "--format", "paper", meta)
        out = run(a.bin, db, "ingest", "--quiet", "--skip-invalid", a.dir)
        print(out.stdout.strip().splitlines()[-1])
        # Which paper each PDF's document is filed under.
        filed = {}
        for g in gold:
            p = json.loads(run(a.bin, db, "paper", ids[g["file"]], "--format", "json").stdout)
            for d in p.get("documents", []):
                filed[os.path.basename(d["path"])] = (g["file"], p["id"])
        right = wrong = alone = 0
        for g in gold:
            got = filed.get(g["file"])
            if got is None:
                alone += 1
                what = "not attached"
            elif got[0] == g["file"]:
                right += 1
                what = "right"
            else:
                wrong += 1
                what = f"WRONG: under {got[1]} ({got[0]})"
            if a.verbose or what != "right":
                print(f"  {g['file']}: {what}")
        n = len(gold)
        print(f"attach rate: {right}/{n} = {right / n:.3f} attached to their paper, {wrong} to a wrong one, {alone} not attached")


if __name__ == "__main__":
    main()
