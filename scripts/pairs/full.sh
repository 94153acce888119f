#!/usr/bin/env bash
# usage: full.sh DIR TAG BIN   a whole `bench --peer fts5` run at 1M into DIR/TAG (built from
# DIR/corpus.jsonl), its JSON report in DIR/TAG.json, wall and CPU in DIR/TAG.time, load in DIR/pairs.log
set -euo pipefail
dir=$(realpath "$1"); tag=$2; b=$(realpath "$3")
cd "$dir"
rm -rf "$tag"; mkdir "$tag"
echo "$(date +%T) full $tag before: $(cut -d' ' -f1-3 /proc/loadavg)" >> pairs.log
/usr/bin/time -f "%e s wall, %U user, %S sys, %M KB" -o "$tag.time" "$b" bench --corpus corpus.jsonl \
  --queries queries.txt --analyzer plain --dir "$tag" --peer fts5 --format json > "$tag.json" 2> "$tag.err"
echo "$(date +%T) full $tag after: $(cut -d' ' -f1-3 /proc/loadavg) $(cat "$tag.time")" >> pairs.log
sleep 60
echo "$(date +%T) a minute after: $(cut -d' ' -f1-3 /proc/loadavg)" >> pairs.log
