//! The reference list's lines into entries: by printed labels ("[12]",
//! "12."), else by hanging indent, else by the gap between entries, else by
//! lines that end an entry and start a name.

use super::super::Reference;
use super::layout::Line;
use super::text::append_line;

/// A bracketed label at the line start: "[12]", "[Smi19]", and the rest.
fn bracket_label(s: &str) -> Option<(&str, &str)> {
    let t = s.trim_start();
    let inner = t.strip_prefix('[')?;
    let close = inner.find(']')?;
    let label = inner[..close].trim();
    if label.is_empty() || label.len() > 24 || label.contains('[') {
        return None;
    }
    Some((label, inner[close + 1..].trim_start()))
}

/// A numeric label at the line start: "12.", "12 ", "(12)", "12)".
fn number_label(s: &str) -> Option<(u32, &str)> {
    let t = s.trim_start();
    let t2 = t.strip_prefix('(').unwrap_or(t);
    let n = t2.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 || n > 3 {
        return None;
    }
    let num: u32 = t2[..n].parse().ok()?;
    let rest = &t2[n..];
    let rest = rest.strip_prefix(['.', ')']).unwrap_or(rest);
    if !rest.starts_with(' ') && !rest.is_empty() {
        return None;
    }
    Some((num, rest.trim_start()))
}

/// A line that looks like the start of an author-year entry: a capitalised
/// surname followed by a comma or initials ("Smith, J.", "Smith J", "van Dijk, A.").
fn starts_with_name(s: &str) -> bool {
    let t = s.trim_start();
    let mut words = t.split_whitespace();
    let Some(first) = words.next() else { return false };
    let first_upper = first.chars().next().is_some_and(char::is_uppercase);
    let particle = matches!(first, "van" | "de" | "von" | "der" | "da" | "di" | "du" | "le" | "la" | "del");
    (first_upper || particle)
        && (first.ends_with(',') || words.next().is_some_and(|w| w.len() <= 3 && w.ends_with('.')) || particle)
}

/// Splits the reference list's lines into entries.
pub(crate) fn split(lines: &[Line]) -> Vec<Reference> {
    let lines: Vec<&Line> = lines.iter().filter(|l| !l.text.trim().is_empty()).collect();
    if lines.is_empty() {
        return Vec::new();
    }
    let mut starts: Vec<(usize, Option<String>)> = Vec::new();
    let bracketed = lines.iter().filter(|l| bracket_label(&l.text).is_some()).count();
    if bracket_label(&lines[0].text).is_some() && bracketed * 5 >= lines.len() {
        for (i, l) in lines.iter().enumerate() {
            if let Some((label, _)) = bracket_label(&l.text) {
                starts.push((i, Some(label.to_string())));
            }
        }
    } else if number_label(&lines[0].text).is_some_and(|(n, _)| n <= 1) {
        // Numbered: the next entry is the next number.
        let mut next = number_label(&lines[0].text).map_or(1, |(n, _)| n);
        for (i, l) in lines.iter().enumerate() {
            if let Some((n, _)) = number_label(&l.text) {
                if n == next {
                    starts.push((i, Some(n.to_string())));
                    next += 1;
                }
            }
        }
    } else {
        starts = unlabelled(&lines);
    }
    let mut out = Vec::with_capacity(starts.len());
    for (k, (start, label)) in starts.iter().enumerate() {
        let end = starts.get(k + 1).map_or(lines.len(), |s| s.0);
        let mut raw = String::new();
        for (j, l) in lines[*start..end].iter().enumerate() {
            let mut t = l.text.trim();
            if j == 0 {
                if let Some((_, rest)) = bracket_label(t).filter(|_| label.is_some()) {
                    t = rest;
                } else if let Some((_, rest)) = number_label(t).filter(|_| label.is_some()) {
                    t = rest;
                }
            }
            append_line(&mut raw, t);
        }
        let raw = raw.trim().to_string();
        if raw.is_empty() {
            continue;
        }
        out.push(Reference { label: label.clone(), raw, page: lines[*start].page, ..Reference::default() });
    }
    out
}

/// Entry starts of an unlabelled (author-year) list.
fn unlabelled(lines: &[&Line]) -> Vec<(usize, Option<String>)> {
    // The left edge of each page side, and whether lines hang from it.
    let left = |l: &Line| -> f32 {
        lines.iter().filter(|m| m.page == l.page && m.side == l.side).map(|m| m.x0).fold(f32::INFINITY, f32::min)
    };
    let indented: Vec<bool> = lines.iter().map(|l| l.x0 > left(l) + 0.6 * l.size).collect();
    let share = indented.iter().filter(|x| **x).count();
    if share * 10 >= lines.len() * 2 && share * 10 <= lines.len() * 9 {
        let mut out = vec![(0, None)];
        for i in 1..lines.len() {
            if !indented[i] {
                out.push((i, None));
            }
        }
        return out;
    }
    // Gaps between entries larger than between their lines.
    let gaps: Vec<Option<f32>> = (0..lines.len())
        .map(|i| {
            if i == 0 {
                return None;
            }
            let (a, b) = (lines[i - 1], lines[i]);
            (a.page == b.page && a.side == b.side && a.y > b.y).then(|| a.y - b.y)
        })
        .collect();
    let mut known: Vec<f32> = gaps.iter().flatten().copied().collect();
    known.sort_by(f32::total_cmp);
    if let (Some(&lo), Some(&hi)) = (known.first(), known.last()) {
        let med = known[known.len() / 2];
        if hi > lo * 1.25 && hi > med * 1.2 {
            let cut = (lo + hi) / 2.0;
            let mut out = vec![(0, None)];
            for (i, g) in gaps.iter().enumerate().skip(1) {
                let start = match g {
                    Some(g) => *g > cut,
                    None => super::body::ends_sentence(&lines[i - 1].text) && starts_with_name(&lines[i].text),
                };
                if start {
                    out.push((i, None));
                }
            }
            if out.len() * 4 >= known.len() / 2 {
                return out;
            }
        }
    }
    // Last resort: an entry ends with a period and the next starts with a name.
    let mut out = vec![(0, None)];
    for i in 1..lines.len() {
        if super::body::ends_sentence(&lines[i - 1].text) && starts_with_name(&lines[i].text) {
            out.push((i, None));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        assert_eq!(bracket_label("[12] A. Smith"), Some(("12", "A. Smith")));
        assert_eq!(number_label("3. J. Doe, Title"), Some((3, "J. Doe, Title")));
        assert_eq!(number_label("2019. Title"), None);
        assert!(starts_with_name("Smith, J. and Doe, K. 2019."));
        assert!(!starts_with_name("the proceedings of"));
    }
}
