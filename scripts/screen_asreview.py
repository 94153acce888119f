#!/usr/bin/env python3
"""ASReview LAB 3.0.8 (default model, ELAS u4) on the SYNERGY reviews, in the
same measurement as `scripts/screen_synergy.sh`: installs asreview from PyPI
into target/asreview (a venv, once), writes one CSV per review from its works
(`openalex_id,title,abstract,label_included`, the labels' order), runs

    asreview simulate NAME.csv --n-prior-included 1 --n-prior-excluded 1 \\
        --prior-seed S --seed S -o OUT/NAME_sS.asreview      # S = 1..5

(in OUT_DIR, where asreview leaves its synergy_cache.sqlite), reads each screening order from the project's results.db (insertion order,
priors first, record_id mapped back to the CSV row), writes OUT/NAME_sS.txt,
and says how many orders equal the shared anchor orders
(../shared/data/synergy/anchor_asreview-3.0.8), which check this script.

    python3 scripts/screen_asreview.py OUT_DIR [REVIEW ...]

Score with ../shared/tools/screen_eval.py LABELS OUT/NAME_s*.txt --n-priors 2.
"""
import csv
import gzip
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.environ.get("SYNERGY_DIR", os.path.join(ROOT, "..", "shared", "data", "synergy"))
VENV = os.path.join(ROOT, "target", "asreview")
REVIEWS = ["Jeyaraman_2020", "Meijboom_2021", "Nelson_2002", "Oud_2018", "Sep_2021", "van_der_Valk_2021"]


def install():
    exe = os.path.join(VENV, "bin", "asreview")
    if not os.path.exists(exe):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        subprocess.run([os.path.join(VENV, "bin", "pip"), "install", "-q", "asreview==3.0.8"], check=True)
    return exe


def abstract(inv):
    if not inv:
        return ""
    pos = [(p, w) for w, ps in inv.items() for p in ps]
    return " ".join(w for _, w in sorted(pos))


def write_csv(review, path):
    works = {}
    with gzip.open(os.path.join(DATA, review, "works.jsonl.gz"), "rt", encoding="utf-8") as f:
        for line in f:
            w = json.loads(line)
            works[w["id"].rsplit("/", 1)[-1]] = w
    with open(os.path.join(DATA, review, "labels.csv"), newline="") as f:
        labels = list(csv.DictReader(f))
    ids = []
    with open(path, "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(["openalex_id", "title", "abstract", "label_included"])
        for row in labels:
            w = works[row["openalex_id"]]
            title = w.get("title") or w.get("display_name") or ""
            out.writerow([row["openalex_id"], title, abstract(w.get("abstract_inverted_index")), row["label_included"]])
            ids.append(row["openalex_id"])
    return ids


def order_of(project, ids):
    with zipfile.ZipFile(project) as z:
        name = next(n for n in z.namelist() if n.endswith("results.db"))
        with tempfile.TemporaryDirectory() as d:
            z.extract(name, d)
            con = sqlite3.connect(os.path.join(d, name))
            rows = con.execute("SELECT record_id FROM results ORDER BY rowid").fetchall()
            con.close()
    return [ids[r[0]] for r in rows]


def main():
    out = os.path.abspath(sys.argv[1])
    reviews = sys.argv[2:] or REVIEWS
    exe = install()
    os.makedirs(out, exist_ok=True)
    for review in reviews:
        data = os.path.join(out, review + ".csv")
        ids = write_csv(review, data)
        same = 0
        for s in range(1, 6):
            project = os.path.join(out, f"{review}_s{s}.asreview")
            if os.path.exists(project):
                os.remove(project)
            subprocess.run([exe, "simulate", data, "--n-prior-included", "1", "--n-prior-excluded", "1",
                            "--prior-seed", str(s), "--seed", str(s), "-o", project],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=out)
            order = order_of(project, ids)
            with open(os.path.join(out, f"{review}_s{s}.txt"), "w") as f:
                f.write("\n".join(order) + "\n")
            anchor = os.path.join(DATA, "anchor_asreview-3.0.8", f"{review}_s{s}.txt")
            if os.path.exists(anchor):
                with open(anchor) as f:
                    same += [l.strip() for l in f if l.strip()] == order
        print(f"{review}: 5 runs, {same} of 5 orders equal to the anchor's", flush=True)


if __name__ == "__main__":
    main()
