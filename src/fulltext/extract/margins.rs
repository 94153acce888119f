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
        n >= 3 && c >= 3.max(n as usize / 4 + 1).min(n)
    };
    for (p, ls) in pages.iter().zip(lines.iter_mut()) {
        let w = (p.x1 - p.x0).max(1.0);
        // Line numbers: many digits-only lines down one side margin.
        let side_numbers = ls
            .iter()
            .filter(|l| digits_only(&l.text) && ((l.x1 - p.x0) / w < 0.14 || (l.x0 - p.x0) / w > 0.86))
            .count();
        ls.retain(|l| {
            if let Some(_top) = band(p, l) {
                if page_number(&l.text) || repeated(l) {
                    return false;
                }
            }
            if side_numbers >= 10 && digits_only(&l.text) && ((l.x1 - p.x0) / w < 0.14 || (l.x0 - p.x0) / w > 0.86) {
                return false;
            }
            true
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
