#!/usr/bin/env bash
# The time a researcher waits per decision in a live review, at 1,000 and
# 10,000 candidates (docs/SCREENING.md): `screen next` as a process (the
# features are built and the model trained from zero in every call), and the
# screening page of `litindex serve`, which keeps the review's model between
# decisions (`screen::next::Models`), loaded after each decision recorded by
# another process (`screen label`). For a quiet machine and a release build.
#
#   cargo build --release && scripts/screen_live_bench.sh OUT_DIR [DECISIONS_PAGE]
#
# 1,000: SYNERGY's Jeyaraman_2020 (1,175 records), 600 decisions imported (a
# fixed shuffle of its labels). 10,000: a `litindex gen` corpus of 10,000
# papers, every 12th included, 300 decisions imported. Then, per size: five
# `screen next -n 10` processes (wall, and user + sys from /usr/bin/time),
# the page's first load, and DECISIONS_PAGE (default 20) decisions each
# followed by a page load (curl's total time).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${LITINDEX:-$root/target/release/litindex}
data=${SYNERGY_DIR:-$root/../shared/data/synergy}
out=${1:?usage: screen_live_bench.sh OUT_DIR [DECISIONS_PAGE]}
steps=${2:-20}
port=${PORT:-8479}
mkdir -p "$out"
r=Jeyaraman_2020

# Index, review and decisions of each size; LABELS: every candidate's label.
rm -f "$out/k1.db" "$out/k10.db"
"$bin" ingest -q --db "$out/k1.db" "$data/$r/works.jsonl.gz" >/dev/null
tail -n +2 "$data/$r/labels.csv" > "$out/k1.labels"
"$bin" gen --papers 10000 --seed 7 > "$out/gen10k.jsonl" 2>/dev/null
"$bin" ingest -q --db "$out/k10.db" --format paper "$out/gen10k.jsonl" >/dev/null
python3 - "$out" "$data/$r/labels.csv" <<'PY'
import csv, json, random, sys
out, labels = sys.argv[1], sys.argv[2]
k1 = [(r[0], r[1]) for r in list(csv.reader(open(labels)))[1:]]
with open(f"{out}/gen10k.jsonl") as f:
    k10 = [(json.loads(l)["id"], "1" if i % 12 == 0 else "0") for i, l in enumerate(f)]
for name, rows, n in (("k1", k1, 600), ("k10", k10, 300)):
    random.Random(1).shuffle(rows)
    with open(f"{out}/{name}.import.csv", "w") as o:
        o.write("id,label\n")
        o.writelines(f"{i},{y}\n" for i, y in rows[:n])
    with open(f"{out}/{name}.rest.csv", "w") as o:
        o.writelines(f"{i},{y}\n" for i, y in rows[n:])
PY
for k in k1 k10; do
    db="$out/$k.db"
    "$bin" screen new --db "$db" "$k" --all >/dev/null
    "$bin" screen import --db "$db" "$k" "$out/$k.import.csv" >/dev/null
    echo "== $k: screen next -n 10, one process each (wall s, user s, sys s)"
    for _ in 1 2 3 4 5; do
        /usr/bin/time -f "%e %U %S" "$bin" screen next --db "$db" "$k" -n 10 2>&1 >/dev/null | tail -1
    done
    echo "== $k: the page (litindex serve): first load, then a load after each decision (s)"
    "$bin" serve --db "$db" --port "$port" >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.2; done
    curl -s -o /dev/null -w "first %{time_total}\n" "http://127.0.0.1:$port/screen?review=$k"
    head -n "$steps" "$out/$k.rest.csv" | while IFS=, read -r id y; do
        d=exclude; [ "$y" = 1 ] && d=include
        "$bin" screen label --db "$db" "$k" "$id" "$d" >/dev/null
        curl -s -o /dev/null -w "%{time_total}\n" "http://127.0.0.1:$port/screen?review=$k"
    done | python3 -c "
import statistics, sys
t = [float(x) * 1000 for x in sys.stdin]
print(f'after a decision: n {len(t)}  mean {statistics.mean(t):.1f} ms  median {statistics.median(t):.1f} ms  max {max(t):.1f} ms')"
    kill "$pid"; wait "$pid" 2>/dev/null || true
done
