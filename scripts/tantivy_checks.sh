#!/usr/bin/env bash
# The checks of the cargo feature `tantivy` (the tantivy peer of `bench`, off
# by default), moved out of .ci/run: the feature is a second full dependency
# build (tantivy and its crates, then clippy and the tests over them), which
# pushed CI towards its 45-minute budget on 2 cores. Run it when you change
# src/bench/tantivy.rs, the `bench` command or the tantivy dependency.
#
# It runs what .ci/run ran for the feature: clippy with every target and the
# feature on, then the tests whose names hold `tantivy` (the unit tests of the
# query translation, `bench --peer fts5,tantivy` on a generated corpus:
# tests/integration/bench_tantivy.rs). .ci/run keeps the other half: without
# the feature, `bench --peer tantivy` is a usage error.
#
# Usage: scripts/tantivy_checks.sh
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo clippy --features tantivy"
cargo clippy --all-targets --locked --features failpoints,tantivy -- -D warnings
echo "== cargo test --features failpoints,tantivy tantivy"
cargo test --locked --features failpoints,tantivy tantivy
echo "ok"
