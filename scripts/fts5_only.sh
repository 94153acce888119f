#!/usr/bin/env bash
# FTS5's build alone, at a size where litindex's own build would not fit on
# the disk beside it (the 10M run of docs/PERFORMANCE.md): `bench --peer
# fts5` builds FTS5 first, and this stops the bench when litindex's build
# begins (its temporary file appears). Prints FTS5's build wall time, the
# bench process's CPU time up to then, the load before and after, and the
# file's size.
# Usage: scripts/fts5_only.sh CORPUS QUERIES DIR   (LITINDEX_BIN: the binary)
set -euo pipefail
corpus=$1 queries=$2 dir=$3
bin=${LITINDEX_BIN:-target/release/litindex}
mkdir -p "$dir"
echo "load before: $(uptime)"
start=$(date +%s.%N)
"$bin" bench --corpus "$corpus" --queries "$queries" --analyzer plain --peer fts5 --dir "$dir" \
  --format json > "$dir/bench.json" 2> "$dir/bench.err" &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
  if compgen -G "$dir/.litindex-build-*" > /dev/null; then
    end=$(date +%s.%N)
    # utime and stime of the bench process, in clock ticks.
    read -r ut st < <(awk '{print $14, $15}' "/proc/$pid/stat")
    kill "$pid"
    wait "$pid" || true
    rm -f "$dir"/.litindex-build-*
    tick=$(getconf CLK_TCK)
    echo "load after: $(uptime)"
    python3 -c "print(f'FTS5 build: {$end - $start:.1f} s wall, {$ut / $tick:.1f} s user + {$st / $tick:.1f} s sys')"
    echo "FTS5 file: $(stat -c %s "$dir/fts5.db") bytes"
    exit 0
  fi
  sleep 0.5
done
echo "the bench ended before litindex's build began: see $dir/bench.err" >&2
exit 1
