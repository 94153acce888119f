#!/bin/sh
# usage: q20.sh BIN DB QUERIES   runs `search` for queries 1, 11, ..., 191 of QUERIES
# (the CLI's defaults, 10 hits), output discarded: 20 whole search processes.
for i in $(seq 1 10 200); do
  "$1" --db "$2" search "$(sed -n ${i}p "$3")" --limit 10 > /dev/null
done
