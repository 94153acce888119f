#!/usr/bin/env bash
# Runs each cargo-fuzz target for N executions (default 10,000,000), the PDF
# reader seeded with the dev PDFs and their pages (scripts/fuzz_pdf_seeds.py).
# Needs nightly Rust, cargo-fuzz and, for the pages, pikepdf:
#   rustup toolchain install nightly && cargo install cargo-fuzz
#   python3 -m pip install pikepdf
#   scripts/fuzz.sh [RUNS] [TARGET...]      (default targets: pdf_reader and
#                                            every other target in fuzz/;
#                                            bibtex_reader, ris_reader and
#                                            csl_json_reader seeded with
#                                            ../shared/data/refsuites)
# FUZZ_JOBS=N runs N fuzzing processes of RUNS executions each, sharing the
# corpus (libFuzzer's -jobs; each one's log is fuzz/fuzz-K.log): on 2 cores,
# FUZZ_JOBS=2 with RUNS 5,000,000 is 10M executions in about half the time.
# A crash is saved under fuzz/artifacts/TARGET/ and the script exits non-zero.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
runs="${1:-10000000}"
shift || true
cd "$root/fuzz"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi
pdfs="$root/../shared/data/pdfs"
# The reference-library readers start from the peers' test files (issue 24).
refsuites="$root/../shared/data/refsuites"
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t"
  # Real reference entries and bodies (fuzz/seeds/refs_parse, contexts_find).
  if [ -d "seeds/$t" ]; then
    cp -n "seeds/$t"/* "corpus/$t/" 2>/dev/null || true
  fi
  if [ "$t" = pdf_reader ]; then
    [ -d "$pdfs" ] || { echo "fuzz.sh: $pdfs is missing (the dev PDFs seed pdf_reader)" >&2; exit 1; }
    # The whole files (cut at -max_len below) and each page on its own,
    # without font programs and images: a few kilobytes each, which the
    # fuzzer reads 75 times as fast as the whole files (docs/FULLTEXT.md,
    # "Fuzzing").
    cp -n "$pdfs"/*.pdf "corpus/$t/" 2>/dev/null || true
    python3 "$root/scripts/fuzz_pdf_seeds.py" "$pdfs" "corpus/$t/pages" 65536
    cp -n "corpus/$t/pages"/*.pdf "corpus/$t/" && rm -r "corpus/$t/pages"
  fi
  case "$t" in
    bibtex_reader) seed=bibtex ;;
    ris_reader) seed=ris ;;
    csl_json_reader) seed=csl-json ;;
    *) seed= ;;
  esac
  if [ -n "$seed" ] && [ -d "$refsuites/$seed" ]; then
    cp -n "$refsuites/$seed"/* "corpus/$t/" 2>/dev/null || true
  fi
  max_len=65536
  jobs=()
  [ -n "${FUZZ_JOBS:-}" ] && jobs=(-jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS")
  echo "== $t: $runs runs${FUZZ_JOBS:+ in each of $FUZZ_JOBS jobs}"
  # Without AddressSanitizer and without comparison tracing: the code fuzzed
  # has no `unsafe`, so what is sought is a panic (an abort libFuzzer
  # reports as a crash). With both on, 57 % of a profile's samples were in
  # the comparison-tracing hooks, mostly inside the encoding detector
  # (chardetng): 233 executions a second, too slow for 10M. `FUZZ_FLAGS`
  # overrides.
  # shellcheck disable=SC2086
  cargo +nightly fuzz run "$t" ${FUZZ_FLAGS:--O -s none --no-trace-compares} -- \
    -runs="$runs" -max_len="$max_len" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 "${jobs[@]}"
done
