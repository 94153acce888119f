#!/usr/bin/env bash
# Time per retrain-and-propose of the screening model at 1,000 and 10,000
# candidates. For a quiet machine and a release build: the numbers mean
# nothing on a loaded one (docs/SCREENING.md).
#
#   cargo build --release && scripts/screen_bench.sh OUT_DIR
#
# 1,000: SYNERGY's Jeyaraman_2020 (1,175 records; every step of one seed).
# 10,000: a `litindex gen` corpus of 10,000 papers with every 12th labelled
# included (the first 300 steps: the model trains on 2 … 301 decisions and
# scores the other ~9,700 at each).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${LITINDEX:-$root/target/release/litindex}
data=${SYNERGY_DIR:-$root/../shared/data/synergy}
out=${1:?usage: screen_bench.sh OUT_DIR}
mkdir -p "$out"
r=Jeyaraman_2020
"$bin" screen simulate --works "$data/$r/works.jsonl.gz" --labels "$data/$r/labels.csv" --seeds 1 \
    --out "$out/1k" --name "$r" --timings >/dev/null
"$bin" gen --papers 10000 --seed 7 > "$out/gen10k.jsonl"
python3 - "$out/gen10k.jsonl" "$out/gen10k_labels.csv" <<'PY'
import json, sys
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as o:
    o.write("id,label\n")
    for i, line in enumerate(f):
        o.write(f"{json.loads(line)['id']},{1 if i % 12 == 0 else 0}\n")
PY
"$bin" screen simulate --works "$out/gen10k.jsonl" --works-format paper --labels "$out/gen10k_labels.csv" \
    --seeds 1 --out "$out/10k" --name gen10k --max-steps 300 --timings >/dev/null
