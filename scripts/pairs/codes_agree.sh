#!/usr/bin/env bash
# How often a search over int8 codes (schema 21) shows the same hits as the
# f32 scan before it: runs the first N queries of QUERIES with OLD on OLD_DB
# and NEW on NEW_DB (the same index, NEW's migrated), in dense and hybrid
# mode, --limit 10, and counts the queries whose ten ids (in order) and
# scores agree, and the largest difference of a shown final score.
# Usage: scripts/pairs/codes_agree.sh OLD OLD_DB NEW NEW_DB QUERIES [N]
# Needs LITINDEX_MODEL_DIR.
set -euo pipefail
old=$1 old_db=$2 new=$3 new_db=$4 queries=$5 n=${6:-20}
for mode in dense hybrid; do
  same_ids=0 same_scores=0 total=0 worst=0
  while IFS= read -r q; do
    a=$("$old" --db "$old_db" search "$q" --mode "$mode" --limit 10 --format json)
    b=$("$new" --db "$new_db" search "$q" --mode "$mode" --limit 10 --format json)
    r=$(A="$a" B="$b" python3 -c '
import json, os
a, b = json.loads(os.environ["A"])["ranked"], json.loads(os.environ["B"])["ranked"]
ids = [h["id"] for h in a] == [h["id"] for h in b]
scores = ids and all(x["final_score"] == y["final_score"] for x, y in zip(a, b))
diff = max((abs(x["final_score"] - y["final_score"]) for x, y in zip(a, b)), default=0.0)
print(int(ids), int(scores), diff)')
    read -r i sc d <<< "$r"
    total=$((total + 1))
    same_ids=$((same_ids + i))
    same_scores=$((same_scores + sc))
    worst=$(python3 -c "print(max($worst, $d))")
  done < <(head -n "$n" "$queries")
  echo "$mode: $total queries, top 10 ids the same in $same_ids, and every final score too in $same_scores; largest final-score difference $worst"
done
