//! Reference-list figures of one document against its gold: title recall
//! as parsed fields, the anchor of the same titles found in the raw entry
//! text, year agreement of matched entries, and DOI exactness where the DOI
//! is printed.
//!
//! Rules (those of the dev set's pdftotext anchor, `../shared/data/pdfs/README.md`):
//! titles are compared after `fuzzy::normalise` (diacritics off, lowercase,
//! punctuation to spaces); a gold title shorter than 8 normalised
//! characters is not counted; a gold title is found when some parsed title
//! has a `fuzzy::ratio` (difflib's) of at least 0.9 with it (raw text: when some window of
//! the entries' text has). A gold DOI counts as printed when it appears,
//! lowercase and with whitespace removed, in the entries' raw text; it is
//! exact when some entry's parsed DOI equals it.

use super::fuzzy::{normalise as normalize, ratio};
use crate::fulltext::Document;

/// One gold reference: the fields the dev set's gold gives.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GoldRef {
    pub title: String,
    pub year: Option<i32>,
    pub doi: Option<String>,
}

/// Counts over one document (add them up over a set).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RefFigures {
    /// Gold titles counted (8+ normalised characters).
    pub titles: usize,
    /// Of those, found among the parsed titles.
    pub titles_parsed: usize,
    /// Of those, found in the raw text of the entries (the text anchor).
    pub titles_raw: usize,
    /// Gold titles found among parsed titles whose gold year is known...
    pub years: usize,
    /// ...and of those, the matched entry's parsed year equals it.
    pub years_exact: usize,
    /// Gold DOIs printed in the entries' text.
    pub dois_printed: usize,
    /// Of those, an entry's parsed DOI equals it.
    pub dois_exact: usize,
}

impl RefFigures {
    pub fn add(&mut self, other: &RefFigures) {
        self.titles += other.titles;
        self.titles_parsed += other.titles_parsed;
        self.titles_raw += other.titles_raw;
        self.years += other.years;
        self.years_exact += other.years_exact;
        self.dois_printed += other.dois_printed;
        self.dois_exact += other.dois_exact;
    }
}

/// The threshold of `fuzzy::ratio` at which two titles are the same.
pub const SAME_TITLE: f64 = 0.9;

/// The figures of `doc`'s parsed references against `gold`.
pub fn reference_fields(doc: &Document, gold: &[GoldRef]) -> RefFigures {
    let parsed: Vec<(String, Option<i32>)> = doc
        .references
        .iter()
        .filter_map(|r| r.parsed.title.as_deref().map(|t| (normalize(t), r.parsed.year)))
        .collect();
    let raw_text = normalize(&doc.references.iter().map(|r| r.raw.as_str()).collect::<Vec<_>>().join(" "));
    let raw_words: Vec<&str> = raw_text.split(' ').collect();
    let squashed_raw: String = doc
        .references
        .iter()
        .flat_map(|r| r.raw.chars())
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_lowercase();
    let mut out = RefFigures::default();
    for g in gold {
        let title = normalize(&g.title);
        if title.chars().count() >= 8 {
            out.titles += 1;
            let best = parsed
                .iter()
                .filter(|(t, _)| ratio(t, &title) >= SAME_TITLE)
                .max_by(|a, b| ratio(&a.0, &title).total_cmp(&ratio(&b.0, &title)));
            if let Some((_, year)) = best {
                out.titles_parsed += 1;
                if let Some(gy) = g.year {
                    out.years += 1;
                    out.years_exact += usize::from(*year == Some(gy));
                }
            }
            out.titles_raw += usize::from(in_text(&raw_words, &title));
        }
        if let Some(doi) = g.doi.as_deref().map(str::to_lowercase) {
            if squashed_raw.contains(&doi) {
                out.dois_printed += 1;
                out.dois_exact +=
                    usize::from(doc.references.iter().any(|r| r.parsed.doi.as_deref() == Some(doi.as_str())));
            }
        }
    }
    out
}

/// Whether some window of `words` (as many words as `title`, give or take
/// two, starting at or up to two words before one of the title's first
/// three words) has a `fuzzy::ratio`
/// of at least [`SAME_TITLE`] with `title`.
pub(crate) fn in_text(words: &[&str], title: &str) -> bool {
    let title_words: Vec<&str> = title.split(' ').collect();
    let n = title_words.len();
    let starts = &title_words[..n.min(3)];
    for (i, w) in words.iter().enumerate() {
        if !starts.contains(w) {
            continue;
        }
        // The window may start a word or two before ("nonperturbative
        // renormalization" for "non perturbative renormalization").
        for start in i.saturating_sub(2)..=i {
            for len in n.saturating_sub(2).max(1)..=n + 2 {
                let Some(window) = words.get(start..start + len) else { break };
                if ratio(&window.join(" "), title) >= SAME_TITLE {
                    return true;
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fulltext::{Reference, refs};

    #[test]
    fn titles_years_and_dois_counted() {
        // latex_frg.pdf's first entries, one with a DOI printed (added here).
        let raws = [
            "1 J. Berges, N. Tetradis, and C. Wetterich, “Nonperturbative renormalization flow in quantum field theory and statistical physics,” Phys. Rep. 363, 223–386 (2002).",
            "2 W. Metzner, M. Salmhofer, C. Honerkamp, V. Meden, and K. Schönhammer, “Functional renormalization group approach to correlated fermion systems,” Rev. Mod. Phys. 84, 299–352 (2012), doi:10.1103/RevModPhys.84.299.",
            "3 R. M. Moon, T. Riste, and W. C. Koehler, Phys. Rev. 181, 920 (1969).",
        ];
        let doc = Document {
            references: raws
                .iter()
                .map(|r| Reference { label: None, raw: r.to_string(), page: 1, parsed: refs::parse(r) })
                .collect(),
            ..Document::default()
        };
        let gold = [
            GoldRef {
                title: "Non-perturbative renormalization flow in quantum field theory and statistical physics".into(),
                year: Some(2002),
                doi: Some("10.1016/S0370-1573(01)00098-9".into()),
            },
            GoldRef {
                title: "Functional renormalization group approach to correlated fermion systems".into(),
                year: Some(2011),
                doi: Some("10.1103/RevModPhys.84.299".into()),
            },
            GoldRef {
                title: "Polarization Analysis of Thermal-Neutron Scattering".into(),
                year: Some(1969),
                doi: None,
            },
            GoldRef { title: "Short".into(), year: None, doi: None },
        ];
        let f = reference_fields(&doc, &gold);
        assert_eq!(
            f,
            RefFigures {
                titles: 3,
                titles_parsed: 2,
                titles_raw: 2,
                years: 2,
                years_exact: 1,
                dois_printed: 1,
                dois_exact: 1
            }
        );
    }
}
