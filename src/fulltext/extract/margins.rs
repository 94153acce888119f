//! Running headers and footers, page numbers and line numbers removed: text
//! repeated near the same height on many pages (its digits folded, so
//! "Page 3" and "Page 4" agree), digits-only lines at the top or bottom of a
//! page, and digits-only columns in the side margins.

use std::collections::HashMap;

use super::glyphs::Page;
use super::layout::Line;
use super::text::fold_digits;

fn digits_only(s: &str) -> bool {
    let t = s.trim();
    !t.is_empty() && t.len() <= 5 && t.chars().all(|c| c.is_ascii_digit())
}

/// A page number line: "3", "- 3 -", "Page 3", "3 of 12", roman numerals.
fn page_number(s: &str) -> bool {
    let t: String = s.trim().trim_matches(|c: char| c == '-' || c == '–' || c == ' ').to_lowercase();
    if digits_only(&t) {
        return true;
    }
    let t = t.strip_prefix("page").map_or(t.as_str(), str::trim);
    if digits_only(t) {
        return true;
    }
    if let Some((a, b)) = t.split_once(" of ") {
        return digits_only(a) && digits_only(b);
    }
    !t.is_empty() && t.len() <= 6 && t.chars().all(|c| matches!(c, 'i' | 'v' | 'x' | 'l'))
}

/// Removes the margins' text from every page's lines (in place).
pub(crate) fn strip(pages: &[Page], lines: &mut [Vec<Line>]) {
    let n = lines.len();
    // Top and bottom bands: the page's text area edges.
    let mut keyed: HashMap<(String, i32), usize> = HashMap::new();
    let band = |p: &Page, l: &Line| -> Option<bool> {
        let h = (p.y1 - p.y0).max(1.0);
        let rel = (l.y - p.y0) / h;
        if rel > 0.88 {
            Some(true)
        } else if rel < 0.10 {
            Some(false)
        } else {
            None
        }
    };
    let key = |l: &Line| (fold_digits(&l.text), (l.y / 6.0).round() as i32);
    for (p, ls) in pages.iter().zip(lines.iter()) {
        let mut seen = std::collections::HashSet::new();
        for l in ls {
            if band(p, l).is_some() {
                let k = key(l);
                if !k.0.is_empty() && seen.insert(k.clone()) {
                    *keyed.entry(k).or_default() += 1;
                }
            }
        }
    }
    let repeated = |l: &Line| -> bool {
        let k = key(l);
        let count = keyed.get(&k).copied().unwrap_or(0);
        // Also the neighbouring height bucket (rounding).
        let near =
            keyed.get(&(k.0.clone(), k.1 + 1)).copied().unwrap_or(0) + keyed.get(&(k.0, k.1 - 1)).copied().unwrap_or(0);
        let c = count + near;
        n >= 3 && c >= 3.max(n / 4 + 1).min(n)
    };
    // Line numbers: digits-only lines beside the text block (left of its
    // left edge or right of its right edge, or in the outer 14 % of the
    // page). A page with 10 or more is numbered; when two pages are, the
    // document is, and its pages with fewer (a title page) lose theirs too.
    // A list's hanging labels ("1", "2" beside their entries) are not line
    // numbers: those number every line, with no text line between two.
    let numbers: Vec<usize> = pages
        .iter()
        .zip(lines.iter())
        .map(|(p, ls)| {
            let found: Vec<&Line> = ls.iter().filter(|l| side_number(p, ls, l)).collect();
            if every_line(ls, &found) { found.len() } else { 0 }
        })
        .collect();
    let numbered_document = numbers.iter().filter(|&&c| c >= 10).count() >= 2;
    for ((p, ls), count) in pages.iter().zip(lines.iter_mut()).zip(numbers) {
        let numbered = count >= 10 || (numbered_document && count > 0);
        let drop: Vec<bool> = ls
            .iter()
            .map(|l| {
                // A number with text beside it on its row is a label, not the page's number.
                let alone =
                    || !ls.iter().any(|m| !digits_only(&m.text) && (m.y - l.y).abs() <= 0.3 * l.size.max(m.size));
                (band(p, l).is_some() && ((page_number(&l.text) && alone()) || repeated(l)))
                    || (numbered && side_number(p, ls, l))
            })
            .collect();
        let mut keep = drop.iter().map(|d| !d);
        ls.retain(|_| keep.next().unwrap_or(true));
    }
}

/// Whether the numbers `found` among a page's `lines` number every line:
/// between two consecutive numbers (down the page) lies, in the median, no
/// other text line.
fn every_line(lines: &[Line], found: &[&Line]) -> bool {
    let mut ys: Vec<f32> = found.iter().map(|l| l.y).collect();
    ys.sort_by(|a, b| b.total_cmp(a));
    let mut between: Vec<usize> = ys
        .windows(2)
        .map(|w| lines.iter().filter(|m| !digits_only(&m.text) && m.y < w[0] - 1.0 && m.y > w[1] + 1.0).count())
        .collect();
    if between.is_empty() {
        return false;
    }
    between.sort_unstable();
    between[between.len() / 2] == 0
}

/// Whether `l` is a digits-only line beside the text block of its page's `lines`.
fn side_number(p: &Page, lines: &[Line], l: &Line) -> bool {
    if !digits_only(&l.text) {
        return false;
    }
    let w = (p.x1 - p.x0).max(1.0);
    if (l.x1 - p.x0) / w < 0.14 || (l.x0 - p.x0) / w > 0.86 {
        return true;
    }
    let text = lines.iter().filter(|t| !digits_only(&t.text));
    let (left, right) = text.fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), t| (a.min(t.x0), b.max(t.x1)));
    l.x1 <= left - 1.0 || l.x0 >= right + 1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str, x0: f32, x1: f32, y: f32) -> Line {
        Line {
            page: 1,
            x0,
            x1,
            y,
            size: 10.0,
            text: text.into(),
            raised: Vec::new(),
            wide: Vec::new(),
            side: super::super::layout::Side::Full,
        }
    }

    #[test]
    fn line_numbers_beside_an_indented_block_go_and_a_numbered_documents_title_page_loses_its_few() {
        let page =
            |n| Page { number: n, x0: 0.0, y0: 0.0, x1: 612.0, y1: 792.0, glyphs: Vec::new(), rotated: String::new() };
        // Page 2: an indented block (x 102..471) with its numbers at x 86..92, 15% of the width in.
        let numbered: Vec<Line> = (0..12)
            .flat_map(|i| {
                let y = 650.0 - 27.0 * i as f32;
                [line(&format!("{}", i + 8), 86.0, 92.0, y), line("text of the abstract goes on here", 102.0, 471.0, y)]
            })
            .collect();
        // Page 1: a title page with four numbers at x 40..43 and a table cell "2019" inside the block.
        let title: Vec<Line> = (0..4)
            .flat_map(|i| {
                let y = 600.0 - 40.0 * i as f32;
                [line(&format!("{}", i + 1), 40.0, 43.0, y), line("Title words", 58.0, 515.0, y)]
            })
            .chain([line("2019", 200.0, 220.0, 300.0)])
            .collect();
        let mut lines = vec![title, numbered.clone(), numbered];
        strip(&[page(1), page(2), page(3)], &mut lines);
        assert!(lines[1].iter().chain(&lines[2]).all(|l| !digits_only(&l.text)), "{:?}", lines[1]);
        let left: Vec<&str> = lines[0].iter().map(|l| l.text.as_str()).collect();
        assert_eq!(left, ["Title words", "Title words", "Title words", "Title words", "2019"]);
    }

    #[test]
    fn a_reference_lists_hanging_labels_stay_even_at_the_top_of_a_column() {
        let page =
            Page { number: 1, x0: 0.0, y0: 0.0, x1: 595.0, y1: 792.0, glyphs: Vec::new(), rotated: String::new() };
        // Twelve entries of three lines each, labels at x 62..66 left of the text at x 75; the first at the top.
        let mut ls = Vec::new();
        for e in 0..12 {
            let y = 720.0 - 55.0 * e as f32;
            ls.push(line(&format!("{}", e + 1), 62.0, 66.0, y));
            for k in 0..3 {
                ls.push(line(
                    "Author, A. (2003) A title of the entry. Journal 2, 891",
                    75.0,
                    279.0,
                    y - 9.2 * k as f32,
                ));
            }
        }
        ls.push(line("12", 290.0, 300.0, 30.0)); // the page's number, alone on its row
        let mut lines = vec![ls];
        strip(&[page], &mut lines);
        let labels: Vec<&str> = lines[0].iter().filter(|l| digits_only(&l.text)).map(|l| l.text.as_str()).collect();
        assert_eq!(labels, ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"]);
    }

    #[test]
    fn page_numbers() {
        for s in ["3", "- 12 -", "Page 4", "4 of 10", "xii"] {
            assert!(page_number(s), "{s}");
        }
        for s in ["Introduction", "3 Results", "Table 2"] {
            assert!(!page_number(s), "{s}");
        }
    }
}
