#!/usr/bin/env bash
# usage: reuse_own.sh DIR ROUNDS INDEX_A BIN_A INDEX_B BIN_B   `bench --reuse` with each binary
# in turns, each over its own index (DIR/INDEX_X/litindex.db, left by full.sh): for a change of
# the file's layout, where one binary cannot open the other's index (a newer schema is refused,
# an older one migrated). The query figures only, no build. Each run's JSON report in
# DIR/reuse-ROUND-NAME.json (NAME: the binary's file name); wall and CPU, with the load before
# and after, in DIR/reuse.log.
set -euo pipefail
dir=$(realpath "$1"); rounds=$2
ia=$3; a=$(realpath "$4"); ib=$5; b=$(realpath "$6")
cd "$dir"
for r in $(seq 1 "$rounds"); do
  for pair in "$ia $a" "$ib $b"; do
    set -- $pair
    index=$1 bin=$2 name=$(basename "$2")
    echo "$(date +%T) round $r $name before: $(cut -d' ' -f1-3 /proc/loadavg)" >> reuse.log
    /usr/bin/time -f "%e s wall, %U user, %S sys" -o reuse.time "$bin" bench --reuse --corpus corpus.jsonl \
      --queries queries.txt --analyzer plain --dir "$index" --format json > "reuse-$r-$name.json" 2> /dev/null
    echo "$(date +%T) round $r $name after: $(cut -d' ' -f1-3 /proc/loadavg) $(cat reuse.time)" >> reuse.log
  done
done
sleep 60; echo "$(date +%T) a minute after: $(cut -d' ' -f1-3 /proc/loadavg)" >> reuse.log
