#!/usr/bin/env python3
"""What the peers' parsers read from the files of ../shared/data/refsuites/
(bibtex/, ris/, csl-json/) and what litindex reads, entry by entry and field
by field (title, authors in order, year, DOI, venue, abstract).

    python3 scripts/refsuites.py [--refsuites DIR] [--bin target/debug/litindex] [--json OUT]

Peers, pip-installed by this script into target/refsuites-py (pinned):
  - BibTeX: bibtexparser 2.1.0 with its SeparateCoAuthors, SplitNameParts and
    LatexDecodingMiddleware (pylatexenc 2.11); a file its own test suite
    reads in a legacy encoding is read in it (gbk_test.bib: GBK).
  - RIS: rispy 0.10.0 (`rispy.load`, its default RIS parser).
  - CSL-JSON: Python's json and jsonschema 4.26.0 with the official CSL-JSON
    schema (tests/data/csl/csl-data.json): the peer reads the items that are
    valid against it (a file that is one object is read as one item).
litindex: the real binary ingests each file into a fresh index
(`--skip-invalid`), and `export --format csl-json` gives what it stored.

Both sides go through the same field choice (litindex's documented one:
title `title` / RIS TI, T1; venue journal, journaltitle, booktitle / JO,
JF, T2, JA / container-title; year: the first four-digit run of year, else
date / PY, Y1, DA / issued) and the same normalisation before comparing:
Unicode NFC, case folded, whitespace collapsed, braces and `$` the peer left
removed, soft hyphens removed, en/em dashes and curly quotes as typed by
either side compared equal to their ASCII forms only where the peer left the
ASCII form (`--` -> en dash); names are compared as their words of letters
and digits, in order ("Given von Last Jr"); a DOI lowercased without its
https://doi.org/ prefix. A field counts when both sides have a value.

Entries are matched by their key (BibTeX key, RIS ID, CSL id; a key litindex
made unique for a second work is matched in order), else by DOI, else by
position among the unmatched.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = ROOT / "target" / "refsuites-py"
PINS = ["bibtexparser==2.1.0", "pylatexenc==2.11", "rispy==0.10.0", "jsonschema==4.26.0"]
SCHEMA = ROOT / "tests" / "data" / "csl" / "csl-data.json"
PEER_ENCODING = {"python-bibtexparser__gbk_test.bib": "gbk"}
FIELDS = ["title", "authors", "year", "doi", "venue", "abstract"]


def install():
    stamp = PY / ".pins"
    if stamp.exists() and stamp.read_text() == "\n".join(PINS):
        return
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--target", str(PY), *PINS], check=True)
    stamp.write_text("\n".join(PINS))


# ---------------------------------------------------------------- normalisation


def norm_text(s):
    if s is None:
        return ""
    s = unicodedata.normalize("NFC", str(s))
    # A LaTeX command either side left undecoded: its name is not text.
    s = re.sub(r"\\[A-Za-z]+", "", s)
    s = s.replace("\u00ad", "")
    s = re.sub(r"[{}$]", "", s)
    s = s.replace("---", "\u2014").replace("--", "\u2013").replace("``", "\u201c").replace("''", "\u201d")
    s = s.replace("\u00a0", " ")
    return " ".join(s.split()).casefold()


def norm_name(s):
    s = unicodedata.normalize("NFC", s or "").casefold()
    s = re.sub(r"\\[A-Za-z]+", "", s)
    return " ".join(w for w in re.split(r"[^\w]+", s) if w)


def year_of(*values):
    for v in values:
        if v is None:
            continue
        m = re.search(r"(?<!\d)(\d{4})(?!\d)", str(v))
        if m:
            return m.group(1)
    return None


def norm_doi(s):
    if not s:
        return None
    s = str(s).strip().lower()
    s = re.sub(r"^(https?://(dx\.)?doi\.org/|doi:)", "", s)
    return s or None


def entry(key, title=None, authors=(), year=None, doi=None, venue=None, abstract=None):
    return {
        "key": key,
        "title": norm_text(title) or None,
        "authors": [n for n in (norm_name(a) for a in authors) if n] or None,
        "year": year,
        "doi": norm_doi(doi),
        "venue": norm_text(venue) or None,
        "abstract": norm_text(abstract) or None,
    }


# ---------------------------------------------------------------- peers


def peer_bibtex(path):
    import bibtexparser
    import bibtexparser.middlewares as m

    enc = PEER_ENCODING.get(path.name, "utf-8")
    text = path.read_text(encoding=enc)
    # Decoding first (braced groups kept, so `{Barnes and Noble}` stays one name), then the names split.
    stack = [m.LatexDecodingMiddleware(keep_braced_groups=True), m.SeparateCoAuthors(), m.SplitNameParts()]
    lib = bibtexparser.parse_string(text, append_middleware=stack)
    out = []
    for e in lib.entries:
        f = {k.lower(): v.value for k, v in e.fields_dict.items()}
        names = []
        for n in f.get("author") or []:
            if hasattr(n, "first"):
                names.append(" ".join(n.first + n.von + n.last + n.jr))
            else:
                names.append(str(n))
        names = [n for n in names if n.strip().lower() != "others"]
        venue = next((f[k] for k in ("journal", "journaltitle", "booktitle") if f.get(k)), None)
        out.append(entry(e.key, f.get("title"), names, year_of(f.get("year")) if f.get("year") else year_of(f.get("date")),
                         f.get("doi"), venue, f.get("abstract")))
    failed = [type(b).__name__ for b in lib.failed_blocks]
    return out, failed


def peer_ris(path):
    import rispy

    with open(path, encoding="utf-8-sig") as fh:
        try:
            records = rispy.load(fh)
        except Exception as e:  # rispy refuses the file
            return [], [f"{type(e).__name__}: {e}"]
    out = []
    for r in records:
        first = lambda *ks: next((r[k] for k in ks if r.get(k)), None)
        authors = list(r.get("authors") or []) + list(r.get("first_authors") or [])
        names = []
        for a in authors:
            last, _, given = a.partition(",")
            names.append(f"{given.strip()} {last.strip()}".strip())
        urls = r.get("urls") or []
        out.append(entry(r.get("id"), first("title", "primary_title"), names,
                         year_of(first("year", "publication_year", "date")), first("doi"),
                         first("journal_name", "alternate_title3", "secondary_title", "alternate_title2"),
                         first("abstract", "notes_abstract")))
    return out, []


def csl_names(item):
    out = []
    for n in item.get("author") or []:
        if not isinstance(n, dict):
            continue
        if n.get("literal"):
            out.append(n["literal"])
            continue
        parts = [n.get("given"), n.get("dropping-particle"), n.get("non-dropping-particle"), n.get("family"), n.get("suffix")]
        out.append(" ".join(p for p in parts if isinstance(p, str) and p))
    return out


def csl_year(item):
    d = item.get("issued")
    if isinstance(d, str):
        return year_of(d)
    if isinstance(d, dict):
        parts = d.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            return year_of(parts[0][0])
        return year_of(d.get("raw"), d.get("literal"))
    return None


def peer_csl(path):
    import jsonschema

    schema = json.loads(SCHEMA.read_text())
    item_schema = dict(schema["items"], **{"$schema": schema["$schema"]})
    if "definitions" in schema:
        item_schema["definitions"] = schema["definitions"]
    validator = jsonschema.Draft7Validator(item_schema)
    try:
        doc = json.loads(path.read_text(encoding="utf-8-sig"))
    except ValueError as e:
        return [], [f"not JSON: {e}"]
    items = doc if isinstance(doc, list) else [doc]
    out, refused = [], []
    for it in items:
        errors = sorted(validator.iter_errors(it), key=lambda e: list(e.path))
        if errors:
            where = "/".join(str(p) for p in errors[0].path) or "item"
            refused.append(f"schema: {where}: {errors[0].message[:80]}")
            continue
        key = it.get("citation-key") or it.get("id")
        out.append(entry(str(key), it.get("title"), csl_names(it), csl_year(it), it.get("DOI"),
                         it.get("container-title"), it.get("abstract")))
    return out, refused


# ---------------------------------------------------------------- litindex


def litindex(binary, path):
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "i.db")
        o = subprocess.run([binary, "--db", db, "ingest", "-q", "--skip-invalid", str(path)], capture_output=True, text=True)
        refusals = [l.split("litindex: skipped ", 1)[1] for l in o.stderr.splitlines() if "litindex: skipped " in l]
        notes = [l.split("note: ", 1)[1] for l in o.stderr.splitlines() if "note: " in l]
        if o.returncode != 0:
            err = o.stderr.strip().splitlines()
            return [], refusals or [err[-1] if err else f"exit {o.returncode}"], notes, 0
        m = re.search(r"(\d+) repeated", o.stdout)
        repeated = int(m.group(1)) if m else 0
        e = subprocess.run([binary, "--db", db, "export", "--format", "csl-json"], capture_output=True, text=True)
        items = json.loads(e.stdout or "[]")
    out = []
    for it in items:
        names = [n for n in csl_names(it) if n != "et al."]
        out.append(entry(it.get("citation-key") or it.get("id"), it.get("title"), names, csl_year(it), it.get("DOI"),
                         it.get("container-title"), it.get("abstract")))
    return out, refusals, notes, repeated


# ---------------------------------------------------------------- comparison


def match(peer, ours):
    pairs, left = [], list(ours)
    by_key = {}
    for o in left:
        by_key.setdefault(str(o["key"]), []).append(o)
    unmatched = []
    for p in peer:
        cands = by_key.get(str(p["key"])) if p["key"] is not None else None
        if not cands and p["key"] is not None:
            # A key litindex made unique for a second work (`key-2`).
            cands = [o for o in left if re.fullmatch(re.escape(str(p["key"])) + r"-\d+", str(o["key"]))]
        if cands:
            o = cands.pop(0)
            left.remove(o)
            for lst in by_key.values():
                if o in lst:
                    lst.remove(o)
            pairs.append((p, o))
        else:
            unmatched.append(p)
    still = []
    for p in unmatched:
        o = next((o for o in left if p["doi"] and o["doi"] == p["doi"]), None)
        if o is None:
            # Matched by its title: the title is then not compared.
            o = next((o for o in left if p["title"] and o["title"] == p["title"]), None)
            if o is not None:
                p = dict(p, title=None)
        if o is None and left:
            o = left[0]
        if o is None:
            still.append(p)
            continue
        left.remove(o)
        pairs.append((p, o))
    return pairs, still, left


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--refsuites", default=str(ROOT.parent / "shared" / "data" / "refsuites"))
    ap.add_argument("--bin", default=str(ROOT / "target" / "debug" / "litindex"))
    ap.add_argument("--json", help="write the per-file results here")
    args = ap.parse_args()
    install()
    sys.path.insert(0, str(PY))
    base = Path(args.refsuites)
    if not base.is_dir():
        sys.exit(f"no refsuites folder at {base}")
    readers = {"bibtex": peer_bibtex, "ris": peer_ris, "csl-json": peer_csl}
    rows, totals = [], {"peer": 0, "ours": 0, "repeated": 0, "missing": 0, "extra": 0, "agree": 0, "both": 0}
    per_field = {f: [0, 0] for f in FIELDS}
    diffs = []
    for folder, read in readers.items():
        for path in sorted((base / folder).iterdir()):
            peer, peer_refused = read(path)
            ours, refusals, notes, repeated = litindex(args.bin, path)
            pairs, missing, extra = match(peer, ours)
            agree = both = 0
            for p, o in pairs:
                for f in FIELDS:
                    if p[f] is None or o[f] is None:
                        continue
                    both += 1
                    per_field[f][1] += 1
                    if p[f] == o[f]:
                        agree += 1
                        per_field[f][0] += 1
                    else:
                        diffs.append((path.name, p["key"], f, p[f], o[f]))
            rows.append({
                "file": f"{folder}/{path.name}", "peer": len(peer), "ours": len(ours), "repeated": repeated,
                # A record repeated word for word (the same id) is folded into its first: not missing.
                "missing": max(0, len(missing) - repeated), "extra": len(extra),
                "agree": agree, "both": both, "peer_refused": peer_refused, "refusals": refusals, "notes": notes,
            })
            totals["peer"] += len(peer)
            totals["ours"] += len(ours)
            totals["missing"] += max(0, len(missing) - repeated)
            totals["repeated"] += repeated
            totals["extra"] += len(extra)
            totals["agree"] += agree
            totals["both"] += both
    print("| file | entries peer | papers litindex | repeats folded | peer's not in | fields agree | refusals (litindex; peer) |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for r in rows:
        ref = "; ".join(x.split(": ", 1)[-1].replace(str(base) + "/", "") for x in r["refusals"]) or "—"
        ref = ref.replace(" ; pass --format", "; pass --format")
        pref = "; ".join(r["peer_refused"])
        if pref:
            ref += f" (peer: {pref})"
        frac = f"{r['agree']}/{r['both']}" if r["both"] else "—"
        print(f"| {r['file']} | {r['peer']} | {r['ours']} | {r['repeated']} | {r['missing']} | {frac} | {ref} |")
    t = totals
    rate = t["agree"] / t["both"] if t["both"] else 0.0
    print(f"| **all {len(rows)} files** | {t['peer']} | {t['ours']} | {t['repeated']} | {t['missing']} | {t['agree']}/{t['both']} = {rate:.4f} | |")
    print()
    print(f"litindex papers no peer entry matched: {t['extra']}")
    print()
    print("| field | agree/both | rate |")
    print("|---|---:|---:|")
    for f, (a, b) in per_field.items():
        print(f"| {f} | {a}/{b} | {a / b if b else 0:.4f} |")
    print()
    print(f"{len(diffs)} differing fields:")
    for d in diffs:
        print(f"  {d[0]} [{d[1]}] {d[2]}: peer {d[3]!r} / litindex {d[4]!r}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "totals": totals, "per_field": per_field, "diffs": diffs}, indent=1))


if __name__ == "__main__":
    main()
