//! litindex: a persistent local literature index.
//!
//! Sources of paper records ([`source`]) are unioned on paper id and written
//! to one SQLite file ([`store`]): papers, BM25 postings and statistics
//! ([`bm25`], [`analyzer`]), and the citation edges. A search ([`search`])
//! ranks BM25 hits and the papers a citation walk ([`graph`]) reaches from
//! them, and explains every score.

pub mod analyzer;
pub mod bench;
pub mod bm25;
pub mod cli;
pub mod commands;
pub mod embed;
pub mod eval;
pub mod failpoint;
pub mod fields;
pub mod graph;
pub mod ingest;
pub mod paper;
pub mod search;
pub mod store;
pub mod synth;
