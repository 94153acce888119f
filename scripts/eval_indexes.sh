# Sourced by scripts/evaluation.sh and scripts/feedback.sh: builds the release
# binary and the SciFact and CACM indexes, each with each analyzer, in $work
# (kept when already there). Sets $bin. Needs $data and $work.
mkdir -p "$work"
cargo build --release --quiet
bin=target/release/litindex
for analyzer in plain english; do
  [ -f "$work/scifact-$analyzer.db" ] || $bin --db "$work/scifact-$analyzer.db" ingest -q --analyzer $analyzer "$data/scifact/corpus.jsonl.gz" >/dev/null
  [ -f "$work/cacm-$analyzer.db" ] || $bin --db "$work/cacm-$analyzer.db" ingest -q --analyzer $analyzer \
    "$data/cacm/papers.jsonl" "$data/cacm/citations_directed.tsv" >/dev/null
done
