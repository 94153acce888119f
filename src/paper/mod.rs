//! Papers as their sources describe them: identifiers, one source's record
//! of a paper, a bare citation link, and the error of a record that could
//! not be read. The ingest side produces these, the store persists them;
//! neither depends on the other through this module.

mod error;
pub mod ids;
pub mod record;
pub mod title;

pub use error::RecordError;
pub use ids::PaperId;
pub(crate) use record::text_rank;
pub use record::{Disagreement, Filed, Item, Link, Record};
