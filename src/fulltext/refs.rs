//! One reference-list entry, as printed, parsed into fields. (Seam: the
//! parser lands on branch `refs`.)

use super::ParsedRef;

/// The fields of one printed reference entry.
pub fn parse(_raw: &str) -> ParsedRef {
    ParsedRef::default()
}
