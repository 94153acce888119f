//! `auto`: the format of an input told from its first bytes (at most 64
//! KiB of the decompressed input): PDF, an SQLite file (a Zotero library), a reference library (BibTeX, RIS,
//! CSL-JSON by its keys or the shape of its items), an Atom feed, an edge
//! list, a JSON Lines format by its first record's keys, a JSON document by
//! the keys that appear early. A UTF-16 file is read through its byte-order
//! mark.

use std::io::BufRead;

use serde_json::{Map, Value};

use super::{InputFormat, OpenInput, file_fault};

/// Guesses the format from the first bytes of the (decompressed) input.
pub(crate) fn sniff(input: &mut OpenInput) -> anyhow::Result<InputFormat> {
    let path = input.path.display().to_string();
    let head = input.reader.fill_buf().map_err(|e| file_fault(&input.path, e))?;
    if head.starts_with(b"%PDF") {
        return Ok(InputFormat::Pdf);
    }
    // An SQLite file: a Zotero library (ingest::zotero says when it is not one).
    if head.starts_with(b"SQLite format 3\0") {
        return Ok(InputFormat::Zotero);
    }
    let head = &head[..head.len().min(64 * 1024)];
    // A UTF-16 file (a reference library exported on Windows) shows its text
    // through its byte-order mark; anything else is sniffed as (lossy) UTF-8.
    let head = match encoding_rs::Encoding::for_bom(head) {
        Some((enc, bom)) if enc != encoding_rs::UTF_8 => enc.decode_without_bom_handling(&head[bom..]).0.into_owned(),
        _ => String::from_utf8_lossy(head).into_owned(),
    };
    let trimmed = head.trim_start_matches('\u{feff}').trim_start();
    if trimmed.is_empty() {
        anyhow::bail!("{path} is empty");
    }
    if let Some(f) = sniff_library(trimmed) {
        return Ok(f);
    }
    if trimmed.starts_with('<') {
        if trimmed.contains("http://www.w3.org/2005/Atom") {
            return Ok(InputFormat::ArxivAtom);
        }
        anyhow::bail!("{path} is XML but not an Atom feed; pass --format");
    }
    let first_line = trimmed.lines().next().unwrap_or("");
    if !first_line.starts_with('{') && !first_line.starts_with('[') && first_line.contains('\t') {
        return Ok(InputFormat::Edges);
    }
    // A JSON Lines file has a whole object on its first line; a document
    // may not (pretty-printed), so look at the keys that appear early.
    if let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(first_line) {
        if let Some(f) = sniff_object(&obj) {
            return Ok(f);
        }
        anyhow::bail!("cannot tell the format of {path} from its first record; pass --format");
    }
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        let has = |k: &str| trimmed.contains(&format!("\"{k}\""));
        if has("citedPaper") || has("citingPaper") || has("paperId") {
            return Ok(InputFormat::S2);
        }
        if has("abstract_inverted_index") || has("referenced_works") || trimmed.contains("openalex.org/W") {
            return Ok(InputFormat::OpenAlex);
        }
    }
    anyhow::bail!("cannot tell the format of {path}; pass --format")
}

/// A reference library: BibTeX (its first line that is not a `%` comment
/// starts with `@`), RIS (it starts with a `TY  - ` line) or CSL-JSON (a
/// JSON array or object with CSL's own keys near the start).
fn sniff_library(head: &str) -> Option<InputFormat> {
    let first = head.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('%'))?;
    if first.starts_with('@') && first[1..].trim_start().starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Some(InputFormat::Bibtex);
    }
    // RIS: a `TY  - ` line, maybe after EndNote's numbering (`1.`,
    // `Record #1 of 2`) and export headers.
    if head.lines().take(64).any(|l| l.trim_start_matches('\u{feff}').starts_with("TY  -"))
        && !first.starts_with(['{', '[', '<'])
    {
        return Some(InputFormat::Ris);
    }
    let csl_keys = ["\"citation-key\"", "\"issued\"", "\"container-title\"", "\"date-parts\""];
    if (head.starts_with('[') || head.starts_with('{')) && csl_keys.iter().any(|k| head.contains(k)) {
        return Some(InputFormat::CslJson);
    }
    if head.starts_with('[') && csl_shaped(head) {
        return Some(InputFormat::CslJson);
    }
    None
}

/// CSL-JSON by the shape of its first item (the head may be cut off, so the
/// keys are those of the first object, read as far as it goes): an array of
/// objects whose first has a CSL item `type` (`article-journal`, `book`, …)
/// and an `id`, without any key of the formats sniffed after it.
fn csl_shaped(head: &str) -> bool {
    const CSL_TYPES: [&str; 45] = [
        "article",
        "article-journal",
        "article-magazine",
        "article-newspaper",
        "bill",
        "book",
        "broadcast",
        "chapter",
        "classic",
        "collection",
        "dataset",
        "document",
        "entry",
        "entry-dictionary",
        "entry-encyclopedia",
        "event",
        "figure",
        "graphic",
        "hearing",
        "interview",
        "legal_case",
        "legislation",
        "manuscript",
        "map",
        "motion_picture",
        "musical_score",
        "pamphlet",
        "paper-conference",
        "patent",
        "performance",
        "periodical",
        "personal_communication",
        "post",
        "post-weblog",
        "regulation",
        "report",
        "review",
        "review-book",
        "software",
        "song",
        "speech",
        "standard",
        "thesis",
        "treaty",
        "webpage",
    ];
    let mut items = serde_json::Deserializer::from_str(head[1..].trim_start()).into_iter::<Value>();
    let first = match items.next() {
        Some(Ok(Value::Object(obj))) => obj,
        // The first item runs past the head: look at its keys as text.
        _ => {
            let t = head.split_once('}').map_or(head, |(a, _)| a);
            let typed = CSL_TYPES
                .iter()
                .any(|ty| t.contains(&format!("\"type\": \"{ty}\"")) || t.contains(&format!("\"type\":\"{ty}\"")));
            return typed && t.contains("\"id\"");
        }
    };
    // A CSL `type` (the processor tests also write an empty one).
    let typed = first.get("type").and_then(Value::as_str).is_some_and(|t| t.is_empty() || CSL_TYPES.contains(&t));
    typed && first.contains_key("id") && sniff_object(&first).is_none_or(|f| f == InputFormat::Paper)
}

/// The format whose records have these keys.
fn sniff_object(obj: &Map<String, Value>) -> Option<InputFormat> {
    let has = |k: &str| obj.contains_key(k);
    if has("citingcorpusid") || has("citedcorpusid") {
        Some(InputFormat::S2Citations)
    } else if has("corpusid") && (has("externalids") || has("title")) {
        Some(InputFormat::S2Papers)
    } else if has("corpusid") && has("abstract") {
        Some(InputFormat::S2Abstracts)
    } else if has("_id") {
        Some(InputFormat::Beir)
    } else if has("authors_parsed") || (has("versions") && has("update_date")) {
        Some(InputFormat::ArxivOai)
    } else if has("abstract_inverted_index")
        || has("referenced_works")
        || has("display_name")
        || obj.get("id").and_then(Value::as_str).is_some_and(|s| s.contains("openalex.org/"))
    {
        Some(InputFormat::OpenAlex)
    } else if has("results") && (has("meta") || obj.get("results").is_some_and(Value::is_array)) {
        // An OpenAlex list page on one line, as the API sends it.
        Some(InputFormat::OpenAlex)
    } else if has("paperId") || has("citedPaper") || has("citingPaper") || has("data") {
        Some(InputFormat::S2)
    } else if has("id") && has("title") {
        Some(InputFormat::Paper)
    } else {
        None
    }
}
