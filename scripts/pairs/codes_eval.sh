#!/usr/bin/env bash
# The ranking change of int8 codes (schema 21) on SciFact and CACM: builds and
# embeds each collection with OLD (an f32 binary, schema 20 or before), copies
# the index for NEW (which migrates it, writing the codes), and runs the same
# `eval` rows with each, printing nDCG@10, Recall@100 and MRR@10 side by side.
# Usage: scripts/pairs/codes_eval.sh OLD_BIN NEW_BIN WORK [DATA_DIR]
# Needs LITINDEX_MODEL_DIR. Embedding both takes about 5 minutes on 2 cores.
set -euo pipefail
old=$1 new=$2 work=$3
data=${4:-$(cd "$(dirname "$0")/../.." && pwd)/../shared/data}
: "${LITINDEX_MODEL_DIR:?set LITINDEX_MODEL_DIR to the model directory}"
mkdir -p "$work"
if [ ! -f "$work/scifact-old.db" ]; then
  "$old" --db "$work/scifact-old.db" ingest -q --analyzer english "$data/scifact/corpus.jsonl.gz" >/dev/null
  "$old" --db "$work/scifact-old.db" embed -q >&2
fi
if [ ! -f "$work/cacm-old.db" ]; then
  "$old" --db "$work/cacm-old.db" ingest -q --analyzer english "$data/cacm/papers.jsonl" "$data/cacm/citations_directed.tsv" >/dev/null
  "$old" --db "$work/cacm-old.db" embed -q >&2
fi
for c in scifact cacm; do
  cp "$work/$c-old.db" "$work/$c-new.db"
  "$new" --db "$work/$c-new.db" check >/dev/null || { echo "check failed on $c-new.db" >&2; exit 1; }
done
row() { # collection label qrels flags...
  local coll=$1 label=$2 qrels=$3; shift 3
  local a b
  a=$("$old" --db "$work/$coll-old.db" eval --queries "$data/$coll/queries.jsonl" --qrels "$qrels" --format json "$@")
  b=$("$new" --db "$work/$coll-new.db" eval --queries "$data/$coll/queries.jsonl" --qrels "$qrels" --format json "$@")
  A="$a" B="$b" python3 - "$coll" "$label" <<'PY'
import json, os, sys
coll, label = sys.argv[1:3]
a, b = json.loads(os.environ["A"]), json.loads(os.environ["B"])
cells = []
for m in ("ndcg@10", "recall@100", "mrr@10"):
    cells.append(f"{a[m]:.4f} → {b[m]:.4f} ({b[m] - a[m]:+.6f})")
print(f"| {coll} | {label} | " + " | ".join(cells) + " |")
PY
}
s="$data/scifact/qrels/test.tsv"
c="$data/cacm/qrels.tsv"
flat="--hops 0 --weights 1,0,0 --pool 100"
echo "| collection | retrieval | nDCG@10 old → new | Recall@100 | MRR@10 |"
echo "|---|---|---|---|---|"
row scifact "dense" "$s" $flat --mode dense
row scifact "hybrid rrf" "$s" $flat --mode hybrid --fusion rrf
row scifact "hybrid minmax" "$s" $flat --mode hybrid --fusion minmax
row scifact "defaults (hybrid minmax, walk)" "$s"
row cacm "dense" "$c" $flat --mode dense
row cacm "defaults (hybrid minmax, weighted walk)" "$c"
row cacm "dense + graph, weighted" "$c" --graph-score weighted --mode dense
row cacm "hybrid rrf + graph, weighted" "$c" --graph-score weighted --mode hybrid --fusion rrf
row cacm "hybrid minmax + graph, weighted" "$c" --graph-score weighted --mode hybrid --fusion minmax
