//! PDF bytes to a structured [`Document`]: text with positions, reading
//! order, cleaning and structure. (Seam: the reader lands on branch `pdf`.)

use super::{Document, Limits, PdfError};

/// Reads the file's text and structure; references are left unparsed and
/// contexts empty (see [`super::read_pdf`]).
pub fn read(bytes: &[u8], _limits: &Limits) -> Result<Document, PdfError> {
    if !bytes.starts_with(b"%PDF") {
        return Err(PdfError::Corrupt("the file does not start with %PDF".into()));
    }
    Err(PdfError::Corrupt("PDF reading is not built yet".into()))
}
