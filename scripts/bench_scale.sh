#!/usr/bin/env bash
# One size of the scale benchmark (issue 25), every engine in one run, on a
# quiet machine: litindex, FTS5 and tantivy through `litindex bench`, then
# PISA and Lucene through scripts/peers_pisa.py on the same corpus and
# queries, then the incremental add of 1,000 papers to litindex's index.
# The load average is printed before and after each step and each step's
# CPU time (user + sys) beside its wall time (/usr/bin/time), so a figure
# taken under load can be told from one that was not.
#
# Usage: scripts/bench_scale.sh PAPERS OUT_DIR [BIN]
#   PAPERS   corpus size, e.g. 1000000
#   OUT_DIR  where the corpus, the indexes and the JSON reports go (kept:
#            `litindex bench --reuse --dir OUT_DIR/bench` times again)
#   BIN      a `--features tantivy` release build (default target/release/litindex)
# Build first: cargo build --release --features tantivy
set -euo pipefail
cd "$(dirname "$0")/.."
papers=${1:?usage: scripts/bench_scale.sh PAPERS OUT_DIR [BIN]}
out=${2:?usage: scripts/bench_scale.sh PAPERS OUT_DIR [BIN]}
bin=$(realpath "${3:-target/release/litindex}")
mkdir -p "$out"
out=$(realpath "$out")
seed=11

load() { echo "load $(cut -d' ' -f1-3 /proc/loadavg) ($1)" | tee -a "$out/load.txt" >&2; }
timed() { # NAME CMD...: runs CMD, its wall, user, sys and peak RSS into OUT_DIR/NAME.time
  local name=$1; shift
  load "before $name"
  /usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KB peak RSS" -o "$out/$name.time" "$@"
  cat "$out/$name.time" >&2
  load "after $name"
}

if [ ! -s "$out/corpus.jsonl" ]; then
  "$bin" gen --papers "$papers" --seed "$seed" --queries "$out/queries.txt" > "$out/corpus.jsonl"
fi
# 1,000 new papers citing the corpus's: gen's ids renamed (g… → n…), their references kept.
"$bin" gen --papers 1000 --seed 7 | sed 's/"id": *"g/"id": "n/' > "$out/add1000.jsonl"

rm -rf "$out/bench"
timed bench "$bin" bench --corpus "$out/corpus.jsonl" --queries "$out/queries.txt" --analyzer plain \
  --peer fts5,tantivy --tantivy-threads 1 --dir "$out/bench" --format json > "$out/bench.json"
rm -rf "$out/peers"
timed peers scripts/peers_pisa.py --corpus "$out/corpus.jsonl" --queries "$out/queries.txt" --analyzer plain \
  --top 10 --dir "$out/peers" --format json > "$out/peers.json"
cp "$out/bench/litindex.db" "$out/add.db"
# The copy's gigabytes are written back before the add is timed (without
# this, the kernel's writeback of the copy ran during the add and was
# counted in it: 4.42 s at 1M, against 1.9-2.8 s for the same binary after
# a sync).
sync
sleep 20
timed add1000 "$bin" --db "$out/add.db" ingest --quiet "$out/add1000.jsonl"
rm -f "$out/add.db" "$out/add.db-wal" "$out/add.db-shm"
echo "reports: $out/bench.json $out/peers.json $out/*.time $out/load.txt"
