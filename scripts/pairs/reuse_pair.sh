#!/usr/bin/env bash
# usage: reuse_pair.sh DIR ROUNDS INDEX_DIR BIN_A BIN_B   `bench --reuse` over one index
# (DIR/INDEX_DIR/litindex.db, left by full.sh) with each binary in turns: the query figures only,
# no build. Each run's JSON report in DIR/reuse-ROUND-NAME.json (NAME: the binary's file name);
# wall and CPU, with the load before and after, in DIR/reuse.log. (reuse_own.sh with one index.)
set -euo pipefail
exec "$(dirname "$0")/reuse_own.sh" "$1" "$2" "$3" "$4" "$3" "$5"
