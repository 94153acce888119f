#!/usr/bin/env python3
"""Compares the text each candidate PDF crate finds with poppler's pdftotext.

Input: DIR with NAME.poppler.txt (pdftotext default mode) and NAME.CRATE.tsv
(the dumps of scripts/pdf_crates/*/: page, x, y, size, [advance,] text).
Per crate: papers read without error, word recall against pdftotext (the
share of pdftotext's word tokens, as a multiset, the crate also has), the share
of the crate's words that pdftotext does not have (split or glued words,
wrong glyphs), and odd glyphs (U+FFFD, private use, control characters).
"""
import collections, os, re, sys, unicodedata

def words(text):
    text = unicodedata.normalize("NFKC", text).lower()
    return [w for w in re.split(r"[^0-9a-z\u00c0-\u024f]+", text) if w]

def odd(text):
    return sum(1 for c in text if c == "\ufffd" or 0xE000 <= ord(c) <= 0xF8FF or (ord(c) < 32 and c not in "\n\t"))

def text_of(path):
    rows = [l.rstrip("\n").split("\t") for l in open(path, encoding="utf-8", errors="replace")]
    if rows and rows[0][0] == "ERROR":
        return None
    out, last = [], None
    for r in rows:
        if len(r) == 6:  # a character with its advance (pdf-extract)
            page, x, y, size, adv, ch = r
            x, y, size, adv = float(x), float(y), float(size), float(adv)
            if last is not None:
                lp, lx_end, ly, lsize = last
                if lp != page or abs(y - ly) > lsize * 0.5:
                    out.append("\n")
                elif x > lx_end + lsize * 0.15:
                    out.append(" ")
            out.append(ch)
            last = (page, x + adv, y, size or 1.0)
        elif len(r) >= 5:  # a span (pdf_oxide)
            out.append(" " + "\t".join(r[4:]) + " ")
    return "".join(out)

def main(d):
    names = sorted(f[:-len(".poppler.txt")] for f in os.listdir(d) if f.endswith(".poppler.txt"))
    crates = sorted({f.split(".")[-2] for f in os.listdir(d) if f.endswith(".tsv")})
    for crate in crates:
        ok = 0; rec = []; extra = []; odds = 0; low = []
        for n in names:
            p = os.path.join(d, f"{n}.{crate}.tsv")
            if not os.path.exists(p):
                continue
            t = text_of(p)
            if t is None:
                low.append(f"{n}: error")
                continue
            ok += 1
            gold = collections.Counter(words(open(os.path.join(d, n + ".poppler.txt"), encoding="utf-8").read()))
            got = collections.Counter(words(t))
            inter = sum((gold & got).values())
            r = inter / max(1, sum(gold.values()))
            e = 1 - inter / max(1, sum(got.values()))
            rec.append(r); extra.append(e); odds += odd(t)
            if r < 0.9:
                low.append(f"{n}: recall {r:.3f}")
        m = lambda xs: sum(xs) / max(1, len(xs))
        print(f"{crate}: read {ok}/{len(names)}; word recall vs pdftotext mean {m(rec):.3f} min {min(rec, default=0):.3f}; "
              f"words not in pdftotext {m(extra):.3f}; odd glyphs {odds}")
        for l in low:
            print(f"  low: {l}")

if __name__ == "__main__":
    main(sys.argv[1])
