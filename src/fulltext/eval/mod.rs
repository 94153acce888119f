//! TEMP (not committed)
pub mod contexts;
pub mod refs;
