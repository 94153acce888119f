//! litindex: a persistent local literature index in one SQLite file.
//!
//! Paper records from many sources go in through one reader stack and one
//! engine ([`ingest::build`] for a new index, [`ingest::ingest`] to add to
//! one), reconciled into one paper per real-world paper ([`paper`]). The
//! [`store`] owns the file and every SQL statement: papers, BM25 postings
//! and statistics ([`bm25`], [`analyzer`]), the citation graph, aliases and
//! source records. A search ([`search`]) ranks BM25 (or dense, or hybrid:
//! [`embed`]) hits and the papers a citation walk ([`graph`]) reaches from
//! them, and explains every score; [`eval`] measures it on judged queries.
//! [`Store::check`](store::Store::check) verifies a file's invariants.
//! [`cite`] writes papers as BibTeX, CSL-JSON, RIS or Paper JSON Lines;
//! `ingest` reads the first three back as reference libraries.
//!
//! The library never prints: notes reach the caller through callbacks
//! ([`store::Notes`]), progress through [`ingest::Progress`]. The command
//! line (`src/main.rs`, `src/cli/`, `src/commands/`) is the binary's; it,
//! the MCP server and the web page are users of [`api`] (typed requests, one
//! type each for limits, paging and a caller's mistake), and of the few
//! entry points re-exported below, which are the API to start from.
//! [`synth`] and [`bench`] are the tools behind `litindex gen` and
//! `litindex bench`.

pub mod analyzer;
pub mod api;
pub mod bench;
pub mod bm25;
pub(crate) mod candidate;
pub mod choice;
pub mod cite;
pub mod context;
pub mod embed;
pub mod eval;
pub mod evidence;
pub mod explore;
pub mod failpoint;
pub mod fetch;
pub(crate) mod fields;
pub mod fulltext;
pub mod graph;
pub(crate) mod in_order;
pub mod ingest;
pub mod names;
pub mod opensearch;
pub mod paper;
pub(crate) mod retry;
pub mod screen;
pub mod search;
pub(crate) mod sentences;
pub mod store;
pub mod synth;

// The entry points, re-exported: open an index, fill it, search it (the
// defaults resolved for the index), and the typed requests every surface uses.
pub use api::{BadRequest, Page, SearchOptions, run_search};
pub use ingest::{IngestOptions, Input, build, ingest};
pub use search::{Hit, RetrievalResult, SearchChoices, SearchRequest, resolve, search};
pub use store::Store;
