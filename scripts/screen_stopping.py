#!/usr/bin/env python3
"""Where the knee stopping rule (src/screen/status.rs) would stop on simulated
orders, and the recall reached there.

    python3 scripts/screen_stopping.py LABELS.csv ORDER.txt [ORDER.txt ...]

For each order (priors first, then the rest as shown): the first point s at
which the rule says stop, the share screened, and the recall of the
inclusions outside the two priors. Mirrors `knee()` in status.rs.
"""
import csv
import sys

# --threshold T: a fixed slope-ratio threshold (the unadjusted knee method: 6) instead of 156 - min(r, 150).
THRESHOLD = None


def knee_stops(seq, undecided):
    s = len(seq)
    cum = [0]
    for x in seq:
        cum.append(cum[-1] + x)
    rs = cum[s]
    if undecided == 0:
        return True
    if rs == 0 or s < 2:
        return False
    best, bi = None, 1
    for i in range(1, s):
        d = cum[i] - i * rs / s
        if best is None or d > best:
            best, bi = d, i
    ratio = (cum[bi] / bi) / ((rs - cum[bi]) + 1.0) * (s - bi)
    threshold = THRESHOLD if THRESHOLD is not None else 156 - min(rs, 150)
    return s >= 150 and ratio >= threshold


def main():
    global THRESHOLD
    if sys.argv[1] == "--threshold":
        THRESHOLD = float(sys.argv[2])
        del sys.argv[1:3]
    with open(sys.argv[1], newline="") as f:
        labels = {r["openalex_id"]: int(r["label_included"]) for r in csv.DictReader(f)}
    for path in sys.argv[2:]:
        order = [l.strip() for l in open(path) if l.strip()]
        seq = [labels[i] for i in order]
        n, r_all = len(seq), sum(seq[2:])
        stop = next((s for s in range(2, n + 1) if knee_stops(seq[:s], n - s)), n)
        found = sum(seq[2:stop])
        print(f"{path}: stops at {stop} of {n} ({stop / n:.0%} screened), recall {found / r_all:.3f}")


if __name__ == "__main__":
    main()
