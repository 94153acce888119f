#!/usr/bin/env python3
"""Reads screen_eval.py --json rows on stdin; prints the mean and spread over the runs."""
import json
import statistics as st
import sys

rows = [json.loads(line) for line in sys.stdin if line.strip()]
runs = [r for r in rows if r["order"] != "mean"]
w = [r["wss95"] for r in runs]
rc = [r["recall@0.1"] for r in runs]
n95 = st.mean(r["n95"] for r in runs)
n100 = st.mean(r["n100"] for r in runs)
print(f"wss95 {st.mean(w):.3f} (sd {st.pstdev(w):.3f})  recall@10% {st.mean(rc):.3f} (sd {st.pstdev(rc):.3f})  "
      f"n95 {n95:.1f}  n100 {n100:.1f}  runs {len(runs)}")
