//! Integration tests: one binary, one module per area.
//!
//! `cli` drives the real `litindex` binary against temporary databases
//! (one submodule per command);
//! `properties` and `properties_search` hold the property tests (two
//! implementations agree; build = ingest; filtered ⊆ unfiltered);
//! `retrieval` checks ranking behaviour on the built-in mock corpus.
//!
//! The tests that crash or pause the binary at failpoints need
//! `cargo test --features failpoints`; `failpoints` says so when they are
//! compiled out.
//!
//! A test that needs what the repository does not hold (data, the model,
//! python packages, a browser, an OpenSearch node, root, …) skips without it,
//! and fails instead under its `LITINDEX_REQUIRE_*` switch: the list is
//! `common::Need`, and `.ci/run` sets every one.

mod analyzers;
mod bench;
mod bench_tantivy;
mod bm25;
mod cli;
mod common;
mod context;
mod eval;
mod evidence;
mod export;
mod failpoints;
mod fetch;
mod fulltext;
mod gaps;
mod graph_int;
mod hostile;
mod import;
mod ingest;
mod marks;
mod mcp;
mod one_path;
mod opensearch;
mod passage_vectors;
mod properties;
mod properties_search;
mod query_language;
mod reffiles;
mod related;
mod reliability;
mod retrieval;
mod run_golden;
mod screen;
mod semantic;
mod serve;
mod watch;
mod why;
mod wire;
mod zotero;
mod zotero_sync;
