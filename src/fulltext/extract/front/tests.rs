//! Unit tests of `extract::front`.
use super::*;

#[test]
fn institution_lines() {
    assert!(institution_line("†Center for Spoken Language Understanding, Oregon Health & Science University"));
    assert!(institution_line("Technologies LLC, Ann Arbor, MI, United States of America"));
    assert!(institution_line("Continuous Electron Beam Accelerator Facility"));
    assert!(institution_line("Harvard-Smithsonian Center for Astrophysics, Smithsonian Astrophysical Observatory"));
    assert!(!institution_line("Maider Lehr†, Izhak Shafran†, Emily Prud’hommeaux◦ and Brian Roark†"));
    assert!(!institution_line("Labrador Smith and Centerwall Jones"), "whole words only");
}

#[test]
fn front_matter_blocks_are_not_abstracts() {
    for t in [
        "Department of Psychology, Royal College of Surgeons in Ireland, Dublin 2",
        "Correspondence should be addressed to H. Burke, hb@rcsi.ie",
        "Received 9 November 2010; Accepted 25 December 2010",
    ] {
        assert!(front_matter_block(t), "{t}");
    }
    // Prose that mentions what front matter says is prose.
    let prose = "Patients who received treatment were accepted into the trial when the department agreed.";
    assert!(!front_matter_block(prose));
    assert!(licence("Copyright © 2010 N. Tully et al. This is an open access article"));
    assert!(!licence("Objectives. Patient experiences of structured programmes"));
}

#[test]
fn names() {
    assert_eq!(as_name(" Jane van der Berg1,*"), Some("Jane van der Berg".into()));
    assert_eq!(as_name("Department of Physics"), None);
    assert_eq!(as_name("JOHN SMITH"), Some("John Smith".into()));
    assert_eq!(as_name("Member, IEEE"), None);
}

#[test]
fn labels() {
    assert_eq!(abstract_label("Abstract—Demand response"), Some("Demand response"));
    assert_eq!(abstract_label("A B S T R A C T"), Some(""));
    assert_eq!(abstract_label("Abstraction layers"), None);
}

/// An author grid: each name above its affiliation's lines, the same
/// affiliation under every name. A line printed twice in the block is not
/// a name, whatever its words.
#[test]
fn a_line_repeated_under_each_name_is_not_a_name() {
    let line = |text: &str, x0: f32, y: f32| Line {
        page: 1,
        x0,
        x1: x0 + 80.0,
        y,
        size: 8.5,
        text: text.into(),
        raised: Vec::new(),
        wide: Vec::new(),
        side: Side::Left,
    };
    let grid = [
        line("Jan-Niklas Antons", 193.0, 400.0),
        line("Robert Schleicher", 326.0, 400.0),
        line("Quality and Usability Lab", 193.0, 390.0),
        line("Quality and Usability Lab", 326.0, 390.0),
        line("TU Berlin", 193.0, 380.0),
        line("TU Berlin", 326.0, 380.0),
        line("Sebastian Arndt", 193.0, 340.0),
        line("TU Berlin", 193.0, 320.0),
    ];
    assert_eq!(author_lines(&grid), ["Jan-Niklas Antons", "Robert Schleicher", "Sebastian Arndt"]);
}

/// A title whose last line sits over the right column only (MapReduce's in
/// its CACM reprint) comes, in reading order, after the left column's first
/// lines; it is still the title's, and the abstract is found after it.
#[test]
fn a_title_line_read_out_of_order_is_still_the_titles() {
    let line = |text: &str, x0: f32, y: f32, size: f32, side: Side| Line {
        page: 1,
        x0,
        x1: x0 + 200.0,
        y,
        size,
        text: text.into(),
        raised: Vec::new(),
        wide: Vec::new(),
        side,
    };
    let lines = [
        line("MapReduce: Simplified Data Processing", 141.0, 720.0, 27.66, Side::Full),
        line("Abstract", 40.0, 642.0, 13.5, Side::Left),
        line("MapReduce is a programming model for processing large data sets.", 40.0, 626.0, 10.0, Side::Left),
        line("on Large Clusters", 366.0, 690.0, 27.66, Side::Right),
        line("by Jeffrey Dean and Sanjay Ghemawat", 382.0, 666.0, 10.0, Side::Right),
        line("1 Introduction", 320.0, 600.0, 12.0, Side::Right),
        line("Over the past five years the authors wrote many programs.", 320.0, 586.0, 10.0, Side::Right),
    ];
    let front = find(&lines, 10.0, None);
    assert_eq!(front.title.as_deref(), Some("MapReduce: Simplified Data Processing on Large Clusters"));
}
