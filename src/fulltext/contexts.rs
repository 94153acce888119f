//! In-text citation markers found in the body and resolved to reference
//! entries. (Seam: lands on branch `refs`.)

use super::{CitationContext, Document};

/// Every sentence of the body that cites, with the entries it cites.
pub fn find(_doc: &Document) -> Vec<CitationContext> {
    Vec::new()
}
