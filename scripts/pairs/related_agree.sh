#!/usr/bin/env bash
# Whether two binaries' `related` answers agree, field for field: for N
# seed papers of DB (every K-th id, sorted), `related ID --method M --limit
# L --format json` with OLD and NEW, for methods text and both (METHODS to
# choose others); prints how many of the answers are identical and which
# are not.
# Usage: [METHODS="cocitation coupling"] scripts/pairs/related_agree.sh OLD NEW DB [N] [LIMIT]
set -euo pipefail
old=$1 new=$2 db=$3 n=${4:-30} limit=${5:-20}
total=$(sqlite3 "$db" "SELECT count(*) FROM papers")
step=$(( total / n > 0 ? total / n : 1 ))
same=0 all=0
while IFS= read -r id; do
  for m in ${METHODS:-text both}; do
    a=$("$old" --db "$db" related "$id" --method "$m" --limit "$limit" --format json)
    b=$("$new" --db "$db" related "$id" --method "$m" --limit "$limit" --format json)
    all=$((all + 1))
    if [ "$a" = "$b" ]; then
      same=$((same + 1))
    else
      echo "differs: $id $m" >&2
    fi
  done
done < <(sqlite3 "$db" "SELECT id FROM papers ORDER BY id" | awk -v s="$step" -v n="$n" 'NR % s == 0 && c < n {print; c++}')
echo "$same of $all answers identical"
