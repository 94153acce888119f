//! Documents built from real text of the dev set (pdftotext output of the
//! PDF named above each; lines joined), references parsed as `read_pdf`
//! parses them.

use super::*;
use crate::fulltext::{Paragraph, Section, refs};

fn reference(label: Option<&str>, raw: &str) -> Reference {
    Reference { label: label.map(str::to_string), raw: raw.to_string(), page: 7, parsed: refs::parse(raw) }
}

fn doc(paragraphs: Vec<Paragraph>, references: Vec<Reference>) -> Document {
    Document {
        sections: vec![Section { heading: "1 Introduction".into(), level: 1, paragraphs }],
        references,
        ..Document::default()
    }
}

fn para(text: &str) -> Paragraph {
    Paragraph { text: text.to_string(), page_starts: vec![(0, 1)], raised: Vec::new() }
}

fn sentences(doc: &Document, contexts: &[CitationContext]) -> Vec<(String, Vec<usize>)> {
    contexts
        .iter()
        .map(|c| {
            (doc.sections[c.section].paragraphs[c.paragraph].text[c.start..c.end].to_string(), c.references.clone())
        })
        .collect()
}

#[test]
fn author_year_citations_resolve_by_surname_year_and_suffix() {
    // latex_icaps19.pdf (AAAI)
    let refs = vec![
        reference(
            Some("Baptiste, Pape, and Nuijten 2001"),
            "Baptiste, P.; Pape, C. L.; and Nuijten, W. 2001. Constraint-Based Scheduling. Norwell, MA, USA: Kluwer Academic Publishers.",
        ),
        reference(
            Some("Lallouet et al. 2010"),
            "Lallouet, A.; Lopez, M.; Martin, L.; and Vrain, C. 2010. On learning constraint problems. In Tools with Artificial Intelligence (ICTAI), 2010 22nd IEEE International Conference on, volume 1, 45–52. IEEE.",
        ),
        reference(
            Some("Senderovich et al. 2015a"),
            "Senderovich, A.; Rogge-Solti, A.; Gal, A.; Mendling, J.; Mandelbaum, A.; Kadish, S.; and Bunnell, C. A. 2015a. Data-driven performance analysis of scheduled processes. In Motahari-Nezhad et al. (2015), 35–52.",
        ),
        reference(
            Some("2015b"),
            "Senderovich, A.; Rogge-Solti, A.; Gal, A.; Mendling, J.; Mandelbaum, A.; Kadish, S.; and Bunnell, C. A. 2015b. Data-driven performance analysis of scheduled processes. In Motahari-Nezhad et al. (2015), 35–52.",
        ),
        reference(
            Some("1996"),
            "Van der Aalst, W. 1996. Petri net based scheduling. Operations-Research-Spektrum 18(4):219–229.",
        ),
    ];
    let text = "In deterministic scheduling, Constraint Programming (CP) has been shown to be extremely effective in solving a wide range of problems (Baptiste, Pape, and Nuijten 2001, Chapter 6), (Lallouet et al. 2010). However, creating CP models often requires a high level of expertise (Lallouet et al. 2010). Queues were mined from their execution data (Senderovich et al. 2015b). Petri nets schedule too (van der Aalst 1996). Nothing is cited in 2019 (2020).";
    let d = doc(vec![para(text)], refs);
    let found = find(&d);
    let got = sentences(&d, &found);
    assert_eq!(got.len(), 4, "{got:?}");
    assert!(got[0].0.starts_with("In deterministic scheduling"));
    assert!(got[0].0.ends_with("(Lallouet et al. 2010)."));
    assert_eq!(got[0].1, [0, 1]);
    assert_eq!(found[0].markers, ["(Baptiste, Pape, and Nuijten 2001, Chapter 6)", "(Lallouet et al. 2010)"]);
    assert_eq!(got[1].1, [1]);
    assert_eq!(got[2].1, [3]);
    assert_eq!(got[3].1, [4]);
}

#[test]
fn narrative_citations_and_second_authors() {
    // latex_jas2018.pdf (AMS)
    let refs = vec![
        reference(
            None,
            "Bryan, G. H., 2012: Effects of surface exchange coefficients and turbulence length scales on the intensity and structure of numerically simulated hurricanes. Mon. Wea. Rev., 140, 1125–1143.",
        ),
        reference(
            None,
            "Bryan, G. H., and R. Rotunno, 2009: The maximum intensity of tropical cyclones in axisymmetric numerical model simulations. Mon. Wea. Rev., 137, 1770–1789.",
        ),
        reference(
            None,
            "Duran, P., and J. Molinari, 2018: Dramatic inner-core tropopause variability during the rapid intensification of Hurricane Patricia (2015). Mon. Wea. Rev., 146, 119–134.",
        ),
    ];
    let text = "The model is described in Bryan and Rotunno (2009). The mixing length follows Bryan and Rotunno (2009, pg. 1773), consistent with the results of Bryan (2012). The tropopause warmed throughout RI (Duran and Molinari 2018). Hurricane Patricia (2015) set a record.";
    let d = doc(vec![para(text)], refs);
    let got = sentences(&d, &find(&d));
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[0].1, [1]);
    assert_eq!(got[1].1, [1, 0]);
    assert_eq!(got[2].1, [2]);
}

#[test]
fn numeric_citations_by_label_position_and_superscript() {
    // latex_tii.pdf (IEEEtran)
    let refs: Vec<Reference> = (1..=18)
        .map(|n| reference(Some(&n.to_string()), &format!("A. Author{n}. Title number {n}. Venue, 20{:02}.", n % 20)))
        .collect();
    let text = "Emergency demand response [3] is utilized when there is insufficient supply. Demand response has many benefits including decrease in price variations [17], increased reliability [12], congestion management [9] and security enhancement [3–5, 18]. The interval [0, 1] and x ∈ [2, 3] are no citations.";
    let mut p = para(text);
    p.page_starts = vec![(0, 1), (80, 2)];
    let d = doc(vec![p], refs);
    let found = find(&d);
    let got = sentences(&d, &found);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0].1, [2]);
    assert_eq!(found[0].page, 1);
    assert_eq!(got[1].1, [16, 11, 8, 2, 3, 4, 17]);
    assert_eq!(found[1].page, 2);

    // latex_frg.pdf (AIP): superscript numbers, labels by position.
    let refs: Vec<Reference> = (1..=10)
        .map(|n| reference(None, &format!("B. Writer{n}, “A title {n},” Phys. Rev. B {n}, 1 (2001).")))
        .collect();
    let text = "The flow equation for the vertex can be written as2,9 where x2 is a square.";
    let at = text.find("2,9").unwrap();
    let x = text.find("x2").unwrap() + 1;
    let mut p = para(text);
    p.raised = vec![(at, at + 3), (x, x + 1)];
    let d = doc(vec![p], refs);
    let found = find(&d);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].references, [1, 8]);
    assert_eq!(found[0].markers, ["2,9"]);
}

#[test]
fn nothing_without_references() {
    let d = doc(vec![para("As shown [1] and (Smith 2019).")], Vec::new());
    assert!(find(&d).is_empty());
    // A number past the list resolves to nothing.
    let d = doc(vec![para("As shown [40].")], vec![reference(Some("1"), "A. B. Title. 2001.")]);
    assert!(find(&d).is_empty());
}

mod arbitrary {
    use super::*;
    use proptest::prelude::*;

    /// `PROPTEST_CASES` for a longer run, else 2000.
    fn cases(default: u32) -> u32 {
        std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(default)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: cases(2000), ..ProptestConfig::default() })]

        #[test]
        fn any_body_gives_valid_contexts(
            text in "[\\PC\\s\\[\\]()0-9,;–-]{0,300}|(\\(Smith( et al\\.)?,? 20[0-2][0-9][ab]?\\)|\\[[0-9]{1,2}(–[0-9])?\\]|Smith \\(2019\\)|[a-z ]{1,8}|[.²³¹])*",
            raised in proptest::collection::vec((0usize..320, 0usize..12), 0..6),
        ) {
            let refs = vec![
                reference(Some("1"), "Smith, J. 2019a. A title. Venue."),
                reference(Some("2"), "Smith, J., and K. Jones, 2019: Another. Venue."),
                reference(None, "[3] A. Lee, “Third,” Phys. Rev. 1, 2 (2020)."),
            ];
            let mut p = para(&text);
            p.raised = raised.into_iter().map(|(s, l)| (s, s + l)).collect();
            let d = doc(vec![p], refs);
            for c in find(&d) {
                let t = &d.sections[c.section].paragraphs[c.paragraph].text;
                prop_assert!(c.start < c.end && c.end <= t.len() && t.is_char_boundary(c.start) && t.is_char_boundary(c.end));
                prop_assert!(!c.references.is_empty() && c.references.iter().all(|&r| r < 3));
                prop_assert!(!c.markers.is_empty());
            }
        }
    }
}
