#!/usr/bin/env bash
# usage: web10.sh PORT MODE [QUERY]   ten searches of the web page of a running `litindex serve --port PORT`,
# one after the other (QUERY default "blam num", query 21 of the 1M corpus; MODE hybrid, dense or bm25);
# fails on the first answer that is not 200. Paired with farm-bench against a second server of another
# binary over the same index (docs/PERFORMANCE.md, "The model loaded once per process, and the web page's
# one search"); the servers' own CPU is /proc/PID/stat's utime + stime before and after.
set -euo pipefail
port=${1:?usage: web10.sh PORT MODE [QUERY]}
mode=${2:?usage: web10.sh PORT MODE [QUERY]}
query=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote_plus(sys.argv[1]))' "${3:-blam num}")
for _ in 1 2 3 4 5 6 7 8 9 10; do
  curl -s -f -o /dev/null "http://127.0.0.1:$port/?q=$query&mode=$mode"
done
