#!/usr/bin/env bash
# SciFact beside tantivy (issue 16's comparison): english, all 1,109 queries,
# BM25 top-100, no walk. Prints, per query:
#   - the whole `litindex run` process (open, 1,109 searches, TREC output to
#     /dev/null) over its wall time and its CPU time, median of 3 runs, on
#     every core (the default) and with --threads 1;
#   - litindex's in-process BM25 top-100 and tantivy's, from one
#     `bench --peer tantivy --top 100` run over the same text (mean = 1 / QPS,
#     and p50), with their top-1 agreement and top-100 overlap.
# Needs a release binary built with the feature: cargo build --release --features tantivy
# Usage: scripts/scifact_tantivy.sh [DATA_DIR] [WORK_DIR]   (defaults: ../shared/data, a temp dir)
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-../shared/data}
work=${2:-$(mktemp -d)}
bin=${LITINDEX_BIN:-target/release/litindex}
mkdir -p "$work"
[ -x "$bin" ] || { echo "no $bin: cargo build --release --features tantivy" >&2; exit 2; }

# The BEIR corpus as Paper JSON Lines (id, title, abstract = text) and the
# queries' text, one per line (whitespace folded: a query is one line).
python3 - "$data/scifact" "$work" <<'PY'
import gzip, json, sys
src, work = sys.argv[1:3]
with gzip.open(f"{src}/corpus.jsonl.gz", "rt") as f, open(f"{work}/corpus.jsonl", "w") as out:
    for line in f:
        d = json.loads(line)
        out.write(json.dumps({"id": d["_id"], "title": d["title"], "abstract": d["text"]}) + "\n")
with open(f"{src}/queries.jsonl") as f, open(f"{work}/queries.txt", "w") as out:
    for line in f:
        out.write(" ".join(json.loads(line)["text"].split()) + "\n")
PY

rm -rf "$work/bench"
"$bin" bench --corpus "$work/corpus.jsonl" --queries "$work/queries.txt" --analyzer english \
  --peer tantivy --top 100 --dir "$work/bench" --format json > "$work/bench.json"

# The whole `run` process over the index bench built (BM25 only, top 100, as
# docs/EVALUATION.md's "BM25 only (top 100)" row runs it).
python3 - "$bin" "$work/bench/litindex.db" "$data/scifact/queries.jsonl" "$work/bench.json" <<'PY'
import json, os, statistics, subprocess, sys, time
bin_, db, queries, bench = sys.argv[1:5]
n = sum(1 for l in open(queries) if l.strip())
cmd = [bin_, "--db", db, "run", "--queries", queries, "--hops", "0", "--weights", "1,0,0",
       "--pool", "100", "--limit", "100", "--format", "trec"]
def timed(cmd):
    """Wall and CPU (user + sys) seconds of each of 3 runs."""
    runs = []
    for _ in range(3):
        t = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
        _, status, use = os.wait4(p.pid, 0)
        if status != 0:
            sys.exit(f"{' '.join(cmd)} failed")
        runs.append((time.perf_counter() - t, use.ru_utime + use.ru_stime))
    return runs
f = {x["name"]: x for x in json.load(open(bench))["figures"]}
per = lambda qps: 1000.0 / qps
print(f"queries: {n}; command: {' '.join(cmd)} > /dev/null")
# The default ranks on every core (`--threads`); one thread's run for comparison.
walls = []
for label, extra in (("", []), (" --threads 1", ["--threads", "1"])):
    runs = timed(cmd + extra)
    if not extra:
        walls = [w for w, _ in runs]
    print(f"litindex run process{label}: {statistics.median(w for w, _ in runs) * 1000 / n:.3f} ms/query wall, "
          f"{statistics.median(c for _, c in runs) * 1000 / n:.3f} ms/query CPU "
          f"(runs: {', '.join(f'{w:.2f} s wall {c:.2f} s CPU' for w, c in runs)})")
top = f["bm25_top100_qps"]
print(f"litindex in-process BM25 top-100: {per(top['litindex']):.3f} ms/query mean, "
      f"p50 {f['bm25_top100_p50']['litindex']:.3f} ms")
print(f"tantivy in-process BM25 top-100: {per(top['tantivy']):.3f} ms/query mean, "
      f"p50 {f['bm25_top100_p50']['tantivy']:.3f} ms "
      f"({f['tantivy_threads']['tantivy']:.0f} build threads, {f['tantivy_segments']['tantivy']:.0f} segments)")
print(f"run process / tantivy in-process: {statistics.median(walls) * 1000 / n / per(top['tantivy']):.2f}x")
print(f"top-1 agreement {f['top1_agreement']['tantivy']:.3f}, top-100 overlap {f['topk_overlap']['tantivy']:.3f} "
      f"over {f['agreement_queries']['tantivy']:.0f} queries")
PY
