//! Identifiers and dates found in text: DOIs, arXiv ids, years; and the
//! document Info dictionary and XMP metadata read from the file.

use lopdf::{Document as Pdf, Object};

/// The first DOI in `s`, lowercase, without its resolver prefix and
/// trailing punctuation.
pub(crate) fn find_doi(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(k) = s[from..].find("10.") {
        let i = from + k;
        from = i + 3;
        // Not inside a longer number ("110.5").
        if i > 0 && b[i - 1].is_ascii_digit() {
            continue;
        }
        let rest = &s[i + 3..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if !(4..=9).contains(&digits) || rest.as_bytes().get(digits) != Some(&b'/') {
            continue;
        }
        let suffix = &rest[digits + 1..];
        let len = suffix
            .char_indices()
            .find(|(_, c)| c.is_whitespace() || matches!(c, '"' | '<' | '>' | '}' | '{'))
            .map_or(suffix.len(), |(j, _)| j);
        let mut doi = format!("10.{}/{}", &rest[..digits], &suffix[..len]);
        while doi.ends_with(['.', ',', ';', ':', ')', ']', '\'']) {
            // Keep a closing bracket that the DOI itself opened.
            if (doi.ends_with(')') && doi.matches('(').count() >= doi.matches(')').count())
                || (doi.ends_with(']') && doi.matches('[').count() >= doi.matches(']').count())
            {
                break;
            }
            doi.pop();
        }
        if doi.len() > digits + 4 {
            return Some(doi.to_lowercase());
        }
    }
    None
}

/// The first arXiv id in `s` ("arXiv:2101.01234v2" -> "2101.01234",
/// "hep-ph/9412269"), unversioned.
pub(crate) fn find_arxiv(s: &str) -> Option<String> {
    let lower = s.to_lowercase();
    let mut from = 0;
    while let Some(k) = lower[from..].find("arxiv") {
        let i = from + k + 5;
        from = i;
        let rest = lower[i..].trim_start_matches([':', ' ', '.']);
        let rest = rest.strip_prefix("abs/").unwrap_or(rest);
        if let Some(id) = new_style(rest).or_else(|| old_style(rest)) {
            return Some(id);
        }
    }
    // An old-style id alone ("hep-ph/9412269"), as the margin stamp prints.
    for w in lower.split_whitespace() {
        if let Some(id) = old_style(w) {
            return Some(id);
        }
    }
    None
}

/// The DOI or arXiv id a file's name spells, as downloads name files: the
/// stem starting with a new-style arXiv id (`2101.01234v2`, optionally after
/// `arXiv`, `-`, `_` or `:`), or a DOI with its first `/` written `_`, `@`,
/// `%2F` or kept (`10.1145_3292500.3330701`). Nothing else in a name is read.
pub(crate) fn from_file_name(name: &str) -> (Option<String>, Option<String>) {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let stem = base.strip_suffix(".pdf").or_else(|| base.strip_suffix(".PDF")).unwrap_or(base).trim();
    let lower = stem.to_lowercase();
    let rest = lower.strip_prefix("arxiv").map_or(lower.as_str(), |r| r.trim_start_matches(['-', '_', ':', ' ', '.']));
    if let Some(id) = new_style(rest) {
        return (None, Some(id));
    }
    let unescaped = lower.replacen("%2f", "/", 1);
    if let Some(rest) = unescaped.strip_prefix("10.") {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if (4..=9).contains(&digits) {
            if let Some(sep) = rest[digits..].chars().next().filter(|c| matches!(c, '_' | '@' | '/')) {
                let suffix = rest[digits + sep.len_utf8()..].trim();
                if !suffix.is_empty() && !suffix.contains(char::is_whitespace) {
                    return (Some(format!("10.{}/{suffix}", &rest[..digits])), None);
                }
            }
        }
    }
    (None, None)
}

fn new_style(s: &str) -> Option<String> {
    let b = s.as_bytes();
    if b.len() >= 9 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'.' {
        let n = b[5..].iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 4 || n == 5 {
            let month = (b[2] - b'0') * 10 + (b[3] - b'0');
            if (1..=12).contains(&month) && b.get(5 + n).is_none_or(|c| !c.is_ascii_digit()) {
                return Some(s[..5 + n].to_string());
            }
        }
    }
    None
}

fn old_style(s: &str) -> Option<String> {
    let (arch, num) = s.split_once('/')?;
    let known = [
        "hep-ph", "hep-th", "hep-ex", "hep-lat", "astro-ph", "cond-mat", "gr-qc", "math-ph", "nucl-th", "nucl-ex",
        "quant-ph", "math", "cs", "physics", "nlin", "q-bio",
    ];
    let arch = arch.rsplit(|c: char| !(c.is_ascii_lowercase() || c == '-' || c == '.')).next()?;
    let base = arch.split('.').next()?;
    if !known.contains(&base) {
        return None;
    }
    let digits: String = num.chars().take_while(char::is_ascii_digit).collect();
    (digits.len() == 7).then(|| format!("{arch}/{digits}"))
}

/// Four-digit years 1900..=2100 in `s`, in order.
pub(crate) fn years(s: &str) -> Vec<i32> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 4 <= b.len() {
        if b[i..i + 4].iter().all(u8::is_ascii_digit)
            && (i == 0 || !b[i - 1].is_ascii_alphanumeric())
            && b.get(i + 4).is_none_or(|c| !c.is_ascii_digit())
        {
            let y: i32 = s[i..i + 4].parse().unwrap_or(0);
            if (1900..=2100).contains(&y) {
                out.push(y);
            }
            i += 4;
        } else {
            i += 1;
        }
    }
    out
}

/// A PDF text string: UTF-16 with a byte order mark, else PDFDocEncoding
/// (read as Latin-1, which it equals for letters).
fn text_string(bytes: &[u8]) -> String {
    if bytes.len() >= 2 && bytes[0] == 0xFE && bytes[1] == 0xFF {
        let units: Vec<u16> = bytes[2..].chunks_exact(2).map(|c| u16::from_be_bytes([c[0], c[1]])).collect();
        return String::from_utf16_lossy(&units);
    }
    if let Ok(s) = std::str::from_utf8(bytes) {
        return s.to_string();
    }
    bytes.iter().map(|&c| c as char).collect()
}

/// The Info dictionary's fields that help: (title, author, subject and
/// keywords, creation date).
#[derive(Debug, Default, Clone)]
pub(crate) struct Info {
    pub title: Option<String>,
    pub author: Option<String>,
    pub other: String,
    pub created_year: Option<i32>,
    pub xmp: String,
}

pub(crate) fn info(pdf: &Pdf) -> Info {
    let mut out = Info::default();
    let dict = pdf.trailer.get(b"Info").ok().and_then(|o| match o {
        Object::Reference(id) => pdf.get_dictionary(*id).ok(),
        Object::Dictionary(d) => Some(d),
        _ => None,
    });
    let field = |key: &[u8]| -> Option<String> {
        let o = dict?.get(key).ok()?;
        let o = match o {
            Object::Reference(id) => pdf.get_object(*id).ok()?,
            o => o,
        };
        let s = text_string(o.as_str().ok()?);
        let s = s.trim().to_string();
        (!s.is_empty()).then_some(s)
    };
    out.title = field(b"Title");
    out.author = field(b"Author");
    for key in [&b"Subject"[..], b"Keywords", b"doi", b"DOI"] {
        if let Some(s) = field(key) {
            out.other.push_str(&s);
            out.other.push('\n');
        }
    }
    out.created_year = field(b"CreationDate").and_then(|d| {
        let d = d.trim_start_matches("D:");
        d.get(..4).and_then(|y| y.parse().ok()).filter(|y| (1950..=2100).contains(y))
    });
    // XMP: the catalog's /Metadata stream, at most 1 MiB of it.
    if let Ok(cat) = pdf.catalog() {
        if let Ok(Object::Reference(id)) = cat.get(b"Metadata") {
            if let Ok(Object::Stream(st)) = pdf.get_object(*id) {
                let raw = st.decompressed_content().unwrap_or_else(|_| st.content.clone());
                let raw = &raw[..raw.len().min(1 << 20)];
                out.xmp = String::from_utf8_lossy(raw).into_owned();
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_from_file_names() {
        let arxiv = |id: &str| (None, Some(id.to_string()));
        assert_eq!(from_file_name("/papers/2101.01234v2.pdf"), arxiv("2101.01234"));
        assert_eq!(from_file_name("arXiv-1706.03762.PDF"), arxiv("1706.03762"));
        assert_eq!(from_file_name("arxiv_1706.03762v5 Attention.pdf"), arxiv("1706.03762"));
        let doi = |d: &str| (Some(d.to_string()), None);
        assert_eq!(from_file_name("10.1145_3292500.3330701.pdf"), doi("10.1145/3292500.3330701"));
        assert_eq!(from_file_name("10.1007%2Fs10994-019-05815-0.pdf"), doi("10.1007/s10994-019-05815-0"));
        // Names that spell no id: a year and a number, a title, a bare DOI prefix.
        for name in
            ["2019.12345.pdf", "Smith 2020 - Sparse attention.pdf", "10.1145_.pdf", "10.12_x.pdf", "1706.037.pdf"]
        {
            assert_eq!(from_file_name(name), (None, None), "{name}");
        }
    }

    #[test]
    fn dois() {
        assert_eq!(find_doi("doi: 10.1145/3292500.3330701."), Some("10.1145/3292500.3330701".into()));
        assert_eq!(
            find_doi("https://doi.org/10.1016/S0140-6736(20)30183-5, x"),
            Some("10.1016/s0140-6736(20)30183-5".into())
        );
        assert_eq!(find_doi("page 110.5/abc"), None);
    }

    #[test]
    fn arxiv_ids() {
        assert_eq!(find_arxiv("arXiv:2101.01234v2 [cs.CL] 4 Jan 2021"), Some("2101.01234".into()));
        assert_eq!(find_arxiv("hep-ph/9412269 09 Dec 94"), Some("hep-ph/9412269".into()));
        assert_eq!(find_arxiv("arXiv preprint"), None);
    }

    #[test]
    fn year_list() {
        assert_eq!(years("(c) 2019 ACM, 12345 and 1850"), vec![2019]);
    }
}
