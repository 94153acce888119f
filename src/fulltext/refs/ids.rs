//! Identifiers in a reference entry: the DOI (`doi:10.x/y`, `DOI 10.x/y`,
//! `https://doi.org/10.x/y`, one broken across a line), the arXiv id
//! (`arXiv:1234.5678v2 [cs.CL]`, `arXiv preprint arXiv:…`, `hep-ph/9412269`,
//! `arxiv.org/abs/…`, the DataCite DOI `10.48550/arXiv.…`), and the URLs and
//! access notes that carry no field. Each is taken out of the text, so the
//! fields parsed after it do not see it.

use regex::Regex;
use std::sync::LazyLock;

/// A DOI with whatever prefix printed it (`https://doi.org/`, `doi:`, `DOI`).
static DOI: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:https?://(?:dx\.)?doi\.org/|\bdoi\s*[:=]?\s*)?\b(10\.\d{4,9}/[^\s]+)").expect("DOI pattern")
});

/// An arXiv id, new style (`1234.5678`, `2304.06504v2`) or old style
/// (`hep-ph/9412269`, `math.AG/0309136`), after `arXiv:`, `arxiv.org/abs/` or
/// `abs/`, with a trailing `[category]`.
static ARXIV: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?:(?:\barxiv\s+preprint\s+)?\barxiv\s*:\s*|arxiv\.org/(?:abs|pdf)/|\babs/)((?:\d{4}\.\d{4,5})|(?:[a-z][a-z\-]*(?:\.[a-z]{2})?/\d{7}))(?:v\d+)?(?:\.pdf)?(?:\s*\[[a-z\-\.]+\])?",
    )
    .expect("arXiv pattern")
});

/// An old-style arXiv id printed bare (`hep-ph/9412269`).
static ARXIV_BARE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b((?:hep-(?:ph|th|lat|ex)|astro-ph|cond-mat|gr-qc|nucl-(?:th|ex)|quant-ph|math-ph|physics|math|cs)(?:\.[A-Za-z]{2})?/\d{7})(?:v\d+)?").expect("bare arXiv pattern")
});

/// A URL (with `URL`, `Available at`, `Retrieved from` before it) and the
/// access notes around it.
static URL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?:\b(?:url|available(?:\s+online)?\s+(?:at|from)|retrieved\s+from)\s*:?\s*)?(?:https?://|www\.)[^\s]+",
    )
    .expect("URL pattern")
});

static ACCESS_NOTE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)[\(\[]\s*(?:last\s+)?(?:accessed|retrieved|visited|available)[^\)\]]{0,80}[\)\]]|\b(?:last\s+)?accessed(?:\s+on)?\s*:?\s*(?:\d{1,2}\s+)?[a-z]*\.?\s*\d{1,2}?,?\s*\d{4}(?:-\d{2}-\d{2})?").expect("access pattern")
});

/// Leftovers once an identifier is gone: `doi:`, `URL`, `_eprint:`, `[Online]`.
static DANGLING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:,\s*)?(?:\b_?eprint\s*:|\bdoi\s*:|\burl\s*:?$|\[online\]|\bavailable\s*:)")
        .expect("dangling pattern")
});

/// The identifiers of one entry and its text without them.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Ids {
    pub doi: Option<String>,
    pub arxiv: Option<String>,
    /// The entry with identifiers, URLs and access notes removed.
    pub rest: String,
}

/// Takes the DOI, the arXiv id and the URLs out of `text`.
pub(super) fn take(text: &str) -> Ids {
    let mut ids = Ids::default();
    let mut rest = text.to_string();

    if let Some(found) = DOI.captures(&rest) {
        let whole = found.get(0).map_or(0..0, |m| m.range());
        let start = found.get(1).map_or(whole.start, |m| m.start());
        let (doi, end) = doi_at(&rest, start);
        if doi.len() > 8 {
            ids.doi = Some(doi.to_lowercase());
            rest.replace_range(whole.start..end, " ");
        }
    }
    // A DataCite arXiv DOI names the arXiv id too.
    if let Some(doi) = &ids.doi {
        if let Some(id) = doi.strip_prefix("10.48550/arxiv.") {
            ids.arxiv = Some(unversioned(id));
        }
    }
    if let Some(found) = ARXIV.captures(&rest) {
        let whole = found.get(0).map_or(0..0, |m| m.range());
        if ids.arxiv.is_none() {
            ids.arxiv = found.get(1).map(|m| unversioned(&m.as_str().to_lowercase()));
        }
        rest.replace_range(whole, " ");
    } else if let Some(found) = ARXIV_BARE.captures(&rest) {
        let whole = found.get(0).map_or(0..0, |m| m.range());
        if ids.arxiv.is_none() {
            ids.arxiv = found.get(1).map(|m| m.as_str().to_string());
        }
        rest.replace_range(whole, " ");
    }
    rest = ACCESS_NOTE.replace_all(&rest, " ").into_owned();
    rest = remove_urls(&rest);
    rest = DANGLING.replace_all(&rest, " ").into_owned();
    ids.rest = tidy(&rest);
    ids
}

/// The DOI starting at byte `start` of `text` and the byte where it ends.
/// A DOI ends at whitespace; trailing punctuation and an unbalanced closing
/// bracket are not part of it. A DOI broken across a line (`10.18637/jss.
/// v078.i02`, `10.1016/j.cell-` then `2019.01.001`) continues into the next
/// token when it ends in `.`, `-`, `/` or `_` and that token looks like DOI
/// text (a digit, or no capital letter).
fn doi_at(text: &str, start: usize) -> (String, usize) {
    let mut end = token_end(text, start);
    loop {
        let piece = &text[start..end];
        if !piece.ends_with(['.', '-', '/', '_']) {
            break;
        }
        let next_start = end + (text[end..].len() - text[end..].trim_start().len());
        let next_end = token_end(text, next_start);
        let next = &text[next_start..next_end];
        let complete = piece.ends_with('.') && piece[..piece.len() - 1].ends_with(|c: char| c.is_ascii_digit());
        let continues = !complete
            && !next.is_empty()
            && next.chars().next().is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
            && next.chars().any(|c| c.is_ascii_digit())
            && !next.contains([':', '/'])
            && next.len() < 40;
        if !continues {
            break;
        }
        end = next_end;
    }
    let joined: String = text[start..end].split_whitespace().collect();
    let mut doi = joined.as_str();
    loop {
        let trimmed = doi.trim_end_matches(['.', ',', ';', ':', '"', '\'', '”', '’']);
        let trimmed = if (trimmed.ends_with(')') && trimmed.matches('(').count() < trimmed.matches(')').count())
            || (trimmed.ends_with(']') && trimmed.matches('[').count() < trimmed.matches(']').count())
        {
            &trimmed[..trimmed.len() - 1]
        } else {
            trimmed
        };
        if trimmed.len() == doi.len() {
            break;
        }
        doi = trimmed;
    }
    // The punctuation after a DOI printed in one piece stays in the text.
    let end = if text[start..end].contains(char::is_whitespace) { end } else { start + doi.len() };
    (doi.to_string(), end)
}

fn token_end(text: &str, from: usize) -> usize {
    text[from..].find(char::is_whitespace).map_or(text.len(), |i| from + i)
}

fn unversioned(id: &str) -> String {
    match id.rfind('v') {
        Some(at) if at > 0 && id[at + 1..].chars().all(|c| c.is_ascii_digit()) && at + 1 < id.len() => {
            id[..at].to_string()
        }
        _ => id.to_string(),
    }
}

/// Removes URLs, joining a URL that a line break split (`…/how` then
/// `-the-2016-…`: the next token starts with `-`, `/`, `_` or `.`, or the
/// URL ends with one).
fn remove_urls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut search_from = 0;
    while let Some(found) = URL.find_at(text, search_from) {
        let mut end = found.end();
        loop {
            let rest = &text[end..];
            let next_start = end + (rest.len() - rest.trim_start().len());
            if next_start == end || next_start >= text.len() {
                break;
            }
            let next_end = token_end(text, next_start);
            let next = &text[next_start..next_end];
            let prev_ends = text[..end].ends_with(['/', '-', '_', '.', '=', '?', '&']);
            let next_starts = next.starts_with(['/', '-', '_', '.', '=', '&', '?']);
            let looks_url = next.contains('/') && !next.contains(' ') && next.chars().all(|c| !c.is_uppercase());
            if (prev_ends || next_starts || looks_url) && next.len() < 80 && !next.eq_ignore_ascii_case("and") {
                end = next_end;
            } else {
                break;
            }
        }
        out.push_str(&text[last..found.start()]);
        out.push(' ');
        last = end;
        search_from = end;
        if search_from >= text.len() {
            break;
        }
    }
    out.push_str(&text[last.min(text.len())..]);
    out
}

/// Collapses whitespace and the punctuation a removal leaves behind
/// (`, .`, `. .`, a space before a comma).
pub(super) fn tidy(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out = String::with_capacity(text.len());
    for word in words {
        let only_punct = word.chars().all(|c| matches!(c, '.' | ',' | ';' | ':'));
        if only_punct {
            // Keep one sentence mark: a lone `.` after `,` becomes `.`.
            let trimmed_len = out.trim_end_matches([',', ';', ':', ' ']).len();
            if out.is_empty() {
                continue;
            }
            if word.contains('.') {
                out.truncate(trimmed_len);
                if !out.ends_with(['.', '?', '!']) {
                    out.push('.');
                }
            } else if !out.ends_with(['.', ',', ';', ':']) {
                out.push_str(&word[..word.chars().next().map_or(0, char::len_utf8)]);
            }
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out.trim_end_matches([',', ';', ':', ' ']).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dois_in_their_printed_forms() {
        let ids = take("Nucleic Acids Research 44(W1):W3–W10 DOI 10.1093/nar/gkw343.");
        assert_eq!(ids.doi.as_deref(), Some("10.1093/nar/gkw343"));
        assert_eq!(ids.rest, "Nucleic Acids Research 44(W1):W3–W10.");
        let ids = take("Neutron News 19, 18 (2008), _eprint: https://doi.org/10.1080/10448630801975684.");
        assert_eq!(ids.doi.as_deref(), Some("10.1080/10448630801975684"));
        assert_eq!(ids.rest, "Neutron News 19, 18 (2008).");
        let ids = take("Phys. Rep. 363 (2002), doi:10.1016/S0370-1573(01)00098-9.");
        assert_eq!(ids.doi.as_deref(), Some("10.1016/s0370-1573(01)00098-9"));
        let ids = take("(the doi 10.1000/xyz123)");
        assert_eq!(ids.doi.as_deref(), Some("10.1000/xyz123"));
    }

    #[test]
    fn a_doi_broken_across_lines_is_joined() {
        // latex_lights.pdf, pdftotext: "doi: 10.18637/jss." / "v078.i02. URL https://..."
        let ids = take(
            "78(2):1–56, 2017. ISSN 1548-7660. doi: 10.18637/jss. v078.i02. URL https://www.jstatsoft.org/v078/i02.",
        );
        assert_eq!(ids.doi.as_deref(), Some("10.18637/jss.v078.i02"));
        assert_eq!(ids.rest, "78(2):1–56, 2017. ISSN 1548-7660.");
        let ids = take("Cell 10, 2 (2019). doi:10.1016/j.cell- 2019.01.001");
        assert_eq!(ids.doi.as_deref(), Some("10.1016/j.cell-2019.01.001"));
        let ids = take("doi:10.1234/abc. The Next Thing");
        assert_eq!(ids.doi.as_deref(), Some("10.1234/abc"));
        assert_eq!(ids.rest, "The Next Thing");
    }

    #[test]
    fn arxiv_ids() {
        let ids = take("Optimization with sparsity-inducing penalties. arXiv preprint arXiv:1108.0775, 2011.");
        assert_eq!(ids.arxiv.as_deref(), Some("1108.0775"));
        assert_eq!(ids.rest, "Optimization with sparsity-inducing penalties. 2011.");
        let ids = take("ArXiv e-prints (2017), arXiv:1705.00024v2 [cond-mat.str-el].");
        assert_eq!(ids.arxiv.as_deref(), Some("1705.00024"));
        assert_eq!(ids.rest, "ArXiv e-prints (2017).");
        // latex_juliahealth.pdf: a DataCite DOI and the id.
        let ids = take("Research. doi:10.48550/arXiv.2304.06504. arxiv:2304.06504 [cs].");
        assert_eq!(ids.doi.as_deref(), Some("10.48550/arxiv.2304.06504"));
        assert_eq!(ids.arxiv.as_deref(), Some("2304.06504"));
        assert_eq!(ids.rest, "Research.");
        assert_eq!(take("Preprint hep-ph/9412269 (1994)").arxiv.as_deref(), Some("hep-ph/9412269"));
        assert_eq!(take("https://arxiv.org/abs/2001.01234v3").arxiv.as_deref(), Some("2001.01234"));
    }

    #[test]
    fn urls_and_access_notes_are_dropped() {
        // latex_missingdata.pdf: a URL broken at a hyphen, an access note.
        let ids = take(
            "How the 2016 campaign. http://www.pewresearch.org/fact-tank/2016/05/26/how -the-2016-presidential-campaign/. (Accessed: 2011-11-07)",
        );
        assert_eq!(ids.rest, "How the 2016 campaign.");
        let ids = take("Hurricane Patricia. National Hurricane Center. [Available online at www.nhc.noaa.gov].");
        assert_eq!(ids.rest, "Hurricane Patricia. National Hurricane Center.");
        assert!(take("").rest.is_empty());
    }
}
