//! `edges`: TSV `citing<TAB>cited`, for graph-only sources. A first line
//! whose first two fields are `citing` and `cited` is a header; further
//! columns are ignored; blank lines are skipped.

use super::{Items, Line, MAX_LINE, OpenInput, file_fault, read_line_limited, record_error};
use crate::paper::PaperId;
use crate::paper::{Item, Link};

pub fn read(input: OpenInput) -> Items {
    let path = input.path;
    let mut reader = input.reader;
    let mut n = 0usize;
    let mut done = false;
    Box::new(std::iter::from_fn(move || {
        loop {
            if done {
                return None;
            }
            let line = read_line_limited(&mut reader, MAX_LINE).transpose()?;
            let i = n;
            n += 1;
            let loc = format!("{}:{}", path.display(), i + 1);
            let bytes = match line.map(Line::bytes) {
                Ok(Ok(b)) => b,
                Ok(Err(too_long)) => return Some(Err(record_error(&loc, None, too_long))),
                Err(e) => {
                    // A fault of the file ends the stream: reading on would repeat it.
                    done = true;
                    return Some(Err(super::ReadError::File(file_fault(&path, e))));
                }
            };
            let Ok(text) = std::str::from_utf8(&bytes) else {
                return Some(Err(record_error(&loc, None, "invalid UTF-8".into())));
            };
            let text = text.trim_start_matches('\u{feff}').trim_end_matches('\r');
            if text.trim().is_empty() {
                continue;
            }
            let mut fields = text.split('\t');
            let (citing, cited) = (fields.next().unwrap_or("").trim(), fields.next().map(str::trim));
            if i == 0 && citing.eq_ignore_ascii_case("citing") && cited.is_some_and(|c| c.eq_ignore_ascii_case("cited"))
            {
                continue;
            }
            let Some(cited) = cited else {
                return Some(Err(record_error(
                    &loc,
                    Some("cited".into()),
                    "missing: expected citing<TAB>cited".into(),
                )));
            };
            if citing.is_empty() {
                return Some(Err(record_error(&loc, Some("citing".into()), "is empty".into())));
            }
            if cited.is_empty() {
                return Some(Err(record_error(&loc, Some("cited".into()), "is empty".into())));
            }
            let link = Link { citing: PaperId::parse(citing), cited: PaperId::parse(cited) };
            return Some(Ok((Item::Link(link), loc)));
        }
    }))
}
