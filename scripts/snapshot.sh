#!/usr/bin/env bash
# Saves the outputs a refactoring must not change, so that two binaries can
# be compared with `diff -r`: TREC runs and eval figures on SciFact (english)
# and CACM (plain; by-hops and weighted graph scores), `search --format json`
# for 20 queries on the mock corpus, `stats --format json`, and a sqlite3 dump
# of the mock index. Timings and build times are blanked.
# Usage: scripts/snapshot.sh BINARY OUT_DIR [DATA_DIR]   (DATA_DIR: ../shared/data)
set -euo pipefail
bin=$(realpath "$1")
out=$2
data=$(realpath "${3:-$(dirname "$0")/../../shared/data}")
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

untimed() { # blanks every timing field of JSON on stdin
  python3 -c '
import json, sys
def strip(v):
    if isinstance(v, dict):
        return {k: (None if k in ("wall_time_ms", "wall_time_s", "built_at", "db") else strip(x)) for k, x in v.items()}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v
print(json.dumps(strip(json.load(sys.stdin)), indent=1, sort_keys=True))'
}

# The mock corpus.
"$bin" --db "$work/mock.db" build >/dev/null
queries=("sparse attention" "retrieval augmented generation" "low-rank adapters" "dataset distillation"
  "evaluation harness" "block routing" "attention heads pruning" "long context" "kv cache" "adapter merging"
  "synthetic data" "benchmark contamination" "dense retriever" "gradient matching" "speech recognition"
  "language models" "kernels" "survey" "p005" "zzzz nothing matches")
i=0
for q in "${queries[@]}"; do
  i=$((i + 1))
  "$bin" --db "$work/mock.db" search "$q" --format json --limit 30 | untimed >"$out/mock-search-$i.json"
done
"$bin" --db "$work/mock.db" search "sparse attention" --graph-score weighted --format json | untimed >"$out/mock-search-weighted.json"
"$bin" --db "$work/mock.db" stats --format json | untimed >"$out/mock-stats.json"
"$bin" --db "$work/mock.db" paper p005 --format json >"$out/mock-paper-p005.json"
"$bin" --db "$work/mock.db" neighbors p005 --hops 2 --format json >"$out/mock-neighbors-p005.json"
sqlite3 "$work/mock.db" .dump | sed -E "s/(INSERT INTO index_meta VALUES\(.*,)'[^']*'\)/\1'BUILT_AT')/" >"$out/mock-dump.sql"

# SciFact, english.
"$bin" --db "$work/scifact.db" ingest -q --analyzer english "$data/scifact/corpus.jsonl.gz" >/dev/null
"$bin" --db "$work/scifact.db" run --queries "$data/scifact/queries.jsonl" --format trec >"$out/scifact-english.trec"
"$bin" --db "$work/scifact.db" eval --queries "$data/scifact/queries.jsonl" --qrels "$data/scifact/qrels/test.tsv" \
  --format json | untimed >"$out/scifact-english-eval.json"
"$bin" --db "$work/scifact.db" stats --format json | untimed >"$out/scifact-stats.json"

# CACM, plain, with its citation graph.
"$bin" --db "$work/cacm.db" ingest -q "$data/cacm/papers.jsonl" "$data/cacm/citations_directed.tsv" >/dev/null
for gs in lesson weighted; do
  "$bin" --db "$work/cacm.db" run --queries "$data/cacm/queries.jsonl" --format trec --graph-score $gs >"$out/cacm-$gs.trec"
  "$bin" --db "$work/cacm.db" eval --queries "$data/cacm/queries.jsonl" --qrels "$data/cacm/qrels.tsv" \
    --graph-score $gs --format json | untimed >"$out/cacm-$gs-eval.json"
done
"$bin" --db "$work/cacm.db" stats --format json | untimed >"$out/cacm-stats.json"
echo "snapshot of $bin in $out: $(ls "$out" | wc -l) files"
