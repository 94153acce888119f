#!/usr/bin/env python3
"""Times `litindex search` as a process, two binaries side by side on one index.

For each query of QUERIES (one per line), runs `OLD --db DB search Q --limit 10
--format json` and the same with NEW, alternating which goes first, after
one warm-up pass; prints the p50 and p90 wall time of each in milliseconds.
Used for docs/PERFORMANCE.md, "Evidence snippets at 1M".

Usage: scripts/search_ab.py OLD NEW DB QUERIES [ROUNDS]
"""
import statistics
import subprocess
import sys
import time

old, new, db, queries = sys.argv[1:5]
rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 3
qs = [q.strip() for q in open(queries) if q.strip()]


def once(binary, q):
    start = time.perf_counter()
    subprocess.run([binary, "--db", db, "search", q, "--limit", "10", "--format", "json"],
                   check=True, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - start) * 1000


for q in qs:  # warm-up: the page cache, for both
    once(old, q)
    once(new, q)
times = {old: [], new: []}
for r in range(rounds):
    for i, q in enumerate(qs):
        pair = (old, new) if (i + r) % 2 == 0 else (new, old)
        for b in pair:
            times[b].append(once(b, q))
for name, b in (("old", old), ("new", new)):
    t = sorted(times[b])
    p90 = t[int(0.9 * (len(t) - 1))]
    print(f"{name}: {len(t)} runs, p50 {statistics.median(t):.1f} ms, p90 {p90:.1f} ms  ({b})")
