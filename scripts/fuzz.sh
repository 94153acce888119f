#!/usr/bin/env bash
# Runs each cargo-fuzz target for N executions (default 10,000,000), the PDF
# reader seeded with the dev PDFs. Needs nightly Rust and cargo-fuzz:
#   rustup toolchain install nightly && cargo install cargo-fuzz
#   scripts/fuzz.sh [RUNS] [TARGET...]      (default targets: pdf_reader and
#                                            every other target in fuzz/)
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
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t"
  if [ "$t" = pdf_reader ] && [ -d "$pdfs" ]; then
    cp -n "$pdfs"/*.pdf "corpus/$t/" 2>/dev/null || true
  fi
  max_len=65536
  [ "$t" = pdf_reader ] && max_len=4194304
  echo "== $t: $runs runs"
  cargo +nightly fuzz run "$t" -O -- -runs="$runs" -max_len="$max_len" -timeout=30 -rss_limit_mb=2048
done
