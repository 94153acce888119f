#!/usr/bin/env bash
# Reproduces the tables of docs/EVALUATION.md: builds SciFact and CACM with
# each analyzer, then runs `litindex eval` for every row and prints Markdown.
# Usage: scripts/evaluation.sh [DATA_DIR] [WORK_DIR]   (defaults: ../shared/data, a temp dir)
#
# The first rows of each collection are the defaults of issue 22 (no flags:
# on an index without vectors, BM25 first; `weighted` when the index holds
# citation links, by-hops otherwise; pool 100, eval's depth). The rows marked
# "(old defaults)" name every flag the old defaults set (`--graph-score
# by-hops --pool 10`, the pool of --top-k), so they reproduce the figures
# measured before the change. "eval time" is not measured (a loaded machine:
# timings would mean nothing); set EVAL_TIME=1 to print it anyway.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-../shared/data}
work=${2:-$(mktemp -d)}
. scripts/eval_indexes.sh

row() { # collection analyzer label flags...
  local coll=$1 analyzer=$2 label=$3; shift 3
  local q="$data/$coll/queries.jsonl" qrels="$data/$coll/qrels.tsv"
  [ "$coll" = scifact ] && qrels="$data/scifact/qrels/test.tsv"
  local json
  json=$($bin --db "$work/$coll-$analyzer.db" eval --queries "$q" --qrels "$qrels" --format json "$@")
  EVAL_JSON="$json" python3 - "$coll" "$analyzer" "$label" "$*" <<'PY'
import json, os, sys
coll, analyzer, label, flags = sys.argv[1:5]
d = json.loads(os.environ["EVAL_JSON"])
cmd = f"litindex --db {coll}-{analyzer}.db eval --queries … --qrels … {flags}".strip()
t = f"{d['wall_time_s']:.2f} s" if os.environ.get("EVAL_TIME") == "1" else "not measured"
print(f"| {coll} | {analyzer} | {label} | {d['ndcg@10']:.4f} | {d['recall@100']:.4f} | {d['mrr@10']:.4f} | {t} | `{cmd}` |")
PY
}

echo "| collection | analyzer | retrieval | nDCG@10 | Recall@100 | MRR@10 | eval time | command |"
echo "|---|---|---|---|---|---|---|---|"
for coll in scifact cacm; do
  graph=by-hops
  [ "$coll" = cacm ] && graph=weighted
  for analyzer in english plain; do
    row $coll $analyzer "defaults (issue 22: bm25, $graph, pool ≥ 100)"
    row $coll $analyzer "BM25 only (top 100)" --hops 0 --weights 1,0,0 --pool 100 --graph-score by-hops --mode bm25
    row $coll $analyzer "two-pass, lesson (old defaults)" --graph-score by-hops --pool 10 --mode bm25
    row $coll $analyzer "two-pass, lesson, pool 100" --graph-score by-hops --pool 100 --mode bm25
    row $coll $analyzer "two-pass, weighted (its defaults)" --graph-score weighted --mode bm25
  done
done
