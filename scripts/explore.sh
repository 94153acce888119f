#!/usr/bin/env bash
# Reproduces the "Evidence sentences" and "Related papers" tables of
# docs/EVALUATION.md: builds SciFact and CACM with the english analyzer, runs
# `eval-evidence` on SciFact's train and dev claims, then
# scripts/related_eval.py on CACM.
# Usage: scripts/explore.sh [DATA_DIR] [WORK_DIR] [grid]   (defaults: ../shared/data, a temp dir)
# With `grid` as third argument, prints only the best five points of the evidence train grid.
# LITINDEX_BIN=path uses that binary instead of building the release one.
# With LITINDEX_MODEL_DIR set, also the rows with the sentence cosine (slow: it embeds every sentence).
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-../shared/data}
work=${2:-$(mktemp -d)}
mkdir -p "$work"
if [ -n "${LITINDEX_BIN:-}" ]; then bin=$LITINDEX_BIN; else cargo build --release --quiet; bin=target/release/litindex; fi
sci="$work/scifact-english.db"
cacm="$work/cacm-english.db"
[ -f "$sci" ] || $bin --db "$sci" ingest -q --analyzer english "$data/scifact/corpus.jsonl.gz" >/dev/null
[ -f "$cacm" ] || $bin --db "$cacm" ingest -q --analyzer english "$data/cacm/papers.jsonl" "$data/cacm/citations_directed.tsv" >/dev/null
orig="$data/scifact/original_format"

row() { # claims label flags...
  local claims=$1 label=$2; shift 2
  env -u LITINDEX_MODEL_DIR $bin --db "$sci" eval-evidence --claims "$orig/claims_$claims.jsonl" \
    --sentences "$orig/corpus_sentences.jsonl.gz" --format json "$@" |
    jq -r --arg c "$claims" --arg l "$label" --arg f "$*" \
      '"| \($c) | \($l) | \(.n) | \(."hit@1" * 10000 | round / 10000) | \(."hit@3" * 10000 | round / 10000) | `litindex --db scifact-english.db eval-evidence --claims claims_\($c).jsonl --sentences corpus_sentences.jsonl.gz \($f)` |"'
}

if [ "${3:-}" = grid ]; then # the train grids that chose the defaults: coverage context position k1 b hit@1 hit@3 sum
  grid() { # coverages contexts positions k1s bs (space-separated lists)
    for cov in $1; do for ctx in $2; do for pos in $3; do for k1 in $4; do for b in $5; do
      echo "$cov $ctx $pos $k1 $b $($bin --db "$sci" eval-evidence --claims "$orig/claims_train.jsonl" \
        --sentences "$orig/corpus_sentences.jsonl.gz" --format json --coverage $cov --context $ctx --position $pos --k1 $k1 --b $b |
        jq -r '"\(."hit@1") \(."hit@3")"')"
    done; done; done; done; done
  }
  { grid "0 0.1 0.2 0.3 0.5 0.75 1" "0.1 0.2 0.3" "0.4 0.5 0.6" "0.9 1.2" "0.3 0.5"
    grid "0.3 0.5 0.75" "0.3 0.4 0.5" "0.6 0.7 0.8" "0.9" "0.3 0.5"
  } | awk '{print $0, $6 + $7}' | sort -u | sort -k8,8g -k6,6g | tail -5
  exit 0
fi

echo "| claims | scorer | triples | Hit@1 | Hit@3 | command |"
echo "|---|---|---|---|---|---|"
for claims in train dev; do
  row $claims "sentence BM25 (k1 1.2, b 0.75), no priors" --k1 1.2 --b 0.75 --context 0 --position 0 --coverage 0
  row $claims "BM25 + context + position, no coverage (the previous defaults)" --k1 0.9 --b 0.3 --context 0.2 --position 0.5 --coverage 0
  row $claims "BM25 + context + position + coverage (the defaults)"
done
if [ -n "${LITINDEX_MODEL_DIR:-}" ]; then
  for claims in dev; do
    row $claims "the defaults + 0.5·sentence cosine (MiniLM)" --model-dir "$LITINDEX_MODEL_DIR"
  done
fi
echo
python3 scripts/related_eval.py "$bin" "$cacm" "$data/cacm"
