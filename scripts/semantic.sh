#!/usr/bin/env bash
# Reproduces the "Semantic recall" table of docs/EVALUATION.md: builds SciFact
# and CACM with the english analyzer, embeds them (SciFact with --chunks, for
# --rerank), then runs `litindex eval` for every row and prints Markdown.
# Usage: scripts/semantic.sh [DATA_DIR] [WORK_DIR]   (defaults: ../shared/data, a temp dir)
# Needs LITINDEX_MODEL_DIR (README, "Semantic search"). Embedding SciFact with
# its chunks takes the better part of an hour on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${LITINDEX_MODEL_DIR:?set LITINDEX_MODEL_DIR to the model directory (README, Semantic search)}"
data=${1:-../shared/data}
work=${2:-$(mktemp -d)}
mkdir -p "$work"
cargo build --release --quiet
bin=target/release/litindex

[ -f "$work/scifact-english.db" ] || $bin --db "$work/scifact-english.db" ingest -q --analyzer english "$data/scifact/corpus.jsonl.gz" >/dev/null
[ -f "$work/cacm-english.db" ] || $bin --db "$work/cacm-english.db" ingest -q --analyzer english \
  "$data/cacm/papers.jsonl" "$data/cacm/citations_directed.tsv" >/dev/null
$bin --db "$work/scifact-english.db" embed -q --chunks >&2
$bin --db "$work/cacm-english.db" embed -q >&2

row() { # collection label qrels flags...
  local coll=$1 label=$2 qrels=$3; shift 3
  local json
  json=$($bin --db "$work/$coll-english.db" eval --queries "$data/$coll/queries.jsonl" --qrels "$qrels" --format json "$@")
  EVAL_JSON="$json" python3 - "$coll" "$label" "$*" <<'PY'
import json, os, sys
coll, label, flags = sys.argv[1:4]
d = json.loads(os.environ["EVAL_JSON"])
cmd = f"litindex --db {coll}-english.db eval --queries … --qrels … {flags}".strip()
print(f"| {coll} | {label} | {d['ndcg@10']:.4f} | {d['recall@100']:.4f} | {d['mrr@10']:.4f} | {d['wall_time_s']:.2f} s | `{cmd}` |")
PY
}

s="$data/scifact/qrels/test.tsv"
c="$data/cacm/qrels.tsv"
flat="--hops 0 --weights 1,0,0 --pool 100"
echo "| collection | retrieval | nDCG@10 | Recall@100 | MRR@10 | eval time | command |"
echo "|---|---|---|---|---|---|---|"
# An embedded index searches hybrid by default (issue 22): the BM25 rows say --mode bm25.
row scifact "BM25 (reference)" "$s" $flat --mode bm25
row scifact "dense" "$s" $flat --mode dense
row scifact "hybrid rrf" "$s" $flat --mode hybrid --fusion rrf
row scifact "hybrid minmax" "$s" $flat --mode hybrid --fusion minmax
row scifact "hybrid rrf + rerank 100" "$s" $flat --mode hybrid --fusion rrf --rerank 100
row scifact "hybrid minmax + rerank 100" "$s" $flat --mode hybrid --fusion minmax --rerank 100
row cacm "BM25 + graph, weighted (reference)" "$c" --graph-score weighted --mode bm25
row cacm "defaults (issue 22: hybrid minmax, weighted)" "$c"
row cacm "dense" "$c" $flat --mode dense
row cacm "hybrid rrf" "$c" $flat --mode hybrid --fusion rrf
row cacm "hybrid minmax" "$c" $flat --mode hybrid --fusion minmax
row cacm "dense + graph, weighted" "$c" --graph-score weighted --mode dense
row cacm "hybrid rrf + graph, weighted" "$c" --graph-score weighted --mode hybrid --fusion rrf
row cacm "hybrid minmax + graph, weighted" "$c" --graph-score weighted --mode hybrid --fusion minmax
