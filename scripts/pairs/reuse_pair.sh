#!/usr/bin/env bash
# usage: reuse_pair.sh DIR ROUNDS INDEX_DIR BIN_A BIN_B   `bench --reuse` over one index
# (DIR/INDEX_DIR/litindex.db, left by full.sh) with each binary in turns: the query figures only,
# no build. Each run's JSON report in DIR/reuse-ROUND-NAME.json (NAME: the binary's file name);
# wall and CPU, with the load before and after, in DIR/reuse.log.
set -euo pipefail
dir=$(realpath "$1"); rounds=$2; index=$3
a=$(realpath "$4"); b=$(realpath "$5")
cd "$dir"
for r in $(seq 1 "$rounds"); do
  for bin in "$a" "$b"; do
    name=$(basename "$bin")
    echo "$(date +%T) round $r $name before: $(cut -d' ' -f1-3 /proc/loadavg)" >> reuse.log
    /usr/bin/time -f "%e s wall, %U user, %S sys" -o reuse.time "$bin" bench --reuse --corpus corpus.jsonl \
      --queries queries.txt --analyzer plain --dir "$index" --format json > "reuse-$r-$name.json" 2> /dev/null
    echo "$(date +%T) round $r $name after: $(cut -d' ' -f1-3 /proc/loadavg) $(cat reuse.time)" >> reuse.log
  done
done
sleep 60; echo "$(date +%T) a minute after: $(cut -d' ' -f1-3 /proc/loadavg)" >> reuse.log
