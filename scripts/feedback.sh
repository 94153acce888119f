#!/usr/bin/env bash
# Reproduces the feedback tables of docs/EVALUATION.md ("Feedback"): builds
# CACM and SciFact with each analyzer, splits CACM's judged queries by the
# parity of their id (odd: tuning, even: held out), then
#   grid  — the tuning grid of --feedback-terms / --feedback-beta / --feedback-near
#           on CACM's odd queries (residual nDCG@10 with and without feedback);
#   rows  — `eval --feedback first-relevant` with the defaults on every split.
# Both were measured with the search defaults before issue 22 (by-hops, the
# pool of --top-k); every row names them (`$old`), so the figures reproduce.
# The "new defaults" rows run without them (weighted on CACM, pool 100).
# Usage: scripts/feedback.sh [grid|rows] [DATA_DIR] [WORK_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-rows}
data=${2:-../shared/data}
work=${3:-$(mktemp -d)}
. scripts/eval_indexes.sh
# The split: the header line, then the judgments of odd (even) query ids.
awk -F'\t' 'NR == 1 || $1 % 2 == 1' "$data/cacm/qrels.tsv" > "$work/cacm-odd.tsv"
awk -F'\t' 'NR == 1 || $1 % 2 == 0' "$data/cacm/qrels.tsv" > "$work/cacm-even.tsv"

fb() { # collection analyzer split flags...
  local coll=$1 analyzer=$2 split=$3; shift 3
  local q="$data/$coll/queries.jsonl" qrels
  case $coll-$split in
    scifact-*) qrels="$data/scifact/qrels/test.tsv" ;;
    cacm-all) qrels="$data/cacm/qrels.tsv" ;;
    cacm-*) qrels="$work/cacm-$split.tsv" ;;
  esac
  $bin --db "$work/$coll-$analyzer.db" eval --queries "$q" --qrels "$qrels" --format json --feedback first-relevant "$@"
}

table() { # collection analyzer split label flags...
  local coll=$1 analyzer=$2 split=$3 label=$4; shift 4
  EVAL_JSON="$(fb "$coll" "$analyzer" "$split" "$@")" python3 - "$coll" "$analyzer" "$split" "$label" "$*" <<'PY'
import json, os, sys
coll, analyzer, split, label, flags = sys.argv[1:6]
d = json.loads(os.environ["EVAL_JSON"]); n = d["no_feedback"]
rel = (d["ndcg@10"] / n["ndcg@10"] - 1) * 100 if n["ndcg@10"] else 0.0
qrels = {"scifact": "qrels/test.tsv", "cacm": {"all": "qrels.tsv", "odd": "cacm-odd.tsv", "even": "cacm-even.tsv"}.get(split)}[coll]
cmd = f"litindex --db {coll}-{analyzer}.db eval --queries queries.jsonl --qrels {qrels} --feedback first-relevant {flags}".strip()
print(f"| {coll} | {analyzer} | {split} ({d['queries']} q, {d['feedback']['marked_queries']} marked) | {label} | "
      f"{d['ndcg@10']:.4f} | {n['ndcg@10']:.4f} | {rel:+.1f} % | {d['recall@100']:.4f} | {n['recall@100']:.4f} | `{cmd}` |")
PY
}

old=(--graph-score by-hops --pool 10)
echo "| collection | analyzer | queries | feedback | residual nDCG@10 | without | change | residual Recall@100 | without | command |"
echo "|---|---|---|---|---|---|---|---|---|---|"
if [ "$what" = grid ]; then
  for analyzer in plain english; do
    for t in 10 20 40; do for beta in 0.5 1 2 4; do for near in 0 0.2 0.4; do
      table cacm $analyzer odd "terms $t, β $beta, γ $near" "${old[@]}" --feedback-terms $t --feedback-beta $beta --feedback-near $near
    done; done; done
  done
else
  for analyzer in plain english; do
    for split in odd even all; do
      table cacm $analyzer $split "defaults (expansion + walk + closeness), old search defaults" "${old[@]}"
    done
    table cacm $analyzer all "expansion only, old search defaults" "${old[@]}" --feedback-near 0 --feedback-walk off
    table cacm $analyzer all "expansion + walk (γ 0), old search defaults" "${old[@]}" --feedback-near 0
    table cacm $analyzer all "walk + closeness only, old search defaults" "${old[@]}" --feedback-terms 0
    table scifact $analyzer all "defaults (expansion + walk + closeness), old search defaults" "${old[@]}"
  done
  table cacm english all "defaults, new search defaults (weighted, pool 200)"
  table scifact english all "defaults, new search defaults (by-hops, pool 100)"
fi
