#!/usr/bin/env bash
# Compares candidate PDF crates' text with poppler's pdftotext on the dev PDFs
# (docs/FULLTEXT.md, "Choosing the PDF reader"). Builds the two small dump
# programs in scripts/pdf_crates/{extract,oxide} (each its own workspace and
# target dir, outside the main build), dumps every PDF's glyphs or spans,
# runs pdftotext, and prints per crate: papers read, word recall against
# pdftotext, words pdftotext does not have, odd glyphs.
#   scripts/pdf_crates.sh [PDF_DIR] [OUT_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
pdfs="${1:-$here/../../shared/data/pdfs}"
out="${2:-${TMPDIR:-/tmp}/pdf_crates}"
mkdir -p "$out"
command -v pdftotext >/dev/null || { echo "pdftotext (poppler-utils) is needed as the anchor" >&2; exit 1; }
for crate in extract oxide; do
  (cd "$here/pdf_crates/$crate" && CARGO_TARGET_DIR="$out/target-$crate" cargo build -q)
done
for f in "$pdfs"/*.pdf; do
  b="$(basename "$f" .pdf)"
  pdftotext "$f" "$out/$b.poppler.txt" 2>/dev/null || true
  timeout 120 "$out/target-extract/debug/cmp-extract" "$f" > "$out/$b.extract.tsv" 2>/dev/null || echo "ERROR	exit $?" > "$out/$b.extract.tsv"
  timeout 120 "$out/target-oxide/debug/cmp-oxide" "$f" > "$out/$b.oxide.tsv" 2>/dev/null || echo "ERROR	exit $?" > "$out/$b.oxide.tsv"
done
python3 "$here/pdf_crates/compare.py" "$out"
