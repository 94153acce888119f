//! Paper identifiers: recognising, normalising and ranking them.
//!
//! The same paper arrives under many spellings: an arXiv id with or without
//! `v2`, an `arXiv:` prefix or an abs/pdf URL; a DOI in any case, as a URL or
//! with `doi:`; a Semantic Scholar sha or `CorpusId:N`; an OpenAlex `W…` id or
//! URL. [`PaperId`] holds the normal form, whose [`PaperId::key`] is the string
//! stored in the `aliases` table and used as a graph node.
//!
//! Canonical-id priority (best first): arXiv > DOI > CorpusId > OpenAlex >
//! S2 sha > the record's own id > a reference manager's citation key.

use std::fmt;

use serde::{Deserialize, Serialize};

/// One normalised identifier of a paper.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", content = "id", rename_all = "lowercase")]
pub enum PaperId {
    /// Unversioned arXiv id: `2101.00001`, `math/0611800`.
    Arxiv(String),
    /// Lowercase DOI without any prefix (never a `10.48550/arXiv.*` DOI: that is an arXiv id).
    Doi(String),
    /// Semantic Scholar corpus id.
    CorpusId(u64),
    /// OpenAlex work id, `W` + digits.
    OpenAlex(String),
    /// Semantic Scholar paper sha (40 lowercase hex digits).
    S2(String),
    /// An id with no recognised shape, kept verbatim (BEIR `_id`, Paper `id`).
    Own(String),
    /// A reference manager's citation key (a BibTeX entry key, a CSL-JSON or
    /// RIS `ID`), verbatim; its alias key is `citekey:KEY`, so it never
    /// collides with an `Own` id of the same spelling.
    Citekey(String),
}

impl PaperId {
    /// Rank in the canonical-id priority: lower is stronger.
    pub(crate) fn priority(&self) -> u8 {
        match self {
            PaperId::Arxiv(_) => 0,
            PaperId::Doi(_) => 1,
            PaperId::CorpusId(_) => 2,
            PaperId::OpenAlex(_) => 3,
            PaperId::S2(_) => 4,
            PaperId::Own(_) => 5,
            PaperId::Citekey(_) => 6,
        }
    }

    /// The kind's name, as stored in `aliases.kind`.
    pub fn kind(&self) -> &'static str {
        match self {
            PaperId::Arxiv(_) => "arxiv",
            PaperId::Doi(_) => "doi",
            PaperId::CorpusId(_) => "corpusid",
            PaperId::OpenAlex(_) => "openalex",
            PaperId::S2(_) => "s2",
            PaperId::Own(_) => "own",
            PaperId::Citekey(_) => "citekey",
        }
    }

    /// The normal form as one string: the alias key and, for the strongest
    /// id of a paper, its canonical id.
    pub fn key(&self) -> String {
        match self {
            PaperId::Arxiv(s) | PaperId::Doi(s) | PaperId::OpenAlex(s) | PaperId::S2(s) | PaperId::Own(s) => s.clone(),
            PaperId::CorpusId(n) => format!("CorpusId:{n}"),
            PaperId::Citekey(k) => format!("{CITEKEY_PREFIX}{k}"),
        }
    }

    /// Recognises any usual spelling of an id; anything else is `Own`,
    /// verbatim (trimmed). Never fails.
    pub fn parse(s: &str) -> PaperId {
        let s = s.trim();
        if let Some((id, _)) = arxiv(s) {
            return PaperId::Arxiv(id);
        }
        if let Some(doi) = doi(s) {
            return match arxiv_from_doi(&doi) {
                Some(a) => PaperId::Arxiv(a),
                None => PaperId::Doi(doi),
            };
        }
        if let Some(n) = corpus_id(s) {
            return PaperId::CorpusId(n);
        }
        if let Some(w) = openalex(s) {
            return PaperId::OpenAlex(w);
        }
        if is_sha(s) {
            return PaperId::S2(s.to_ascii_lowercase());
        }
        if let Some(k) = s.strip_prefix(CITEKEY_PREFIX).filter(|k| !k.trim().is_empty()) {
            return PaperId::Citekey(k.trim().to_string());
        }
        PaperId::Own(s.to_string())
    }

    /// The id an `aliases` row holds: its `kind` and `alias` key; `None`
    /// for a kind this litindex does not know.
    pub fn from_alias(kind: &str, alias: &str) -> Option<PaperId> {
        let s = alias.to_string();
        Some(match kind {
            "arxiv" => PaperId::Arxiv(s),
            "doi" => PaperId::Doi(s),
            "corpusid" => PaperId::CorpusId(corpus_id(alias)?),
            "openalex" => PaperId::OpenAlex(s),
            "s2" => PaperId::S2(s),
            "own" => PaperId::Own(s),
            "citekey" => PaperId::Citekey(alias.strip_prefix(CITEKEY_PREFIX)?.to_string()),
            _ => return None,
        })
    }

    /// An arXiv id in any spelling, with its version when one was given.
    pub(crate) fn parse_arxiv(s: &str) -> Option<(PaperId, Option<u32>)> {
        arxiv(s.trim()).map(|(id, v)| (PaperId::Arxiv(id), v))
    }

    /// A DOI in any spelling (a `10.48550/arXiv.X` DOI gives the arXiv id).
    pub(crate) fn parse_doi(s: &str) -> Option<PaperId> {
        let d = doi(s.trim())?;
        Some(match arxiv_from_doi(&d) {
            Some(a) => PaperId::Arxiv(a),
            None => PaperId::Doi(d),
        })
    }

    /// An OpenAlex work id or URL.
    pub(crate) fn parse_openalex(s: &str) -> Option<PaperId> {
        openalex(s.trim()).map(PaperId::OpenAlex)
    }

    /// A Semantic Scholar sha.
    pub(crate) fn parse_s2(s: &str) -> Option<PaperId> {
        let s = s.trim();
        is_sha(s).then(|| PaperId::S2(s.to_ascii_lowercase()))
    }
}

/// What a citation key's alias key starts with.
pub(crate) const CITEKEY_PREFIX: &str = "citekey:";

impl Default for PaperId {
    fn default() -> Self {
        PaperId::Own(String::new())
    }
}

impl fmt::Display for PaperId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

/// Strips one of `prefixes` (ASCII case-insensitive) from `s`.
fn strip_prefix_ci<'a>(s: &'a str, prefixes: &[&str]) -> Option<&'a str> {
    prefixes.iter().find_map(|p| {
        if s.len() >= p.len() && s.is_char_boundary(p.len()) && s[..p.len()].eq_ignore_ascii_case(p) {
            Some(&s[p.len()..])
        } else {
            None
        }
    })
}

/// arXiv: `arXiv:`, `http(s)://(export.)arxiv.org/abs|pdf/`, `.pdf`, version
/// suffix; old style `math.CA/0611800v2` → `math/0611800`.
fn arxiv(s: &str) -> Option<(String, Option<u32>)> {
    let mut rest = s;
    if let Some(r) = strip_prefix_ci(
        rest,
        &[
            "https://arxiv.org/abs/",
            "http://arxiv.org/abs/",
            "https://arxiv.org/pdf/",
            "http://arxiv.org/pdf/",
            "https://export.arxiv.org/abs/",
            "http://export.arxiv.org/abs/",
            "https://export.arxiv.org/pdf/",
            "http://export.arxiv.org/pdf/",
            "https://www.arxiv.org/abs/",
            "https://www.arxiv.org/pdf/",
            "arxiv.org/abs/",
            "arxiv.org/pdf/",
        ],
    ) {
        rest = r;
    } else if let Some(r) = strip_prefix_ci(rest, &["arxiv:"]) {
        rest = r;
    }
    let rest = rest.strip_suffix(".pdf").unwrap_or(rest).trim_end_matches('/');
    // Split off a version suffix `v<digits>`.
    let (base, version) = match rest.rfind('v') {
        Some(i) if i + 1 < rest.len() && rest[i + 1..].bytes().all(|b| b.is_ascii_digit()) => {
            (&rest[..i], rest[i + 1..].parse::<u32>().ok())
        }
        _ => (rest, None),
    };
    if is_new_style(base) {
        return Some((base.to_string(), version));
    }
    // Old style: archive(.SUBJ)/YYMMNNN.
    let (archive, number) = base.split_once('/')?;
    let archive = archive.split('.').next()?;
    let archive_ok = !archive.is_empty()
        && archive.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
        && archive.as_bytes()[0].is_ascii_lowercase();
    if archive_ok && number.len() == 7 && number.bytes().all(|b| b.is_ascii_digit()) {
        return Some((format!("{archive}/{number}"), version));
    }
    None
}

/// `YYMM.NNNN` (2007–2014) or `YYMM.NNNNN` (2015 on).
fn is_new_style(s: &str) -> bool {
    let Some((yymm, num)) = s.split_once('.') else { return false };
    yymm.len() == 4
        && yymm.bytes().all(|b| b.is_ascii_digit())
        && (num.len() == 4 || num.len() == 5)
        && num.bytes().all(|b| b.is_ascii_digit())
        && (1..=12).contains(&yymm[2..].parse::<u32>().unwrap_or(0))
}

/// DOI: strip `https://doi.org/`, `http://dx.doi.org/`, `doi:`; lowercase.
fn doi(s: &str) -> Option<String> {
    let rest = strip_prefix_ci(
        s,
        &["https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi.org/", "doi:"],
    )
    .unwrap_or(s)
    .trim();
    let (prefix, suffix) = rest.split_once('/')?;
    let registrant = prefix.strip_prefix("10.")?;
    let ok = !registrant.is_empty()
        && registrant.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && !suffix.trim().is_empty()
        && !rest.chars().any(char::is_whitespace);
    ok.then(|| rest.to_lowercase())
}

/// `10.48550/arxiv.2101.00001` is arXiv's own DOI for `2101.00001`.
fn arxiv_from_doi(doi: &str) -> Option<String> {
    let rest = doi.strip_prefix("10.48550/arxiv.")?;
    arxiv(rest).map(|(id, _)| id)
}

/// `CorpusId:123` (any case, optional space).
fn corpus_id(s: &str) -> Option<u64> {
    let rest = strip_prefix_ci(s, &["corpusid:", "corpus_id:", "corpusid "])?.trim();
    rest.parse().ok()
}

/// `W123`, `https://openalex.org/W123`, `https://api.openalex.org/works/W123`.
fn openalex(s: &str) -> Option<String> {
    let rest = strip_prefix_ci(
        s,
        &["https://openalex.org/", "http://openalex.org/", "https://api.openalex.org/works/", "openalex:"],
    )
    .unwrap_or(s);
    let digits = rest.strip_prefix('W').or_else(|| rest.strip_prefix('w'))?;
    (!digits.is_empty() && digits.len() <= 12 && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| format!("W{digits}"))
}

fn is_sha(s: &str) -> bool {
    s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: &str) -> String {
        PaperId::parse(s).key()
    }

    #[test]
    fn arxiv_spellings_normalise() {
        for s in [
            "2101.00001",
            "2101.00001v2",
            "arXiv:2101.00001v3",
            "ARXIV:2101.00001",
            "https://arxiv.org/abs/2101.00001v2",
            "http://export.arxiv.org/abs/2101.00001",
            "https://arxiv.org/pdf/2101.00001v1.pdf",
            "10.48550/arXiv.2101.00001",
            "https://doi.org/10.48550/ARXIV.2101.00001",
        ] {
            assert_eq!(PaperId::parse(s), PaperId::Arxiv("2101.00001".into()), "{s}");
        }
        assert_eq!(key("0704.0001"), "0704.0001");
        assert_eq!(key("math.CA/0611800v2"), "math/0611800");
        assert_eq!(key("hep-th/9901001"), "hep-th/9901001");
        assert_eq!(PaperId::parse_arxiv("2101.00001v12").unwrap().1, Some(12));
    }

    #[test]
    fn dois_normalise_to_lowercase() {
        for s in ["10.1145/ABC.123", "doi:10.1145/abc.123", "https://doi.org/10.1145/Abc.123", "DOI:10.1145/abc.123"] {
            assert_eq!(PaperId::parse(s), PaperId::Doi("10.1145/abc.123".into()), "{s}");
        }
    }

    #[test]
    fn s2_and_openalex_ids() {
        assert_eq!(key("CorpusId:215416146"), "CorpusId:215416146");
        assert_eq!(key("corpusid: 12"), "CorpusId:12");
        assert_eq!(key("W2741809807"), "W2741809807");
        assert_eq!(key("https://openalex.org/W2741809807"), "W2741809807");
        let sha = "649def34f8be52c8b66281af98ae884c09aef38b";
        assert_eq!(PaperId::parse(&sha.to_uppercase()), PaperId::S2(sha.into()));
    }

    #[test]
    fn anything_else_is_kept_verbatim() {
        for s in ["p001", "1", "4983", "ext:vaswani2017", "2101.0001x", "1234.56789.1", "W12abc", "10.1145"] {
            assert_eq!(PaperId::parse(s), PaperId::Own(s.into()), "{s}");
        }
    }

    #[test]
    fn citekeys_have_their_own_namespace() {
        let k = PaperId::Citekey("vaswani2017attention".into());
        assert_eq!(k.key(), "citekey:vaswani2017attention");
        assert_eq!(k.kind(), "citekey");
        assert_eq!(PaperId::parse("citekey:vaswani2017attention"), k, "the key parses back");
        assert_eq!(PaperId::parse("vaswani2017attention"), PaperId::Own("vaswani2017attention".into()));
        assert_eq!(PaperId::parse("citekey:"), PaperId::Own("citekey:".into()));
        assert!(k.priority() > PaperId::Own("x".into()).priority(), "the weakest id");
        for id in [k, PaperId::CorpusId(7), PaperId::Doi("10.1/x".into()), PaperId::Own("citekey".into())] {
            assert_eq!(PaperId::from_alias(id.kind(), &id.key()), Some(id.clone()), "{id}");
        }
    }

    #[test]
    fn priority_orders_kinds() {
        let mut ids = [
            PaperId::Own("x".into()),
            PaperId::S2("a".repeat(40)),
            PaperId::OpenAlex("W1".into()),
            PaperId::CorpusId(5),
            PaperId::Doi("10.1/x".into()),
            PaperId::Arxiv("2101.00001".into()),
        ];
        ids.sort_by_key(PaperId::priority);
        assert_eq!(ids[0].kind(), "arxiv");
        assert_eq!(ids[5].kind(), "own");
    }
}
