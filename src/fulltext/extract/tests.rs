//! The reader on small PDFs the tests write themselves (Helvetica, placed
//! text), on hostile ones, and on the dev set's real papers when present.

use super::super::{Limits, PdfError};
use super::{front, read};

/// One piece of text: x, y (baseline), size, text.
type Run<'a> = (f32, f32, f32, &'a str);

/// A minimal PDF: one page per list of runs, the base-14 Helvetica font,
/// a correct cross-reference table.
pub(crate) fn make_pdf(pages: &[Vec<Run<'_>>]) -> Vec<u8> {
    make_turned_pdf(pages, 0, false)
}

/// [`make_pdf`] with every page stored turned and marked `/Rotate rotate`
/// (90, 180 or 270), so that a viewer shows it as [`make_pdf`]'s: each
/// run's position and direction are the shown ones turned back, and a
/// quarter turn stores the page on its side (612 × 792 shown from 792 × 612).
/// `on_tree`: the `/Rotate` is the page tree's, which the pages inherit.
fn make_turned_pdf(pages: &[Vec<Run<'_>>], rotate: u32, on_tree: bool) -> Vec<u8> {
    let (on_page, on_tree) = if on_tree {
        (String::new(), format!(" /Rotate {rotate}"))
    } else {
        (format!(" /Rotate {rotate}"), String::new())
    };
    let (w, h) = if rotate % 180 == 90 { (792.0f32, 612.0f32) } else { (612.0, 792.0) };
    // The shown (x, y) stored, and the text matrix's first four entries.
    let stored = |x: f32, y: f32| -> (f32, f32, &'static str) {
        match rotate {
            90 => (w - y, x, "0 1 -1 0"),
            180 => (w - x, h - y, "-1 0 0 -1"),
            270 => (y, h - x, "0 -1 1 0"),
            _ => (x, y, "1 0 0 1"),
        }
    };
    let mut objects: Vec<String> = Vec::new();
    let n = pages.len();
    // 1: catalog, 2: pages, 3: font, then per page: page, content.
    objects.push("<< /Type /Catalog /Pages 2 0 R >>".into());
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 4 + 2 * i)).collect();
    objects.push(format!("<< /Type /Pages /Kids [{}] /Count {n}{on_tree} >>", kids.join(" ")));
    objects.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".into());
    for (i, runs) in pages.iter().enumerate() {
        let mut content = String::new();
        for &(x, y, size, text) in runs {
            let escaped = text.replace('\\', "\\\\").replace('(', "\\(").replace(')', "\\)");
            let (x, y, turn) = stored(x, y);
            content.push_str(&format!("BT /F1 {size} Tf {turn} {x} {y} Tm ({escaped}) Tj ET\n"));
        }
        objects.push(format!("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w} {h}]{on_page} /Resources << /Font << /F1 3 0 R >> >> /Contents {} 0 R >>", 5 + 2 * i));
        objects.push(format!("<< /Length {} >>\nstream\n{content}endstream", content.len()));
    }
    assemble(&objects)
}

/// A PDF file of `objects` (object 1 the catalog), with a correct
/// cross-reference table.
fn assemble(objects: &[String]) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
    for off in offsets {
        out.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!("trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n", objects.len() + 1).as_bytes(),
    );
    out
}

/// Lines of running text for a column at `x`, from `y` down.
fn column<'a>(x: f32, y: f32, lines: &[&'a str]) -> Vec<Run<'a>> {
    lines.iter().enumerate().map(|(i, t)| (x, y - 12.0 * i as f32, 10.0, *t)).collect()
}

fn paper_page() -> Vec<Run<'static>> {
    let mut p1: Vec<Run<'_>> = vec![
        (150.0, 720.0, 18.0, "Reading Papers in Two Columns"),
        (220.0, 695.0, 11.0, "Jane Doe, John Smith"),
        (200.0, 680.0, 9.0, "Department of Physics, Some University"),
    ];
    p1.extend(column(60.0, 640.0, &["Abstract", "We read a paper set in two", "columns and find its parts."]));
    p1.extend(column(
        60.0,
        590.0,
        &[
            "1 Introduction",
            "The left column comes first",
            "and then the right one. This",
            "sentence is split by a hyphen-",
            "ation at the line end.",
        ],
    ));
    p1.extend(column(
        320.0,
        640.0,
        &[
            "The right column follows the",
            "left column in reading order.",
            "More text of the body here",
            "so that the page has lines.",
            "Figure 1: A caption of a figure.",
            "",
            "2 Results",
            "The results are good and we",
            "report them in this section.",
            "References",
            "[1] A. Author. A first title.",
            "In Proc. of X, 2019.",
            "[2] B. Author. A second title.",
            "Journal of Y, 2020.",
        ],
    ));
    p1.push((300.0, 40.0, 9.0, "1"));
    p1
}

fn paper() -> Vec<u8> {
    make_pdf(&[paper_page()])
}

/// A page a viewer shows turned (`/Rotate`, as scanners and landscape
/// typesetting leave it) reads as it is shown, whichever way it is stored:
/// without the turn, its text ran down or up the page and was set aside.
#[test]
fn a_turned_page_reads_as_it_is_shown() {
    let upright = read(&paper(), &Limits::default()).expect("reads");
    assert_eq!(upright.title.as_deref(), Some("Reading Papers in Two Columns"));
    for rotate in [90, 180, 270] {
        let doc = read(&make_turned_pdf(&[paper_page()], rotate, false), &Limits::default()).expect("reads");
        assert_eq!(doc.title, upright.title, "/Rotate {rotate}");
        assert_eq!(doc.authors, upright.authors, "/Rotate {rotate}");
        assert_eq!(doc.abstract_, upright.abstract_, "/Rotate {rotate}");
        assert_eq!(format!("{:?}", doc.sections), format!("{:?}", upright.sections), "/Rotate {rotate}");
        assert_eq!(format!("{:?}", doc.references), format!("{:?}", upright.references), "/Rotate {rotate}");
    }
}

/// One page set as dvips' bitmap fonts come out of Ghostscript: a Type 3
/// font per size, font matrix `[1 0 0 -1 0 0]`, every font set at 0.24
/// (its glyphs are `size / 0.24` units high), text matrices flipped to
/// match; letters 0.5 of the size wide, an `m` 0.6.
fn make_type3_pdf(runs: &[Run<'_>]) -> Vec<u8> {
    let mut sizes: Vec<f32> = runs.iter().map(|r| r.2).collect();
    sizes.sort_by(f32::total_cmp);
    sizes.dedup();
    let font_of = |size: f32| sizes.iter().position(|s| *s == size).unwrap_or(0);
    let mut content = String::new();
    for &(x, y, size, text) in runs {
        let escaped = text.replace('\\', "\\\\").replace('(', "\\(").replace(')', "\\)");
        content.push_str(&format!("BT /T{} 0.24 Tf 1 0 0 -1 {x} {y} Tm ({escaped}) Tj ET\n", font_of(size)));
    }
    // 1: catalog, 2: pages, 3: page, 4: content, 5: the glyph procedures, then the fonts.
    let names: Vec<String> = (32u8..=126).map(|c| format!("/g{c}")).collect();
    let procs: Vec<String> = (32u8..=126).map(|c| format!("/g{c} 4 0 R")).collect();
    let mut objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        String::new(),
        format!("<< /Length {} >>\nstream\n{content}endstream", content.len()),
        format!("<< {} >>", procs.join(" ")),
    ];
    let mut fonts = String::new();
    for (i, size) in sizes.iter().enumerate() {
        let unit = size / 0.24;
        let widths: Vec<String> =
            (32u8..=126).map(|c| format!("{:.3}", if c == b'm' { 0.6 } else { 0.5 } * unit)).collect();
        // Glyph names as dvips leaves them: the letters' own, the rest numbered.
        let mut differences = names.clone();
        for c in (b'a'..=b'z').chain(b'A'..=b'Z') {
            differences[usize::from(c - 32)] = format!("/{}", c as char);
        }
        differences[0] = "/space".into();
        objects.push(format!(
            "<< /Type /Font /Subtype /Type3 /FontBBox [0 0 {unit} {unit}] /FontMatrix [1 0 0 -1 0 0] /CharProcs 5 0 R \
             /Encoding << /Type /Encoding /Differences [32 {}] >> /FirstChar 32 /LastChar 126 /Widths [{}] /Resources << >> >>",
            differences.join(" "),
            widths.join(" ")
        ));
        fonts.push_str(&format!("/T{i} {} 0 R ", 6 + i));
    }
    objects[2] = format!(
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << {fonts}>> >> /Contents 4 0 R >>"
    );
    assemble(&objects)
}

/// A paper set in such Type 3 fonts reads as the same paper set in
/// Helvetica: `pdf-extract` takes every font's glyphs as a thousandth of
/// the size, and these came out 0.24 units high and upside down, so the
/// page had no text at all (`type3`).
#[test]
fn a_paper_in_dvips_bitmap_fonts_reads_as_in_ordinary_ones() {
    let upright = read(&paper(), &Limits::default()).expect("reads");
    let doc = read(&make_type3_pdf(&paper_page()), &Limits::default()).expect("reads");
    assert!(doc.notes.is_empty(), "{:?}", doc.notes);
    assert_eq!(doc.title, upright.title);
    assert_eq!(doc.authors, upright.authors);
    assert_eq!(doc.abstract_, upright.abstract_);
    assert_eq!(format!("{:?}", doc.sections), format!("{:?}", upright.sections));
    assert_eq!(format!("{:?}", doc.references), format!("{:?}", upright.references));
}

/// A paper in Arial without its widths (as scanning services set the text
/// layer over a page image) reads as the same paper in Helvetica: the font
/// gets Helvetica's metrics, as poppler gives it (`widthless`).
#[test]
fn a_font_without_widths_reads_with_its_stand_in_metrics() {
    let helvetica = "/Subtype /Type1 /BaseFont /Helvetica";
    let arial = "/Subtype /TrueType /BaseFont /Arial ";
    assert_eq!(helvetica.len(), arial.len(), "the offsets of the cross-reference table stay right");
    let pdf = String::from_utf8_lossy(&paper()).replace(helvetica, arial);
    assert!(pdf.contains("/BaseFont /Arial"));
    let upright = read(&paper(), &Limits::default()).expect("reads");
    let doc = read(pdf.as_bytes(), &Limits::default()).expect("reads");
    assert_eq!(doc.title, upright.title);
    assert_eq!(doc.authors, upright.authors);
    assert_eq!(doc.abstract_, upright.abstract_);
    assert_eq!(format!("{:?}", doc.sections), format!("{:?}", upright.sections));
    use super::widthless::stand_in;
    let names = ["Arial", "Arial,BoldItalic", "ABCDEF+TimesNewRomanPS-BoldMT", "CourierNewPSMT", "Georgia-Italic"];
    assert_eq!(names.map(stand_in), ["Helvetica", "Helvetica-BoldOblique", "Times-Bold", "Courier", "Times-Italic"]);
}

/// A journal's logo at the foot of the first page, in the page's largest
/// type (MDPI's), is not the title; nor is an AASTeX preprint's "Draft
/// version" line.
#[test]
fn a_logo_at_the_foot_and_a_draft_line_are_not_titles() {
    let mut page = paper_page();
    page.push((62.0, 15.6, 34.0, "biosensors"));
    let doc = read(&make_pdf(&[page]), &Limits::default()).expect("reads");
    assert_eq!(doc.title.as_deref(), Some("Reading Papers in Two Columns"));
    assert!(front::banner("Draft version October 18, 2016"));
}

/// A metadata title that names the file that made the PDF is not a title.
#[test]
fn a_file_name_is_not_a_title() {
    for t in ["paper.dvi", "main.tex", "Microsoft Word - draft.docx", "untitled", "ms.pdf", "x.dvi (landscape)"] {
        assert!(front::file_name_title(t), "{t}");
    }
    for t in ["Heavy Mesons In A Relativistic Model", "A .NET library for PDF", "The docx format in practice"] {
        assert!(!front::file_name_title(t), "{t}");
    }
}

/// `/Rotate` is inherited from the page tree, and only quarter turns count.
#[test]
fn rotation_is_read_in_quarter_turns() {
    use super::glyphs::quarter_turns;
    assert_eq!([0, 90, 180, 270, 360, -90, 450, 45].map(quarter_turns), [0, 90, 180, 270, 0, 270, 90, 0]);
    let inherited = make_turned_pdf(&[paper_page()], 270, true);
    assert!(String::from_utf8_lossy(&inherited).contains("/Count 1 /Rotate 270 >>"));
    let doc = read(&inherited, &Limits::default()).expect("reads");
    assert_eq!(doc.title.as_deref(), Some("Reading Papers in Two Columns"));
    assert_eq!(doc.abstract_.as_deref(), Some("We read a paper set in two columns and find its parts."));
}

#[test]
fn two_columns_front_matter_sections_captions_references() {
    let doc = read(&paper(), &Limits::default()).expect("reads");
    assert_eq!(doc.pages, 1);
    assert_eq!(doc.title.as_deref(), Some("Reading Papers in Two Columns"));
    assert_eq!(doc.authors, vec!["Jane Doe".to_string(), "John Smith".to_string()]);
    assert_eq!(doc.abstract_.as_deref(), Some("We read a paper set in two columns and find its parts."));
    let headings: Vec<&str> = doc.sections.iter().map(|s| s.heading.as_str()).collect();
    assert_eq!(headings, vec!["1 Introduction", "2 Results"]);
    let intro = &doc.sections[0].paragraphs[0].text;
    assert!(intro.starts_with("The left column comes first and then the right one."), "{intro}");
    // De-hyphenated; the sentence ends with the left column, so the right
    // column opens the next paragraph of the same section.
    assert!(intro.ends_with("This sentence is split by a hyphenation at the line end."), "{intro}");
    let next = &doc.sections[0].paragraphs[1].text;
    assert!(next.starts_with("The right column follows the left column in reading order."), "{next}");
    assert_eq!(doc.captions.len(), 1);
    assert_eq!(doc.captions[0].text, "Figure 1: A caption of a figure.");
    assert_eq!(doc.references.len(), 2);
    assert_eq!(doc.references[0].label.as_deref(), Some("1"));
    assert_eq!(doc.references[0].raw, "A. Author. A first title. In Proc. of X, 2019.");
    // The page number at the foot is not text of the body.
    assert!(doc.sections.iter().flat_map(|s| &s.paragraphs).all(|p| p.text.trim() != "1"));
}

/// A last page as revtex sets it: the body's columns balanced, an empty
/// strip across the page, then the reference list in two columns with no
/// heading, one entry running from the left column into the right. The
/// body's right column is read before the list, so the entry is whole.
/// Columns that do not line up at both ends of such a strip stay one band.
#[test]
fn balanced_columns_above_an_empty_strip_are_read_before_the_columns_below() {
    let mut filler: Vec<String> = (0..14).map(|i| format!("Running text of the body, line {i} of it.")).collect();
    filler.push("The end of page one.".into());
    let filler: Vec<&str> = filler.iter().map(String::as_str).collect();
    let mut p1 = column(60.0, 700.0, &filler[..8]);
    p1.extend(column(320.0, 700.0, &filler[8..]));
    let mut p2 = column(60.0, 700.0, &filler[..4]);
    p2.extend(column(60.0, 652.0, &["The last paragraph of the body", "goes on here and the con-"]));
    p2.extend(column(320.0, 700.0, &["stant factor is small, as the", "results above show."]));
    p2.extend(column(320.0, 676.0, &filler[4..8]));
    p2.extend(column(60.0, 580.0, &["[1] A. Author, Phys. Rev. 1, 2 (2001).", "[2] B. Author, C. Mi-"]));
    p2.extend(column(
        320.0,
        580.0,
        &["tamura, and D. Author, Nature 3,", "4 (2002).", "[3] E. Author, Science 5, 6 (2003)."],
    ));
    let doc = read(&make_pdf(&[p1, p2]), &Limits::default()).expect("reads");
    let raws: Vec<&str> = doc.references.iter().map(|r| r.raw.as_str()).collect();
    assert_eq!(
        raws,
        [
            "A. Author, Phys. Rev. 1, 2 (2001).",
            "B. Author, C. Mitamura, and D. Author, Nature 3, 4 (2002).",
            "E. Author, Science 5, 6 (2003)."
        ],
    );
    let body: Vec<&str> = doc.sections.iter().flat_map(|s| &s.paragraphs).map(|p| p.text.as_str()).collect();
    assert!(body.iter().any(|t| t.contains("the constant factor is small, as the results above show.")), "{body:?}");

    // The right column's text starts lower than the left's below the strip:
    // not balanced, so each column is read whole, top to bottom.
    let mut p = column(60.0, 700.0, &filler[..6]);
    p.extend(column(320.0, 700.0, &filler[6..12]));
    p.extend(column(60.0, 580.0, &["Left below the strip."]));
    p.extend(column(320.0, 556.0, &["Right below the strip."]));
    let doc = read(&make_pdf(&[p]), &Limits::default()).expect("reads");
    let text: String =
        doc.sections.iter().flat_map(|s| &s.paragraphs).map(|p| p.text.as_str()).collect::<Vec<_>>().join(" ");
    let (left_below, right_above) = (text.find("Left below").unwrap(), text.find("line 6 of it").unwrap());
    assert!(left_below < right_above, "{text}");
}

#[test]
fn running_headers_are_removed_and_pages_kept() {
    let body = ["Some running text of the body that goes on", "for a while and ends here."];
    let mut pages = Vec::new();
    for i in 0..4 {
        let mut p: Vec<Run<'_>> = vec![(200.0, 760.0, 8.0, "Journal of Examples, Vol. 3")];
        p.extend(column(72.0, 600.0, &body));
        p.push((300.0, 40.0, 8.0, ["1", "2", "3", "4"][i]));
        pages.push(p);
    }
    let doc = read(&make_pdf(&pages), &Limits::default()).expect("reads");
    assert_eq!(doc.pages, 4);
    let text: Vec<&str> = doc.sections.iter().flat_map(|s| &s.paragraphs).map(|p| p.text.as_str()).collect();
    assert!(text.iter().all(|t| !t.contains("Journal of Examples")), "{text:?}");
    let pages: Vec<u32> =
        doc.sections.iter().flat_map(|s| &s.paragraphs).flat_map(|p| p.page_starts.iter().map(|x| x.1)).collect();
    assert!(pages.contains(&4), "{pages:?}");
}

#[test]
fn an_unbracketed_numbered_list_is_the_reference_list() {
    use super::body::starts_first_entry;
    assert!(starts_first_entry("1 J. Berges, N. Tetradis, and C. Wetterich, Phys."));
    assert!(starts_first_entry("1. Smith, J. A study."));
    assert!(!starts_first_entry("1 The first step is"));
    assert!(!starts_first_entry("2 J. Berges"));
}

#[test]
fn a_page_without_text_says_so() {
    let doc = read(&make_pdf(&[vec![]]), &Limits::default()).expect("reads");
    assert!(doc.notes.iter().any(|n| n.contains("no text layer")), "{:?}", doc.notes);
}

#[test]
fn pages_past_the_limit_are_not_read() {
    let pages: Vec<Vec<Run<'_>>> = (0..3).map(|_| column(72.0, 700.0, &["A line of text on this page."])).collect();
    let limits = Limits { max_pages: 2, ..Limits::default() };
    let doc = read(&make_pdf(&pages), &limits).expect("reads");
    assert_eq!(doc.pages, 3);
    assert!(doc.notes.iter().any(|n| n.contains("first 2 pages")), "{:?}", doc.notes);
}

#[test]
fn bad_files_are_errors_not_panics() {
    assert!(matches!(read(b"hello", &Limits::default()), Err(PdfError::Corrupt(_))));
    assert!(matches!(read(b"%PDF-1.4\n garbage", &Limits::default()), Err(PdfError::Corrupt(_))));
    let whole = paper();
    for cut in [20, whole.len() / 3, whole.len() / 2, whole.len() - 30] {
        // Truncated: an error or what could be read, never a panic.
        let _ = read(&whole[..cut], &Limits::default());
    }
    let big = Limits { max_file_bytes: 100, ..Limits::default() };
    assert!(matches!(read(&whole, &big), Err(PdfError::Limit(_))));
}

#[test]
fn an_encrypted_file_is_a_note() {
    let mut pdf = paper();
    let text = String::from_utf8_lossy(&pdf).into_owned();
    let trailer = text.rfind("/Root 1 0 R").expect("trailer");
    let patched = format!(
        "{}/Root 1 0 R /Encrypt << /Filter /Standard /V 2 /R 3 /Length 128 /O (0123456789abcdef0123456789abcdef) /U (0123456789abcdef0123456789abcdef) /P -4 >> /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>]{}",
        &text[..trailer],
        &text[trailer + "/Root 1 0 R".len()..]
    );
    pdf = patched.into_bytes();
    let doc = read(&pdf, &Limits::default()).expect("a document with a note");
    assert!(doc.notes.iter().any(|n| n.starts_with("encrypted")), "{:?}", doc.notes);
}

/// The dev set's papers, when ../shared is there: each reads, has its
/// gold page count, a title and some body text.
#[test]
fn dev_pdfs_read() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/pdfs");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipped: {} is absent", dir.display());
        return;
    };
    let mut n = 0;
    let mut thin = Vec::new();
    let mut untitled = Vec::new();
    for e in entries.flatten() {
        let path = e.path();
        if path.extension().and_then(|x| x.to_str()) != Some("pdf") {
            continue;
        }
        let bytes = std::fs::read(&path).expect("read");
        let doc = read(&bytes, &Limits::default()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(doc.pages > 0, "{}", path.display());
        match &doc.title {
            Some(t) => assert!(!front::file_name_title(t), "{}: the title {t:?} names a file", path.display()),
            None => untitled.push(path.file_name().unwrap_or_default().to_string_lossy().into_owned()),
        }
        let words: usize =
            doc.sections.iter().flat_map(|s| &s.paragraphs).map(|p| p.text.split_whitespace().count()).sum();
        if words <= 500 {
            thin.push(format!("{}: {words} words", path.display()));
        }
        n += 1;
    }
    assert!(n >= 30, "{n} PDFs");
    assert!(untitled.is_empty(), "papers without a title: {untitled:?}");
    // Every paper has its body, cermine_complex.pdf's (Type 3 bitmap fonts,
    // every page turned) included.
    assert!(thin.is_empty(), "{thin:?}");
}

/// Writes each dev PDF's document to $LITINDEX_PDF_DUMP/NAME.txt, for
/// looking at what the reader makes of it (`cargo test --lib dump_dev -- --ignored`).
#[test]
#[ignore]
fn dump_dev() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/pdfs");
    let out = std::path::PathBuf::from(std::env::var("LITINDEX_PDF_DUMP").unwrap_or_else(|_| "/tmp/pdf_dump".into()));
    std::fs::create_dir_all(&out).expect("dump dir");
    for e in std::fs::read_dir(&dir).expect("dev pdfs").flatten() {
        let path = e.path();
        if path.extension().and_then(|x| x.to_str()) != Some("pdf") {
            continue;
        }
        let doc = read(&std::fs::read(&path).expect("read"), &Limits::default());
        let mut s = String::new();
        match doc {
            Err(e) => s.push_str(&format!("ERROR {e}\n")),
            Ok(d) => {
                s.push_str(&format!(
                    "pages {}\ntitle {:?}\nauthors {:?}\nyear {:?} doi {:?} arxiv {:?}\nnotes {:?}\nabstract {:?}\n",
                    d.pages, d.title, d.authors, d.year, d.doi, d.arxiv, d.notes, d.abstract_
                ));
                for sec in &d.sections {
                    s.push_str(&format!("\n## [{}] {}\n", sec.level, sec.heading));
                    for p in &sec.paragraphs {
                        s.push_str(&format!("  p{:?} {}\n", p.page_starts, p.text));
                    }
                }
                for c in &d.captions {
                    s.push_str(&format!("CAPTION p{} {}\n", c.page, c.text));
                }
                for r in &d.references {
                    s.push_str(&format!("REF {:?} p{} {}\n", r.label, r.page, r.raw));
                }
            }
        }
        let name = path.file_stem().and_then(|x| x.to_str()).unwrap_or("x").to_string();
        std::fs::write(out.join(format!("{name}.txt")), s).expect("write");
    }
}
