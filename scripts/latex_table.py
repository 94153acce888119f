#!/usr/bin/env python3
"""Writes src/cite/latex_commands.tsv: the LaTeX command -> Unicode table
that `latex::decode` reads, taken from pylatexenc (MIT licence, see
src/cite/LICENSE-pylatexenc): its latex2text macro table (text and math
symbols: \\textendash, \\mu, \\leq, ...) and, for commands that table lacks,
its latexencode Unicode -> LaTeX map read backwards.

Each line is `name<TAB>kind<TAB>text`: kind `s` is a symbol (the command
stands for `text`), kind `a` keeps its argument (a formatting command such
as \\textit or \\textsuperscript: the argument is the text), kind `d` drops
itself and its argument (\\hspace{1cm}). Escapes in
`text`: \\t, \\n, \\\\.

    python3 -m pip install --target target/refsuites-py pylatexenc==2.11
    PYTHONPATH=target/refsuites-py python3 scripts/latex_table.py
"""
import re
import sys
from pathlib import Path

import pylatexenc
from pylatexenc.latex2text import get_default_latex_context_db
from pylatexenc.latexencode import _uni2latexmap

SKIP = {"today"}  # the date of the run, not a symbol
# What litindex's own BibTeX export writes for the ASCII characters (cite::latex::escape)
# must read back as those characters; pylatexenc gives the spacing modifier letters.
OVERRIDES = {
    "textasciicircum": "^", "textasciitilde": "~", "textbackslash": "\\",
    # pylatexenc writes these through functions, not its table.
    "LaTeX": "LaTeX", "TeX": "TeX", "LaTeXe": "LaTeX2e", "BibTeX": "BibTeX",
}


def esc(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def main():
    table = {}
    for spec in get_default_latex_context_db().iter_macro_specs():
        name, repl = spec.macroname, spec.simplify_repl
        if name in SKIP or not re.fullmatch(r"[A-Za-z]+", name):
            continue
        if repl is None:
            # pylatexenc's default for a macro without text: its arguments are the text.
            table[name] = ("a", "")
        elif isinstance(repl, str):
            if repl == "":
                table[name] = ("d", "")
            elif "%" in repl:
                table[name] = ("a", "") if repl.strip() in ("%s", "%(1)s") else None
            else:
                table[name] = ("s", repl)
    for code, latex in sorted(_uni2latexmap.uni2latex.items()):
        m = re.fullmatch(r"\\([A-Za-z]+)(\{\})?|\{\\([A-Za-z]+)\}|\\ensuremath\{\\([A-Za-z]+)\}", latex)
        if not m:
            continue
        name = m.group(1) or m.group(3) or m.group(4)
        if name not in table and name not in SKIP:
            table[name] = ("s", chr(code))
    for name, text in OVERRIDES.items():
        table[name] = ("s", text)
    # `\begin{center}` / `\end{center}` in a field: the environment's name is not text.
    for name in ("begin", "end"):
        table[name] = ("d", "")
    out = Path(__file__).resolve().parent.parent / "src" / "cite" / "latex_commands.tsv"
    with open(out, "w", encoding="utf-8") as f:
        f.write(f"# LaTeX commands as Unicode, from pylatexenc {pylatexenc.version.version_str} (MIT); scripts/latex_table.py\n")
        for name in sorted(table):
            if table[name] is None:
                continue
            kind, text = table[name]
            f.write(f"{name}\t{kind}\t{esc(text)}\n")
    print(f"{out}: {sum(v is not None for v in table.values())} commands", file=sys.stderr)


if __name__ == "__main__":
    main()
