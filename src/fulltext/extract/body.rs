//! Lines into the body's structure: section headings (numbering, size,
//! the usual names), figure and table captions, paragraphs (a gap, an
//! indented first line, a change of size), and the reference list's lines.

use super::super::{Caption, Paragraph, Section};
use super::layout::{Line, Side};
use super::text::append_line;

/// Heading names that stand alone without numbering or a larger font.
const NAMES: &[&str] = &[
    "abstract",
    "introduction",
    "background",
    "related work",
    "related works",
    "previous work",
    "prior work",
    "method",
    "methods",
    "methodology",
    "materials and methods",
    "experiments",
    "experimental results",
    "experimental setup",
    "evaluation",
    "results",
    "results and discussion",
    "discussion",
    "conclusion",
    "conclusions",
    "concluding remarks",
    "conclusions and future work",
    "conclusion and future work",
    "summary",
    "future work",
    "limitations",
    "acknowledgments",
    "acknowledgements",
    "acknowledgment",
    "acknowledgement",
    "funding",
    "appendix",
    "appendices",
    "supplementary material",
    "nomenclature",
    "references",
    "bibliography",
    "literature cited",
    "works cited",
];

/// How many of the lines after `heading` continue it: a heading that filled
/// its column's width (to `edge`) goes on in up to two more lines of its
/// size, close below, short, unnumbered and not ending a sentence.
fn wrapped_heading(heading: &Line, next: &[Line], edge: f32) -> usize {
    let s = heading.size;
    let h = heading.text.trim_end();
    if heading.x1 < edge - 4.0 * s || h.ends_with(['.', ':', ';']) {
        return 0;
    }
    let goes_on = |prev: &Line, l: &Line| {
        let t = l.text.trim();
        l.page == prev.page
            && l.side == prev.side
            && (l.size - s).abs() <= 0.03 * s
            && prev.y - l.y > 0.0
            && prev.y - l.y <= 1.5 * s
            && t.split_whitespace().count() <= 8
            && numbering(t).0.is_empty()
            && !t.ends_with(['.', ',', ';'])
    };
    let short = |l: &Line| l.x1 < edge - 4.0 * s;
    let mut prev = heading;
    let mut n = 0;
    for (i, l) in next.iter().take(2).enumerate() {
        if !goes_on(prev, l) {
            break;
        }
        // A line as wide as the column is the body's first line, unless
        // the line after it is a short one that ends the heading (a
        // heading of three lines).
        if l.x1 >= edge - 2.0 * s && !(i == 0 && next.get(1).is_some_and(|m| goes_on(l, m) && short(m))) {
            break;
        }
        n += 1;
        // A line that did not fill the width ends the heading.
        if short(l) {
            break;
        }
        prev = l;
    }
    n
}

/// A line that closes the reference list: the name alone of what a
/// manuscript prints after it (`LIST OF FIGURES`, `Appendix A`, `Tables`).
fn ends_references(text: &str) -> bool {
    let name: String = text.trim().trim_end_matches(['.', ':']).to_lowercase();
    let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    matches!(
        name.as_str(),
        "list of figures"
            | "list of tables"
            | "figure captions"
            | "figure legends"
            | "table captions"
            | "tables"
            | "figures"
            | "appendix"
            | "appendices"
            | "supplementary material"
            | "supplementary information"
            | "supporting information"
    ) || (name.starts_with("appendix ") && name.split_whitespace().count() <= 6)
}

/// Names that open the reference list.
pub(crate) fn is_references(name: &str) -> bool {
    matches!(
        name,
        "references"
            | "bibliography"
            | "literature cited"
            | "works cited"
            | "references and notes"
            | "cited literature"
    )
}

/// The heading's name without its numbering, lowercase, spaces collapsed.
pub(crate) fn heading_name(text: &str) -> String {
    let (_, rest) = numbering(text);
    let mut out = String::new();
    for w in rest.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&w.to_lowercase());
    }
    out
}

/// A heading's numbering and the rest: ("3.1", "Results"), ("II", "Model"),
/// ("", "Introduction"). The depth is the count of dotted parts.
fn numbering(text: &str) -> (&str, &str) {
    let t = text.trim();
    let end = t.find(' ').unwrap_or(t.len());
    let first = &t[..end];
    let num = first.trim_end_matches('.');
    let dotted = !num.is_empty()
        && num.split('.').all(|p| !p.is_empty() && p.len() <= 2 && p.chars().all(|c| c.is_ascii_digit()));
    let roman =
        !num.is_empty() && num.len() <= 5 && first.ends_with('.') && num.chars().all(|c| matches!(c, 'I' | 'V' | 'X'));
    let letter = num.len() == 1 && num.chars().all(|c| c.is_ascii_uppercase()) && end < t.len();
    if dotted || roman || letter {
        return (num, t[end..].trim());
    }
    ("", t)
}

/// "1 J. Berges, ..." or "1. Smith, J.": the first entry of a numbered
/// reference list whose labels lost their brackets.
pub(crate) fn starts_first_entry(text: &str) -> bool {
    let t = text.trim_start();
    let Some(rest) = t.strip_prefix("1 ").or_else(|| t.strip_prefix("1. ")) else { return false };
    let b = rest.as_bytes();
    let initial =
        b.len() > 4 && b[0].is_ascii_uppercase() && b[1] == b'.' && (b[2] == b' ' || b[2].is_ascii_uppercase());
    let surname = rest.split_once(", ").is_some_and(|(s, after)| {
        s.len() > 1
            && !s.contains(' ')
            && s.starts_with(|c: char| c.is_uppercase())
            && after.as_bytes().get(1) == Some(&b'.')
    });
    initial || surname
}

/// A top-level heading's number: "3" or "3." -> 3, "IV." -> 4.
fn top_number(text: &str) -> Option<u32> {
    let (num, _) = numbering(text);
    if num.is_empty() || num.contains('.') {
        return None;
    }
    if let Ok(n) = num.parse::<u32>() {
        return Some(n);
    }
    let value = |c: char| match c {
        'I' => 1,
        'V' => 5,
        'X' => 10,
        _ => 0,
    };
    let digits: Vec<u32> = num.chars().map(value).collect();
    if digits.len() < 2 && num.len() == 1 && !matches!(num, "I" | "V" | "X") {
        return None; // a letter
    }
    let mut total = 0i64;
    for (i, d) in digits.iter().enumerate() {
        if digits.get(i + 1).is_some_and(|n| n > d) {
            total -= i64::from(*d);
        } else {
            total += i64::from(*d);
        }
    }
    u32::try_from(total).ok().filter(|n| *n > 0)
}

/// Whether the line is a section heading, and its level.
pub(crate) fn heading_level(line: &Line, body: f32, in_refs: bool) -> Option<u8> {
    let t = line.text.trim();
    if t.len() > 120 || t.len() < 3 {
        return None;
    }
    let (num, rest) = numbering(t);
    let name = heading_name(t);
    let words = rest.split_whitespace().count();
    let big = line.size >= body * 1.12;
    let known = NAMES.contains(&name.as_str()) || name.starts_with("appendix ") || name.starts_with("acknowledg");
    if known && words <= 6 && !rest.ends_with([',', '.']) {
        // "C. Results" in the body's size is an IEEE subsection, as below
        // ("I.", "V." and "X." number sections in roman numerals).
        let lettered = num.len() == 1
            && num.chars().all(|c| c.is_ascii_uppercase() && !matches!(c, 'I' | 'V' | 'X'))
            && line.text.trim_start().as_bytes().get(1) == Some(&b'.');
        let nested = num.contains('.') && num.split('.').filter(|p| !p.is_empty()).count() > 1;
        return Some(if nested || (lettered && !big) { 2 } else { 1 });
    }
    if in_refs {
        // Inside the reference list only a larger font opens a section
        // ("Appendix A", a lettered appendix).
        return (big && words <= 10 && rest.chars().next().is_some_and(char::is_uppercase)).then_some(1);
    }
    if words == 0 || words > 12 || rest.ends_with(['.', ',', ';', ':']) || rest.contains(" = ") {
        return None;
    }
    let first = rest.chars().next()?;
    if !first.is_uppercase() {
        return None;
    }
    let letters = rest.chars().filter(|c| c.is_alphabetic()).count();
    if letters * 2 < rest.chars().filter(|c| !c.is_whitespace()).count() || letters < 3 {
        return None;
    }
    let caps = rest
        .split_whitespace()
        .filter(|w| w.chars().next().is_some_and(|c| c.is_uppercase() || !c.is_alphabetic()))
        .count();
    let titled = caps * 2 >= words || words <= 4;
    let upper = rest.chars().filter(|c| c.is_alphabetic()).all(char::is_uppercase);
    if !num.is_empty() {
        let depth = if num.chars().all(|c| c.is_ascii_digit() || c == '.') {
            let first: u32 = num.split('.').next().and_then(|p| p.parse().ok()).unwrap_or(99);
            if first == 0 || first > 30 {
                return None;
            }
            num.split('.').filter(|p| !p.is_empty()).count() as u8
        } else if num.len() == 1 {
            // "A. Setup" (IEEE subsections) or "A Proofs" (an appendix);
            // not "D. Vilardi, C. Taranto" (a names line).
            if rest.contains(',') {
                return None;
            }
            if big {
                1
            } else if line.text.trim_start().as_bytes().get(1) == Some(&b'.') && titled {
                2
            } else {
                return None;
            }
        } else {
            1
        };
        return (titled || big || upper).then_some(depth);
    }
    if big && titled && words <= 10 {
        return Some(1);
    }
    if upper && words <= 6 && letters >= 4 && line.size >= body * 0.95 {
        return Some(1);
    }
    None
}

/// Whether the line opens a figure or table caption ("Figure 3:", "Fig. 2.", "Table 1", "TABLE II").
pub(crate) fn is_caption_start(line: &Line, body: f32) -> bool {
    let t = line.text.trim_start();
    let lower = t.to_lowercase();
    let Some(rest) = [
        "figure",
        "fig.",
        "fig",
        "table",
        "algorithm",
        "listing",
        "scheme",
        "chart",
        "supplementary figure",
        "supplementary table",
    ]
    .iter()
    .find_map(|p| lower.strip_prefix(p)) else {
        return false;
    };
    let rest = rest.trim_start();
    let n = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '.').count();
    let label = rest[..n].trim_end_matches('.');
    if label.is_empty()
        || !(label.chars().all(|c| c.is_ascii_digit() || c == '.')
            || label.chars().all(|c| matches!(c, 'i' | 'v' | 'x'))
            || (label.len() <= 3
                && label.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && label[1..].chars().all(|c| c.is_ascii_digit())
                && label.len() > 1))
    {
        return false;
    }
    let after = rest[n..].trim_start();
    let sep = rest[..n].ends_with('.') || after.starts_with([':', '.', '|', '—', '–', '-']);
    // "Table 1 shows ..." in running text has no separator; a caption set
    // smaller than the body may have none either ("TABLE I" over a table).
    sep || line.size < body * 0.97 || after.is_empty()
}

/// The document's body: sections, captions, and the reference list's lines.
#[derive(Default)]
pub(crate) struct Body {
    pub sections: Vec<Section>,
    pub captions: Vec<Caption>,
    pub ref_lines: Vec<Line>,
}

pub(crate) fn ends_sentence(s: &str) -> bool {
    s.trim_end().ends_with(['.', '!', '?', ':']) || s.trim_end().ends_with(".\"") || s.trim_end().ends_with(".”")
}

/// Whether `cur` starts a new paragraph after `prev`.
fn breaks(prev: &Line, cur: &Line, leading: f32, right_edge: f32) -> bool {
    if (cur.size - prev.size).abs() > 0.1 * prev.size.max(cur.size) {
        return true;
    }
    let same_column = cur.page == prev.page && cur.side == prev.side && cur.y < prev.y;
    if !same_column {
        // A column or page break: a sentence that ran on continues.
        return ends_sentence(&prev.text) && !cur.text.starts_with(|c: char| c.is_lowercase());
    }
    let gap = prev.y - cur.y;
    if gap > leading * 1.4 + 0.5 && gap > cur.size * 1.05 {
        return true;
    }
    let indent = cur.x0 - prev.x0;
    if indent > 0.6 * cur.size && indent < 6.0 * cur.size && prev.x1 > right_edge - 2.0 * cur.size {
        return true;
    }
    ends_sentence(&prev.text) && prev.x1 < right_edge - 2.5 * cur.size && prev.side != Side::Full
}

/// Builds the body from lines in reading order.
pub(crate) fn build(lines: &[Line], body: f32) -> Body {
    let mut out = Body::default();
    // The typical distance between baselines of body lines.
    let mut gaps: Vec<f32> = lines
        .windows(2)
        .filter(|w| w[0].page == w[1].page && w[0].side == w[1].side && (w[0].size - body).abs() < 0.05 * body)
        .map(|w| w[0].y - w[1].y)
        .filter(|g| *g > 0.8 * body && *g < 2.5 * body)
        .collect();
    gaps.sort_by(f32::total_cmp);
    let leading = gaps.get(gaps.len() / 2).copied().unwrap_or(body * 1.2);
    // Each page side's right edge: where full lines end.
    let right_edge = |l: &Line| -> f32 {
        let mut xs: Vec<f32> = lines.iter().filter(|m| m.page == l.page && m.side == l.side).map(|m| m.x1).collect();
        xs.sort_by(f32::total_cmp);
        xs.get(xs.len() * 8 / 10).copied().unwrap_or(l.x1)
    };
    let mut in_refs = false;
    let mut section = Section::default();
    let mut para: Option<(Paragraph, Line)> = None;
    let mut caption: Option<(Caption, Line)> = None;
    // Returns the size of the paragraph it filed (its last line's), if any.
    let flush_para = |section: &mut Section, para: &mut Option<(Paragraph, Line)>| -> Option<f32> {
        let (p, last) = para.take()?;
        if p.text.trim().is_empty() {
            return None;
        }
        section.paragraphs.push(p);
        Some(last.size)
    };
    let mut edges: std::collections::HashMap<(u32, u8), f32> = std::collections::HashMap::new();
    // A paper that numbers its sections numbers them all: then an
    // unnumbered line is a heading only by its name (Acknowledgments,
    // References), and top-level numbers run in sequence (which keeps out
    // "2 W. Metzner, ..." of an unbracketed reference list and the like).
    let numbered =
        lines.iter().filter(|l| heading_level(l, body, false) == Some(1) && top_number(&l.text).is_some()).count();
    let numbered_doc = numbered >= 3;
    let mut last_top: Option<u32> = None;
    // Lines a wrapped heading took (its second and third lines).
    let mut taken_until = 0;
    // Each section's heading size and whether it is numbered (levels by size, below).
    let mut heading_sizes: Vec<(f32, bool)> = Vec::new();
    let mut style: Option<bool> = None;
    for (i, line) in lines.iter().enumerate() {
        if i < taken_until {
            continue;
        }
        let key = (line.page, line.side as u8);
        let edge = *edges.entry(key).or_insert_with(|| right_edge(line));
        let found = heading_level(line, body, in_refs).filter(|&level| {
            let name = heading_name(&line.text);
            let known =
                NAMES.contains(&name.as_str()) || name.starts_with("appendix") || name.starts_with("acknowledg");
            let (num, _) = numbering(&line.text);
            if !numbered_doc || in_refs {
                return true;
            }
            if num.is_empty() {
                return known;
            }
            match (level, top_number(&line.text)) {
                (1, Some(n)) => {
                    // One style of numbering (arabic or roman) for the top level.
                    let roman = !num.starts_with(|c: char| c.is_ascii_digit());
                    if *style.get_or_insert(roman) != roman {
                        return false;
                    }
                    let ok = last_top.is_none_or(|l| n > l && n <= l + 2);
                    if ok {
                        last_top = Some(n);
                    }
                    ok
                }
                _ => true,
            }
        });
        if let Some(level) = found {
            let _ = flush_para(&mut section, &mut para);
            if let Some((c, _)) = caption.take() {
                out.captions.push(c);
            }
            let name = heading_name(&line.text);
            if !section.heading.is_empty() || !section.paragraphs.is_empty() {
                out.sections.push(std::mem::take(&mut section));
            }
            if is_references(&name) {
                in_refs = true;
                section = Section::default();
                continue;
            }
            in_refs = false;
            let mut heading = line.text.trim().to_string();
            let more = wrapped_heading(line, &lines[i + 1..], edge);
            for l in &lines[i + 1..i + 1 + more] {
                append_line(&mut heading, l.text.trim());
            }
            taken_until = i + 1 + more;
            heading_sizes.resize(out.sections.len(), (0.0, true));
            heading_sizes.push((line.size, !numbering(&line.text).0.is_empty()));
            section = Section { heading, level, paragraphs: Vec::new() };
            continue;
        }
        // A list that starts "[1]" without a heading (REVTeX prints none).
        // Or "1 J. Berges, ..." (the brackets of the labels lost), late in the paper.
        let unbracketed = out.sections.len() >= 2 && starts_first_entry(&line.text);
        // "[1]" with "[2]" a few lines below opens the list even after a
        // paragraph cut mid-sentence (an equation, a figure).
        let bracketed = line.text.trim_start().starts_with("[1]");
        let second_follows = || lines[i + 1..].iter().take(6).any(|l| l.text.contains("[2]"));
        if !in_refs
            && (bracketed || unbracketed)
            && (para.as_ref().is_none_or(|(p, _)| ends_sentence(&p.text)) || (bracketed && second_follows()))
        {
            let _ = flush_para(&mut section, &mut para);
            in_refs = true;
        }
        // What follows a manuscript's reference list: its lists of figures
        // and tables, its appendices (a line of that name alone).
        if in_refs && ends_references(&line.text) {
            section = Section { heading: line.text.trim().to_string(), level: 1, paragraphs: Vec::new() };
            in_refs = false;
            continue;
        }
        if in_refs {
            out.ref_lines.push(line.clone());
            continue;
        }
        if is_caption_start(line, body) {
            let _ = flush_para(&mut section, &mut para);
            if let Some((c, _)) = caption.take() {
                out.captions.push(c);
            }
            caption = Some((Caption { text: line.text.trim().to_string(), page: line.page }, line.clone()));
            continue;
        }
        if let Some((c, prev)) = caption.as_mut() {
            if !breaks(prev, line, leading, edge) && line.size <= prev.size * 1.05 {
                append_line(&mut c.text, line.text.trim());
                *prev = line.clone();
                continue;
            }
            let (c, _) = caption.take().expect("caption");
            out.captions.push(c);
        }
        let continues = match para.as_ref() {
            Some((_, prev)) => !breaks(prev, line, leading, edge),
            None => false,
        };
        if !continues {
            let filed = flush_para(&mut section, &mut para);
            let p = match resumed(&section.paragraphs, filed, line, body) {
                Some(at) => section.paragraphs.remove(at),
                None => Paragraph::default(),
            };
            para = Some((p, line.clone()));
        }
        let (p, prev) = para.as_mut().expect("paragraph");
        add_line(p, line);
        *prev = line.clone();
    }
    let _ = flush_para(&mut section, &mut para);
    if let Some((c, _)) = caption.take() {
        out.captions.push(c);
    }
    if !section.heading.is_empty() || !section.paragraphs.is_empty() {
        out.sections.push(section);
    }
    heading_sizes.resize(out.sections.len(), (0.0, true));
    levels_by_size(&mut out.sections, &heading_sizes);
    out
}

/// The paragraph that `line` continues, when it resumes one cut by a
/// figure, a page or column break, or a footnote set in smaller print
/// (AAAI's copyright block at a column's foot): an index into `paragraphs`.
/// The cut paragraph did not end a sentence, and the line starts in
/// lowercase or closes a parenthesis the paragraph left open ("(Baptiste,
/// Pape, and Nuijten" / "2001, Chapter 6), ..."). `filed` is the size of the
/// paragraph just filed (the last one), if the flush before this line filed one.
fn resumed(paragraphs: &[Paragraph], filed: Option<f32>, line: &Line, body: f32) -> Option<usize> {
    if (line.size - body).abs() >= 0.1 * body {
        return None;
    }
    let last = paragraphs.len().checked_sub(1)?;
    // A footnote between the two parts of the cut paragraph.
    // (A footnote ends a sentence; a displayed formula set small does not.)
    let footnote = filed.is_some_and(|size| size < 0.92 * body) && ends_sentence(&paragraphs[last].text);
    let at = if footnote { last.checked_sub(1)? } else { last };
    let cut = &paragraphs[at].text;
    if ends_sentence(cut) {
        return None;
    }
    let open = cut.matches('(').count() > cut.matches(')').count();
    let closes = line.text.find(')').is_some_and(|close| line.text.find('(').is_none_or(|open| close < open));
    (line.text.starts_with(|c: char| c.is_lowercase()) || open && closes).then_some(at)
}

/// Unnumbered headings in two sizes: the smaller are subsections (level 2),
/// the named ones (Acknowledgments, References, Appendix) aside, when the
/// larger size heads at least two sections.
fn levels_by_size(sections: &mut [Section], sizes: &[(f32, bool)]) {
    let unnumbered = |k: usize| {
        let (size, numbered) = sizes[k];
        let name = heading_name(&sections[k].heading);
        let named = NAMES.contains(&name.as_str()) || name.starts_with("appendix") || name.starts_with("acknowledg");
        (!numbered && !named && size > 0.0 && sections[k].level == 1).then_some(size)
    };
    let found: Vec<(usize, f32)> = (0..sections.len()).filter_map(|k| unnumbered(k).map(|s| (k, s))).collect();
    let Some(top) = found.iter().map(|&(_, s)| s).reduce(f32::max) else { return };
    if found.iter().filter(|&&(_, s)| s >= top / 1.08).count() < 2 {
        return;
    }
    for (k, s) in found {
        if s < top / 1.08 {
            sections[k].level = 2;
        }
    }
}

/// Appends a line to a paragraph: its text (de-hyphenated), its page, and
/// its raised ranges moved to their place in the paragraph.
pub(crate) fn add_line(p: &mut Paragraph, line: &Line) {
    let trimmed_start = line.text.len() - line.text.trim_start().len();
    let text = line.text.trim();
    let at = append_line(&mut p.text, text);
    if p.page_starts.last().is_none_or(|(_, page)| *page != line.page) {
        let offset = if p.page_starts.is_empty() { 0 } else { at };
        p.page_starts.push((offset, line.page));
    }
    for &(a, b) in &line.raised {
        let (a, b) = (a.saturating_sub(trimmed_start), b.saturating_sub(trimmed_start).min(text.len()));
        if a < b && p.text.is_char_boundary(at + a) && p.text.is_char_boundary(at + b) {
            p.raised.push((at + a, at + b));
        }
    }
}

#[cfg(test)]
mod tests;
