#!/usr/bin/env python3
"""Which tables and indexes a write changed: compares two copies of one index
page by page (BEFORE: the file before the write; AFTER: the same file after it,
checkpointed) and names each changed page's object with `dbstat` (the sqlite3
command-line shell, on PATH).

    cp litindex.db before.db && cp litindex.db after.db
    litindex --db after.db ingest --quiet add1000.jsonl
    sqlite3 after.db "PRAGMA wal_checkpoint(TRUNCATE)"
    scripts/page_diff.py before.db after.db
"""
import collections
import subprocess
import sys


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    before, after = sys.argv[1:]
    page_size = int(subprocess.check_output(["sqlite3", after, "PRAGMA page_size"], text=True))
    names = {}
    out = subprocess.check_output(["sqlite3", after, "SELECT pageno, name FROM dbstat"], text=True)
    for line in out.splitlines():
        page, name = line.split("|", 1)
        names[int(page)] = name
    changed = collections.Counter()
    pages = 0
    with open(before, "rb") as a, open(after, "rb") as b:
        while True:
            x, y = a.read(page_size), b.read(page_size)
            if not y:
                break
            pages += 1
            if x != y:
                changed[names.get(pages, "(free or other)")] += 1
    print(f"pages {pages}, changed {sum(changed.values())}")
    for name, n in changed.most_common():
        print(f"{n:>8}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
