#!/usr/bin/env bash
# usage: add_pair.sh DIR ROUNDS "BIN_A INDEX_DIR_A" "BIN_B INDEX_DIR_B"   +1,000 papers
# (DIR/add1000.jsonl) into a fresh, synced copy of each binary's own 1M index (INDEX_DIR/litindex.db),
# in turns; wall, CPU and peak RSS in DIR/adds.log. Needs room for one more copy of the index.
set -euo pipefail
dir=$(realpath "$1"); rounds=$2; a=$3; b=$4
cd "$dir"
for r in $(seq 1 "$rounds"); do
  for pair in "$a" "$b"; do
    set -- $pair
    rm -f add.db add.db-wal add.db-shm
    cp "$2/litindex.db" add.db; sync; sleep 20
    echo "$(date +%T) round $r $1 before: $(cut -d' ' -f1-3 /proc/loadavg)" >> adds.log
    /usr/bin/time -f "%e s wall, %U user, %S sys, %M KB" -o add.time "$1" --db add.db ingest --quiet add1000.jsonl
    echo "$(date +%T) round $r $1 after: $(cut -d' ' -f1-3 /proc/loadavg) $(cat add.time)" >> adds.log
  done
done
rm -f add.db add.db-wal add.db-shm
sleep 60; echo "$(date +%T) a minute after: $(cut -d' ' -f1-3 /proc/loadavg)" >> adds.log
