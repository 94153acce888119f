#!/usr/bin/env bash
# Reproduces the measured figures of docs/DISTRIBUTED.md on one OpenSearch
# node (the test launcher in tests/opensearch-node, heap 512 MiB) on
# 127.0.0.1: a synthetic corpus of N papers (`litindex gen`, ~20 references
# per paper, hubs cited thousands of times), the bulk load's throughput, and
# the cost of a search on the backend by walk depth, next to the local index.
# Usage: [QUERIES=50] scripts/opensearch_bench.sh [N] [WORK_DIR]   (defaults: 20000 papers, 50 queries, a temp dir)
# LITINDEX_BIN names the binary (default target/release/litindex, built if absent).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-20000}
queries=${QUERIES:-50}
work=${2:-$(mktemp -d)}
bin=${LITINDEX_BIN:-target/release/litindex}
[ -x "$bin" ] || cargo build --release --quiet
[ -f tests/opensearch-node/target/classpath.txt ] || (cd tests/opensearch-node && mvn -q -B package dependency:build-classpath)
rm -rf "$work/home" && mkdir -p "$work/home"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
coproc NODE { exec java -Xms512m -Xmx512m -XX:+UseSerialGC \
  -cp "tests/opensearch-node/target/classes:$(cat tests/opensearch-node/target/classpath.txt)" \
  litindex.TestNode "$work/home" "$port" >"$work/node.log" 2>&1; }
trap 'kill "$NODE_PID" 2>/dev/null || true' EXIT
start=$(date +%s.%N)
until curl -sf "127.0.0.1:$port/_cluster/health" >/dev/null; do sleep 0.5; done
echo "node up in $(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')") s"
[ -f "$work/synth.jsonl" ] || "$bin" gen --papers "$n" --seed 7 --queries "$work/q.txt" --num-queries "$queries" >"$work/synth.jsonl"
[ -f "$work/synth.db" ] || "$bin" --db "$work/synth.db" ingest -q "$work/synth.jsonl" >/dev/null
rm -rf "$work/os"
"$bin" --db "$work/synth.db" export --format opensearch --index synth -o "$work/os" --upload "127.0.0.1:$port"
curl -s "127.0.0.1:$port/_cat/indices/synth?h=docs.count,store.size&format=json"; echo
python3 - "$work/q.txt" "$work/q.jsonl" <<'PY'
import json, sys
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as out:
    for i, line in enumerate(f):
        out.write(json.dumps({"_id": f"q{i}", "text": line.strip()}) + "\n")
PY
backend="opensearch://127.0.0.1:$port/synth"
timed() { # label args...: wall time per query of `run` over the queries
  local label=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  "$bin" --db "$work/synth.db" run --queries "$work/q.jsonl" --format jsonl --limit 100 "$@" >"$work/run.jsonl"
  t1=$(date +%s.%N)
  python3 -c "print(f'$label: {($t1 - $t0) * 1000 / $queries:.1f} ms per query')"
}
for hops in 0 1 2; do
  timed "local, hops $hops" --hops "$hops"
  timed "opensearch exact, hops $hops" --hops "$hops" --backend "$backend"
  timed "opensearch lucene, hops $hops" --hops "$hops" --backend "$backend" --backend-scores lucene
  # The merged set's size (what the walk reached) over the first 20 queries.
  head -20 "$work/q.txt" | while read -r q; do
    "$bin" --db "$work/synth.db" search "$q" --hops "$hops" --format json --limit 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["hit_count"])'
  done | python3 -c "import sys; v=[int(x) for x in sys.stdin]; print(f'hops $hops: merged set {sum(v)/len(v):.0f} papers on average (max {max(v)})')"
done
