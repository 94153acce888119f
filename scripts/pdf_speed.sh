#!/usr/bin/env bash
# PDF ingest speed (issue 23): pages per second per core for extraction +
# indexing, beside poppler's pdftotext (text extraction only) over the same
# files; the whole folder ingested on 1 core and on 2; peak RSS. For a quiet
# machine and a release build: the load average is printed before and after
# each step, and each step's CPU time (user + sys) beside its wall time.
#
#   cargo build --release && scripts/pdf_speed.sh [PDF_DIR] [OUT_DIR]
#
# Each ingest is into a fresh index (`litindex --db OUT/N.db ingest PDF_DIR`,
# rayon's pool sized by RAYON_NUM_THREADS); pdftotext runs file by file on one
# core. Pages are pdfinfo's count. Needs poppler-utils (pdftotext, pdfinfo).
set -euo pipefail
cd "$(dirname "$0")/.."
pdfs=$(realpath "${1:-../shared/data/pdfs}")
out=${2:-$(mktemp -d)}
bin=$(realpath "${LITINDEX_BIN:-target/release/litindex}")
mkdir -p "$out"
command -v pdftotext >/dev/null || { echo "pdftotext is needed (apt-get install poppler-utils)" >&2; exit 2; }

pages=0
files=0
for f in "$pdfs"/*.pdf; do
  n=$(pdfinfo "$f" 2>/dev/null | awk '/^Pages:/ {print $2}')
  pages=$((pages + ${n:-0}))
  files=$((files + 1))
done
echo "$files files, $pages pages (pdfinfo)"

load() { echo "load $(cut -d' ' -f1-3 /proc/loadavg) ($1)"; }
report() { # NAME TIMEFILE: the step's figures and its pages per CPU second
  read -r wall user sys rss < "$2"
  awk -v n="$1" -v p="$pages" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" 'BEGIN {
    printf "%-22s %7.2f s wall %7.2f s user %6.2f s sys %8.1f MiB peak RSS  %7.1f pages/s wall  %7.1f pages per CPU second\n",
      n, w, u, s, r / 1024, p / w, p / (u + s) }'
}
step() { # NAME CMD...
  local name=$1; shift
  load "before $name"
  /usr/bin/time -f "%e %U %S %M" -o "$out/$name.time" "$@" > /dev/null
  load "after $name"
  report "$name" "$out/$name.time"
}

pdftotext_all() { for f in "$pdfs"/*.pdf; do pdftotext "$f" - > /dev/null 2>&1 || true; done; }
step pdftotext bash -c "$(declare -f pdftotext_all); pdfs='$pdfs'; pdftotext_all"
for threads in 1 2; do
  rm -f "$out/t$threads.db"*
  step "litindex-${threads}-thread" env RAYON_NUM_THREADS=$threads "$bin" --db "$out/t$threads.db" ingest --quiet --skip-invalid "$pdfs"
done
