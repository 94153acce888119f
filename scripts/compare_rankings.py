#!/usr/bin/env python3
"""Compares the rankings of two litindex binaries (see compare-rankings.sh).

Each binary builds its own indexes in WORK/old and WORK/new:
  gen      `gen --papers 20000 --seed 11`, built with --analyzer plain, its generated queries
  scifact  ../shared/data/scifact corpus, english analyzer (as scripts/evaluation.sh)
  cacm     ../shared/data/cacm papers + directed citations, plain and english
and answers every query of each the same way:
  run      `run --queries Q --format jsonl` (ids and final scores, full f64
           precision), depth 100, for scifact and cacm under each flag set of FLAGS
  search   `search --format json --limit 100 FLAGS -- QUERY`, one process per
           query, for gen (the old two-pass defaults and weighted) and for scifact and cacm
           under each flag set: hit_count, average_score, top_score and every
           field of every hit shown
Numbers are equal when |old - new| <= 1e-9 (absolute); strings, ids, ranks,
counts and nulls must be equal exactly (a search that fails must fail with the
same exit code and message). wall_time_ms is not compared. COMPARE_ONLY=NAME
runs only the indexes whose name contains NAME. Prints
one summary line per (collection, flags, command) and exits 1 on any mismatch.
"""
import gzip
import hashlib
import json
import os
import subprocess
import sys

TOL = 1e-9
# Without the walk (BM25 alone, 100 deep), and with it as scripts/evaluation.sh runs it.
# Every flag is set explicitly, so a binary whose defaults differ (issue 22: the
# pool, the graph score and the first stage chosen per index) is asked the same
# search as the old one: "walk" is the old core defaults, "weighted" the old
# weighted defaults (WEIGHTED_DEFAULTS: top-k 30, pool 200, 0.7,0.2,0.1).
BY_HOPS = ["--mode", "bm25", "--graph-score", "by-hops", "--top-k", "10", "--hops", "2", "--weights", "0.5,0.3,0.2"]
FLAGS = {
    "no-walk": ["--mode", "bm25", "--graph-score", "by-hops", "--top-k", "10", "--hops", "0", "--weights", "1,0,0", "--pool", "100"],
    "walk": BY_HOPS + ["--pool", "10"],
    "walk-pool100": BY_HOPS + ["--pool", "100"],
    "weighted": ["--mode", "bm25", "--graph-score", "weighted", "--top-k", "30", "--hops", "2",
                 "--weights", "0.7,0.2,0.1", "--pool", "200"],
}
SKIP = {"wall_time_ms"}
# Fields a newer binary adds on purpose (issue 22: the query as the language read
# it); compared when both sides have them, accepted when only the new one does.
ADDED = {"parsed_query"}


def sh(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"compare-rankings: {' '.join(map(str, cmd))} failed ({r.returncode}):\n{r.stderr}")
    return r.stdout


class Diff:
    """Compares two JSON values, recording the largest numeric difference."""

    def __init__(self):
        self.max_abs = 0.0
        self.numbers = 0
        self.bit_identical = 0

    def same(self, a, b, path="") -> str | None:
        """None when equal, else where and how they differ."""
        if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None or isinstance(a, str):
            return None if a == b else f"{path}: {a!r} != {b!r}"
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            d = abs(float(a) - float(b))
            self.numbers += 1
            self.bit_identical += float(a) == float(b)
            self.max_abs = max(self.max_abs, d)
            return None if d <= TOL else f"{path}: {a!r} != {b!r} (|diff| {d:.3g})"
        if isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                return f"{path}: {len(a)} items != {len(b)}"
            for i, (x, y) in enumerate(zip(a, b)):
                if (e := self.same(x, y, f"{path}[{i}]")) is not None:
                    return e
            return None
        if isinstance(a, dict) and isinstance(b, dict):
            keys = set(a) | set(b)
            for k in sorted(keys - SKIP):
                if k not in a and k in ADDED:
                    continue
                if k not in a or k not in b:
                    return f"{path}.{k}: only in {'old' if k in a else 'new'}"
                if (e := self.same(a[k], b[k], f"{path}.{k}")) is not None:
                    return e
            return None
        return None if a == b else f"{path}: {a!r} != {b!r}"


def build(bins, work, data):
    """Every binary's indexes; the gen corpus written by each must be the same bytes."""
    corpora = {}
    for side, exe in bins.items():
        d = os.path.join(work, side)
        os.makedirs(d, exist_ok=True)
        corpus, queries = os.path.join(d, "gen.jsonl"), os.path.join(d, "gen-queries.txt")
        if not os.path.exists(os.path.join(d, "gen.db")):
            with open(corpus, "w") as out:
                r = subprocess.run([exe, "gen", "--papers", "20000", "--seed", "11", "--queries", queries],
                                   stdout=out, stderr=subprocess.PIPE, text=True)
                if r.returncode != 0:
                    sys.exit(f"compare-rankings: {exe} gen failed:\n{r.stderr}")
            sh([exe, "--db", os.path.join(d, "gen.db"), "build", "--quiet", "--analyzer", "plain", "--jsonl", corpus])
        corpora[side] = [hashlib.sha256(open(p, "rb").read()).hexdigest() for p in (corpus, queries)]
        if not os.path.exists(os.path.join(d, "scifact-english.db")):
            sh([exe, "--db", os.path.join(d, "scifact-english.db"), "ingest", "-q", "--analyzer", "english",
                os.path.join(data, "scifact", "corpus.jsonl.gz")])
        for analyzer in ["plain", "english"]:
            db = os.path.join(d, f"cacm-{analyzer}.db")
            if not os.path.exists(db):
                sh([exe, "--db", db, "ingest", "-q", "--analyzer", analyzer,
                    os.path.join(data, "cacm", "papers.jsonl"), os.path.join(data, "cacm", "citations_directed.tsv")])
    if corpora["old"] != corpora["new"]:
        sys.exit("compare-rankings: the two binaries' `gen` corpora or queries differ; the comparison needs the same input")


def read_queries(path):
    """(id, text) of a BEIR queries.jsonl or a file of one query per line."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        if path.endswith(".jsonl"):
            return [(q["_id"], q["text"]) for q in map(json.loads, f) if q]
        return [(str(i), line.rstrip("\n")) for i, line in enumerate(f) if line.strip()]


def run_lines(exe, db, queries, flags):
    out = sh([exe, "--db", db, "run", "--queries", queries, "--format", "jsonl", *flags])
    return {r["qid"]: r["ranked"] for r in map(json.loads, out.splitlines())}


def search_json(exe, db, text, flags):
    """The search's JSON, or its exit code and error (a query the query
    language cannot read, such as an unclosed quote, must fail alike)."""
    cmd = [exe, "--db", db, "search", "--format", "json", "--limit", "100", *flags, "--", text]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return {"exit": r.returncode, "stderr": r.stderr}
    return json.loads(r.stdout)


def main():
    old, new, work, data = sys.argv[1:5]
    bins = {"old": old, "new": new}
    build(bins, work, data)
    db = lambda side, name: os.path.join(work, side, name)
    gen_queries = os.path.join(work, "new", "gen-queries.txt")
    cases = [("gen", "gen.db", gen_queries, "walk", ["search"]), ("gen", "gen.db", gen_queries, "weighted", ["search"])]
    for coll, name in [("scifact", "scifact-english.db"), ("cacm", "cacm-plain.db"), ("cacm", "cacm-english.db")]:
        for label in FLAGS:
            cases.append((name.removesuffix(".db"), name, os.path.join(data, coll, "queries.jsonl"), label, ["run", "search"]))
    total = failed = 0
    overall = Diff()
    # COMPARE_ONLY=NAME: only the cases whose index name contains NAME (to rerun a part).
    only = os.environ.get("COMPARE_ONLY", "")
    for coll, name, qfile, label, commands in (c for c in cases if only in c[1]):
        queries = read_queries(qfile)
        flags = FLAGS[label]
        for command in commands:
            diff = Diff()
            same = 0
            first_bad = None
            if command == "run":
                a, b = (run_lines(bins[s], db(s, name), qfile, flags) for s in ("old", "new"))
                pairs = [(qid, a.get(qid), b.get(qid)) for qid, _ in queries]
            else:
                pairs = [(qid, search_json(old, db("old", name), text, flags), search_json(new, db("new", name), text, flags))
                         for qid, text in queries]
            for qid, x, y in pairs:
                e = diff.same(x, y, f"query {qid}")
                if e is None:
                    same += 1
                elif first_bad is None:
                    first_bad = e
            overall.numbers += diff.numbers
            overall.bit_identical += diff.bit_identical
            overall.max_abs = max(overall.max_abs, diff.max_abs)
            total += len(pairs)
            failed += len(pairs) - same
            status = "ok" if same == len(pairs) else f"MISMATCH, first: {first_bad}"
            print(f"{coll:15} {label:13} {command:6} queries {len(pairs):5}  identical {same:5}  "
                  f"numbers {diff.numbers:7} (bit-identical {diff.bit_identical:7})  max |diff| {diff.max_abs:.3g}  {status}",
                  flush=True)
    print(f"total: {total} query answers compared, {total - failed} identical, {failed} differing; "
          f"{overall.numbers} numbers, {overall.bit_identical} bit-identical, max |diff| {overall.max_abs:.3g} "
          f"(tolerance {TOL:g} absolute)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
