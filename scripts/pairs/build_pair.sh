#!/usr/bin/env bash
# usage: build_pair.sh DIR ROUNDS BIN_A BIN_B   builds of DIR/c100k.jsonl (the first 100,000
# papers of the 1M corpus), the two binaries in turns; wall, CPU, peak RSS and file size in DIR/builds.log
set -euo pipefail
dir=$(realpath "$1"); rounds=$2; a=$(realpath "$3"); b=$(realpath "$4")
cd "$dir"
for r in $(seq 1 "$rounds"); do
  for bin in "$a" "$b"; do
    rm -rf b100k; mkdir b100k
    echo "$(date +%T) round $r $bin before: $(cut -d' ' -f1-3 /proc/loadavg)" >> builds.log
    /usr/bin/time -f "%e s wall, %U user, %S sys, %M KB" -o build.time "$bin" --db b100k/l.db build --quiet --analyzer plain --jsonl c100k.jsonl
    echo "$(date +%T) round $r $bin after: $(cut -d' ' -f1-3 /proc/loadavg) $(cat build.time) $(stat -c %s b100k/l.db) bytes" >> builds.log
  done
done
rm -rf b100k
sleep 60; echo "$(date +%T) a minute after: $(cut -d' ' -f1-3 /proc/loadavg)" >> builds.log
