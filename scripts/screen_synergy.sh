#!/usr/bin/env bash
# Runs `litindex screen simulate` on the SYNERGY reviews in ../shared/data/synergy
# (5 seeds each, the priors of ASReview's anchor orders so both tools start from
# the same two records) and scores every order with ../shared/tools/screen_eval.py.
#
#   scripts/screen_synergy.sh OUT_DIR [REVIEW ...] [-- extra `screen simulate` flags]
#
# Prints, per review, the scorer's mean row; the orders stay in OUT_DIR/REVIEW/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
data=${SYNERGY_DIR:-$root/../shared/data/synergy}
bin=${LITINDEX:-$root/target/debug/litindex}
out=${1:?usage: screen_synergy.sh OUT_DIR [REVIEW ...] [-- flags]}
shift
reviews=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do reviews+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
[ ${#reviews[@]} -eq 0 ] && reviews=(Jeyaraman_2020 Meijboom_2021 Nelson_2002 Oud_2018 Sep_2021 van_der_Valk_2021)
[ -d "$data" ] || { echo "no SYNERGY data at $data (set SYNERGY_DIR)" >&2; exit 2; }
for r in "${reviews[@]}"; do
    "$bin" screen simulate --works "$data/$r/works.jsonl.gz" --labels "$data/$r/labels.csv" \
        --seeds 1..5 --out "$out/$r" --name "$r" \
        --priors-from "$data/anchor_asreview-3.0.8/${r}_s{seed}.txt" "$@" >/dev/null
    printf '%-18s ' "$r"
    python3 "$root/../shared/tools/screen_eval.py" "$data/$r/labels.csv" "$out/$r/${r}"_s*.txt --n-priors 2 --json |
        python3 "$root/scripts/screen_summary.py"
done
