//! Integration tests: one binary, one module per area.
//!
//! `cli` drives the real `litindex` binary against temporary databases
//! (one submodule per command);
//! `properties` holds the two-implementations-agree property tests;
//! `retrieval` checks ranking behaviour on the built-in mock corpus.
//!
//! The tests that crash or pause the binary at failpoints need
//! `cargo test --features failpoints`; `failpoints` says so when they are
//! compiled out.

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
mod gaps;
mod graph_int;
mod hostile;
mod import;
mod ingest;
mod marks;
mod mcp;
mod one_path;
mod opensearch;
mod properties;
mod query_language;
mod related;
mod reliability;
mod retrieval;
mod semantic;
mod serve;
mod watch;
mod wire;
