#!/usr/bin/env python3
"""Measures `litindex related` on CACM (docs/EVALUATION.md, "Related papers").

For each judged query, the seed is the relevant paper that BM25 ranks highest
for the query text (`search --hops 0 --weights 1,0,0`); when BM25 retrieves
none of them, the relevant paper with the smallest id. Then, per method, how
many of the query's *other* relevant papers `related SEED` lists in its top
20 and top 100, summed over the queries, and as a mean recall.

Usage: scripts/related_eval.py BIN DB DATA_DIR   (DATA_DIR: ../shared/data/cacm)
"""
import json
import subprocess
import sys
from collections import defaultdict

bin_, db, data = sys.argv[1:4]
queries = {}
for line in open(f"{data}/queries.jsonl"):
    q = json.loads(line)
    queries[q["_id"]] = q["text"]
qrels = defaultdict(set)
for i, line in enumerate(open(f"{data}/qrels.tsv")):
    if i == 0:
        continue
    qid, doc, score = line.split()
    if int(score) > 0:
        qrels[qid].add(doc)


def run(*args):
    out = subprocess.run([bin_, "--db", db, *args], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


methods = ["cocitation", "coupling", "text", "both"]
found = {m: [0, 0] for m in methods}
recall = {m: [0.0, 0.0] for m in methods}
others_total = 0
n = 0
for qid in sorted(qrels, key=int):
    rel = qrels[qid]
    if len(rel) < 2:
        continue
    ranked = run("search", queries[qid], "--hops", "0", "--weights", "1,0,0", "--limit", "1000", "--format", "json")
    order = [h["id"] for h in ranked["ranked"]]
    seed = next((d for d in order if d in rel), min(rel, key=int))
    others = rel - {seed}
    others_total += len(others)
    n += 1
    for m in methods:
        ids = [r["id"] for r in run("related", seed, "--method", m, "--limit", "100", "--format", "json")["related"]]
        for j, k in enumerate([20, 100]):
            hit = len(others & set(ids[:k]))
            found[m][j] += hit
            recall[m][j] += hit / len(others)
print(f"{n} queries with at least 2 relevant papers; {others_total} other relevant papers in all")
print("| method | found in top 20 | found in top 100 | mean recall@20 | mean recall@100 |")
print("|---|---|---|---|---|")
for m in methods:
    print(f"| {m} | {found[m][0]} | {found[m][1]} | {recall[m][0] / n:.4f} | {recall[m][1] / n:.4f} |")
