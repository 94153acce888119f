#!/usr/bin/env bash
# Proves two litindex builds rank alike: each binary builds its own indexes
# (its own storage layout) of a `gen` corpus (20k papers, seed 11, plain, its 200
# queries), SciFact (english) and CACM with its citation graph (plain and
# english), answers every query through `run --format jsonl` (depth 100) and
# `search --format json --limit 100`, without and with the citation walk, and
# the answers are compared per query: ranked ids, hit_count and every score
# (|old - new| <= 1e-9, absolute). Prints a summary; exits 1 on a mismatch.
# Usage: scripts/compare-rankings.sh OLD_BIN NEW_BIN [WORK_DIR] [DATA_DIR]
#   (defaults: a temp dir, removed afterwards; ../shared/data). A WORK_DIR
#   given is kept, and indexes already in it are reused.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 OLD_BIN NEW_BIN [WORK_DIR] [DATA_DIR]" >&2
  exit 2
fi
old=$(realpath "$1") new=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
data=$(realpath "${4:-$here/../../shared/data}")
for f in "$old" "$new"; do [ -x "$f" ] || { echo "compare-rankings: $f is not an executable" >&2; exit 2; }; done
for f in scifact/corpus.jsonl.gz scifact/queries.jsonl cacm/papers.jsonl cacm/citations_directed.tsv cacm/queries.jsonl; do
  [ -f "$data/$f" ] || { echo "compare-rankings: $data/$f is missing (pass DATA_DIR)" >&2; exit 2; }
done
if [ -n "${3:-}" ]; then
  work=$3
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
python3 "$here/compare_rankings.py" "$old" "$new" "$work" "$data"
