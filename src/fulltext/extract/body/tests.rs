//! Unit tests of `extract::body`.
use super::*;

fn line(text: &str, x0: f32, x1: f32, y: f32, size: f32) -> Line {
    Line {
        page: 3,
        x0,
        x1,
        y,
        size,
        text: text.into(),
        raised: Vec::new(),
        wide: Vec::new(),
        side: crate::fulltext::extract::layout::Side::Right,
    }
}

#[test]
fn a_heading_that_filled_its_column_goes_on_below() {
    let h = line("2. Accomplishing Common Observational", 317.0, 530.0, 487.3, 9.96);
    let next = [
        line("Health Research Tasks within Julia", 336.0, 513.0, 475.4, 9.96),
        line("Researchers who use the OMOP CDM tend to rely on a set of tools", 317.0, 553.0, 463.5, 9.96),
    ];
    assert_eq!(wrapped_heading(&h, &next, 553.0), 1);
    // A short heading does not take the line below; nor does one ending a sentence.
    assert_eq!(wrapped_heading(&line("2. Methods", 317.0, 370.0, 487.3, 9.96), &next, 553.0), 0);
    assert_eq!(
        wrapped_heading(&line("2. Accomplishing Common Observational.", 317.0, 530.0, 487.3, 9.96), &next, 553.0),
        0
    );
}

/// A heading of three lines: its middle line fills the column too, and the
/// short line after it ends the heading. A full line that no short one
/// ends is the body's first line.
#[test]
fn a_heading_of_three_lines_keeps_its_middle_line() {
    let h = line("3. Conducting a Small-Scale Observational", 54.0, 274.0, 767.5, 9.96);
    let next = [
        line("Health Research Study Using JuliaHealth", 73.0, 283.0, 755.6, 9.96),
        line("Tools", 73.0, 95.0, 743.7, 9.96),
        line("Making use of the tools described, we conduct a small", 54.0, 283.0, 731.8, 9.96),
    ];
    assert_eq!(wrapped_heading(&h, &next, 283.0), 2);
    let body = [
        line("Health research with these tools goes", 54.0, 283.0, 755.6, 9.96),
        line("on over several lines of the body text", 54.0, 283.0, 743.7, 9.96),
    ];
    assert_eq!(wrapped_heading(&h, &body, 283.0), 0);
}

/// "C. Results" in the body's size is an IEEE subsection even though
/// "Results" names a section; "I. INTRODUCTION" and "V. RESULTS" are
/// sections numbered in roman numerals.
#[test]
fn a_lettered_known_name_is_a_subsection() {
    let level = |t: &str, size: f32| heading_level(&line(t, 317.0, 400.0, 305.6, size), 9.96, false);
    assert_eq!(level("C. Results", 9.96), Some(2));
    assert_eq!(level("I. INTRODUCTION", 9.96), Some(1));
    assert_eq!(level("V. RESULTS", 9.96), Some(1));
    assert_eq!(level("Results", 9.96), Some(1));
    assert_eq!(level("B Results", 12.0), Some(1), "a larger lettered heading is an appendix");
}

#[test]
fn unnumbered_headings_in_a_smaller_size_are_subsections() {
    let sec = |h: &str| Section { heading: h.into(), level: 1, paragraphs: Vec::new() };
    let mut sections =
        vec![sec("The Dataset"), sec("Sequential Analysis"), sec("Diagnosing Data"), sec("Acknowledgments")];
    levels_by_size(&mut sections, &[(17.2, false), (14.3, false), (17.2, false), (12.0, false)]);
    let levels: Vec<u8> = sections.iter().map(|s| s.level).collect();
    assert_eq!(levels, [1, 2, 1, 1], "the named heading keeps its level");
    // One heading of the larger size alone is not a pattern.
    let mut sections = vec![sec("Big"), sec("Small one"), sec("Small two")];
    levels_by_size(&mut sections, &[(17.2, false), (14.3, false), (14.3, false)]);
    assert!(sections.iter().all(|s| s.level == 1));
}

#[test]
fn what_closes_a_reference_list() {
    for t in ["LIST OF FIGURES", "List of Tables", "Appendix A: Derivations", "APPENDICES", "Supplementary Material"] {
        assert!(ends_references(t), "{t}");
    }
    for t in [
        "Appendix A of Smith et al. (2019) shows that the derivation in the main text holds in general",
        "Figures 1-3",
        "Tables of Integrals, Series, and Products. Academic Press.",
    ] {
        assert!(!ends_references(t), "{t}");
    }
}

#[test]
fn a_paragraph_resumes_past_a_footnote_at_the_column_foot() {
    // latex_icaps19.pdf: AAAI's copyright block at the foot of the left
    // column, the paragraph going on at the top of the right one.
    let left = |text: &str, y: f32, size: f32| {
        let mut l = line(text, 54.0, 292.0, y, size);
        l.side = crate::fulltext::extract::layout::Side::Left;
        l
    };
    let lines = [
        left("In deterministic scheduling, Constraint Programming (CP) has been", 120.0, 10.0),
        left("shown to be effective on a wide range of problems (Baptiste, Pape, and Nuijten", 108.0, 10.0),
        left(
            "Copyright 2019, Association for the Advancement of Artificial Intelligence. All rights reserved.",
            70.0,
            8.0,
        ),
        line("2001, Chapter 6), (Lallouet et al. 2010). However, creating models is hard.", 318.0, 558.0, 700.0, 10.0),
        line("It is.", 318.0, 350.0, 688.0, 10.0),
        line("A new paragraph starts here and it ends as a sentence should end.", 318.0, 558.0, 680.0, 10.0),
    ];
    let body = build(&lines, 10.0);
    let texts: Vec<&str> = body.sections[0].paragraphs.iter().map(|p| p.text.as_str()).collect();
    assert_eq!(texts.len(), 3, "{texts:?}");
    assert!(texts[0].starts_with("Copyright"), "{texts:?}");
    assert!(texts[1].contains("(Baptiste, Pape, and Nuijten 2001, Chapter 6), (Lallouet"), "{texts:?}");
    // A displayed formula set small, which ends no sentence, is not skipped.
    let eq = [
        left("the closed-form update obtained by cancelling the gradient is given by", 120.0, 10.0),
        left("λ(t) = Σ exp(x)", 100.0, 8.0),
        left("for all t ≥ 0, which is a Breslow like estimator.", 80.0, 10.0),
    ];
    let body = build(&eq, 10.0);
    let texts: Vec<&str> = body.sections[0].paragraphs.iter().map(|p| p.text.as_str()).collect();
    assert!(texts[0].ends_with("given by"), "{texts:?}");
}
