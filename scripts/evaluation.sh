#!/usr/bin/env bash
# Reproduces the tables of docs/EVALUATION.md: builds SciFact and CACM with
# each analyzer, then runs `litindex eval` for every row and prints Markdown.
# Usage: scripts/evaluation.sh [DATA_DIR] [WORK_DIR]   (defaults: ../shared/data, a temp dir)
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
print(f"| {coll} | {analyzer} | {label} | {d['ndcg@10']:.4f} | {d['recall@100']:.4f} | {d['mrr@10']:.4f} | {d['wall_time_s']:.2f} s | `{cmd}` |")
PY
}

echo "| collection | analyzer | retrieval | nDCG@10 | Recall@100 | MRR@10 | eval time | command |"
echo "|---|---|---|---|---|---|---|---|"
for coll in scifact cacm; do
  for analyzer in plain english; do
    row $coll $analyzer "BM25 only (top 100)" --hops 0 --weights 1,0,0 --pool 100
    row $coll $analyzer "two-pass, lesson (core defaults)"
    row $coll $analyzer "two-pass, lesson, pool 100" --pool 100
    row $coll $analyzer "two-pass, weighted (its defaults)" --graph-score weighted
  done
done
