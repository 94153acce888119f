//! The front matter of the first pages: the title (the largest text that is
//! not a journal banner), the authors (the name lines between the title and
//! the abstract), and the abstract (from its label to the first heading,
//! keywords line or change of font size).

use super::body::{heading_level, heading_name};
use super::layout::{Line, Side};
use super::text::append_line;
use words::{INSTITUTION, NOT_NAME, PARTICLES};

mod words;

/// What the front matter gave, and where the body starts (an index into the lines).
#[derive(Debug, Default)]
pub(crate) struct Front {
    pub title: Option<String>,
    pub authors: Vec<String>,
    pub abstract_: Option<String>,
    pub body_from: usize,
}

const BANNER: &[&str] = &[
    "journal",
    "proceedings",
    "conference on",
    "vol.",
    "volume",
    "issn",
    "arxiv",
    "doi",
    "http",
    "www.",
    "©",
    "(c)",
    "copyright",
    "preprint",
    "transactions on",
    "elsevier",
    "springer",
    "licen",
    "open access",
    "research article",
    "original article",
    "review article",
    "downloaded",
    "pp.",
    "draft version",
];

pub(crate) fn banner(s: &str) -> bool {
    let l = s.to_lowercase();
    BANNER.iter().any(|b| l.contains(b)) || l.chars().filter(|c| c.is_alphabetic()).count() < 4
}

/// The abstract's label at the start of a line, and the text after it.
fn abstract_label(s: &str) -> Option<&str> {
    let t = s.trim_start();
    let squeezed: String = t.chars().take(20).filter(|c| !c.is_whitespace()).collect::<String>().to_lowercase();
    for label in ["abstract", "summary"] {
        if t.get(..label.len()).is_some_and(|h| h.eq_ignore_ascii_case(label)) {
            let rest = &t[label.len()..];
            if rest.is_empty() || rest.starts_with(|c: char| !c.is_alphanumeric()) {
                let rest = rest
                    .trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '.' | ':' | '—' | '–' | '-' | '|'));
                return Some(rest);
            }
        }
    }
    // Spaced letters: "A B S T R A C T".
    if squeezed == "abstract" {
        return Some("");
    }
    None
}

/// A line that ends the abstract (keywords and classification lines).
fn after_abstract(s: &str) -> bool {
    let l = s.trim_start().to_lowercase();
    [
        "keywords",
        "key words",
        "index terms",
        "ccs concepts",
        "acm reference",
        "general terms",
        "categories and subject",
        "subjects",
        "introduction",
        "1 introduction",
        "1. introduction",
        "i. introduction",
        "mathematics subject",
        "pacs",
        "jel",
        "©",
        "copyright",
    ]
    .iter()
    .any(|p| l.starts_with(p))
}

/// One candidate name cleaned of marks, or nothing if it does not look like a name.
fn as_name(raw: &str) -> Option<String> {
    let cleaned: String = raw
        .chars()
        .map(|c| if c.is_alphabetic() || matches!(c, '.' | '-' | '\'' | '’' | ' ') { c } else { ' ' })
        .collect();
    let mut words: Vec<&str> = cleaned.split_whitespace().collect();
    while words.first().is_some_and(|w| w.eq_ignore_ascii_case("and") || *w == "by" || *w == "By") {
        words.remove(0);
    }
    while words.last().is_some_and(|w| w.eq_ignore_ascii_case("and")) {
        words.pop();
    }
    if words.len() < 2 || words.len() > 5 {
        return None;
    }
    let mut long = 0;
    for w in &words {
        let lower = w.to_lowercase();
        let bare = lower.trim_matches(|c: char| !c.is_alphabetic());
        if NOT_NAME.contains(&bare) {
            return None;
        }
        if PARTICLES.contains(&bare) {
            continue;
        }
        if !w.chars().next().is_some_and(char::is_uppercase) {
            return None;
        }
        if w.chars().filter(|c| c.is_alphabetic()).count() >= 2 && !w.ends_with('.') {
            long += 1;
        }
    }
    if long == 0 {
        return None;
    }
    // A name in capitals ("JOHN SMITH") is written in title case.
    let all_caps = words.iter().all(|w| w.chars().filter(|c| c.is_alphabetic()).all(char::is_uppercase));
    let words: Vec<String> = words
        .iter()
        .map(|w| {
            if all_caps && w.chars().filter(|c| c.is_alphabetic()).count() > 1 {
                let mut cs = w.chars();
                let first = cs.next().map(|c| c.to_string()).unwrap_or_default();
                first + &cs.as_str().to_lowercase()
            } else {
                w.to_string()
            }
        })
        .collect();
    Some(words.join(" "))
}

/// The names printed on one author line: split at wide gaps, commas,
/// "and", ampersands and semicolons; raised marks (affiliation numbers) dropped.
fn names_in(line: &Line) -> Vec<String> {
    let mut text = String::new();
    for (i, c) in line.text.char_indices() {
        if line.raised.iter().any(|&(a, b)| i >= a && i < b) || line.wide.contains(&i) {
            text.push(',');
        } else {
            text.push(c);
        }
    }
    let text = text.replace(" and ", ",").replace(" AND ", ",").replace(['&', ';', '·', '•'], ",");
    text.split(',').filter_map(as_name).collect()
}

/// An e-mail, web or address line (a postcode, a phone number: a run of
/// four digits). Single affiliation marks after names ("Datta1, Ball2")
/// are not.
fn email_or_affiliation(s: &str) -> bool {
    let mut run = 0;
    let mut longest = 0;
    for c in s.chars() {
        run = if c.is_ascii_digit() { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    s.contains('@') || s.contains("http") || s.contains('{') || longest >= 4
}

/// Whether a title from the file's metadata names the file that made it
/// rather than the paper, as many tools leave it: `paper.dvi`,
/// `Microsoft Word - draft.docx`, `main.tex`, `untitled`.
pub(crate) fn file_name_title(t: &str) -> bool {
    let lower = t.trim().to_lowercase();
    let ext = [".dvi", ".tex", ".doc", ".docx", ".pdf", ".ps", ".rtf", ".odt", ".txt"];
    ext.iter().any(|e| lower.ends_with(e) || lower.contains(&format!("{e} ")))
        || lower.starts_with("microsoft ")
        || lower.contains("microsoft word")
        || matches!(lower.as_str(), "untitled" | "untitled document" | "title" | "no title")
}

/// Finds the front matter among the lines of the first pages.
pub(crate) fn find(lines: &[Line], body: f32, info_title: Option<&str>) -> Front {
    let mut front = Front::default();
    let first_page = lines.first().map_or(1, |l| l.page);
    // Title: the largest non-banner line of page 1 (page 2 when page 1 has
    // none larger than the body text).
    let mut title_at: Option<usize> = None;
    for page in [first_page, first_page + 1] {
        // The foot of the page is no title's place: a journal's logo sits
        // there in the largest type of the page (MDPI's `biosensors`).
        let (low, high) = lines
            .iter()
            .filter(|l| l.page == page)
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), l| (lo.min(l.y), hi.max(l.y)));
        let foot = low + 0.1 * (high - low);
        let mut best: Option<(usize, f32)> = None;
        for (i, l) in lines.iter().enumerate().filter(|(_, l)| l.page == page).take(80) {
            if banner(&l.text) || l.text.split_whitespace().count() < 1 || l.y < foot {
                continue;
            }
            if best.is_none_or(|(_, s)| l.size > s * 1.02) {
                best = Some((i, l.size));
            }
        }
        if let Some((i, s)) = best {
            if s >= body * 1.15 {
                title_at = Some(i);
                break;
            }
        }
    }
    let mut after_title = 0;
    // Title lines are at most 2.2 sizes apart, more in a double-spaced manuscript.
    let reach = 2.2f32.max(1.3 * line_spacing(lines, body));
    if let Some(t) = title_at {
        let size = lines[t].size;
        let same = |l: &Line| (l.size - size).abs() <= size * 0.06 && l.page == lines[t].page;
        let mut a = t;
        while a > 0
            && same(&lines[a - 1])
            && lines[a - 1].y - lines[a].y < size * reach
            && lines[a - 1].y > lines[a].y
            && !banner(&lines[a - 1].text)
        {
            a -= 1;
        }
        let mut b = t;
        while b + 1 < lines.len()
            && same(&lines[b + 1])
            && lines[b].y - lines[b + 1].y < size * reach
            && lines[b].y > lines[b + 1].y
        {
            b += 1;
        }
        let mut title = String::new();
        for l in &lines[a..=b] {
            append_line(&mut title, l.text.trim());
        }
        // A title line the reading order put elsewhere (the title's last
        // line under a column that is read first): the nearest line of its
        // size just below the last one, wherever it is in the order.
        let mut last = b;
        for _ in 0..3 {
            let below = lines
                .iter()
                .enumerate()
                .filter(|&(i, l)| !(a..=b).contains(&i) && i != last && same(l) && !banner(&l.text))
                .filter(|(_, l)| lines[last].y > l.y && lines[last].y - l.y < size * reach)
                .max_by(|x, y| x.1.y.total_cmp(&y.1.y));
            let Some((i, l)) = below else { break };
            append_line(&mut title, l.text.trim());
            last = i;
        }
        front.title = Some(title);
        after_title = b + 1;
    } else if let Some(t) = info_title.filter(|t| t.split_whitespace().count() >= 3 && !file_name_title(t)) {
        front.title = Some(t.to_string());
    } else if let Some((i, l)) =
        lines.iter().enumerate().take(40).find(|(_, l)| l.text.split_whitespace().count() >= 4 && !banner(&l.text))
    {
        front.title = Some(l.text.trim().to_string());
        after_title = i + 1;
    }
    // The abstract: its label, to a heading, keywords, or a change of size.
    let page_limit = lines.get(after_title).map_or(first_page, |l| l.page) + 1;
    let label = lines
        .iter()
        .enumerate()
        .skip(after_title)
        .take_while(|(_, l)| l.page <= page_limit)
        .find(|(_, l)| abstract_label(&l.text).is_some())
        .map(|(i, _)| i);
    let mut body_from;
    if let Some(a) = label {
        let rest = abstract_label(&lines[a].text).unwrap_or("");
        let mut text = String::new();
        let mut size = None;
        if !rest.is_empty() {
            append_line(&mut text, rest);
            size = Some(lines[a].size);
        }
        let mut end = a + 1;
        while end < lines.len() {
            let l = &lines[end];
            if after_abstract(&l.text) || heading_level(l, body, false).is_some_and(|_| !text.is_empty()) {
                break;
            }
            if let Some(s) = size {
                if (l.size - s).abs() > 0.08 * s
                    || l.page != lines[a].page
                        && end > a + 1
                        && !text.is_empty()
                        && l.page > lines[end - 1].page
                        && super::body::ends_sentence(&text)
                {
                    break;
                }
            } else {
                size = Some(l.size);
            }
            append_line(&mut text, l.text.trim());
            end += 1;
            if text.len() > 6000 {
                break;
            }
        }
        // A keywords line ends the front matter too.
        while end < lines.len() && after_abstract(&lines[end].text) && heading_level(&lines[end], body, false).is_none()
        {
            end += 1;
        }
        if !text.trim().is_empty() {
            front.abstract_ = Some(text.trim().to_string());
        }
        body_from = end;
        front.authors = author_lines(&author_region(lines, after_title.min(a), a));
    } else {
        // No label: the author lines run to the first heading or long
        // paragraph; that paragraph, before any heading, is the abstract
        // (REVTeX and many journals print it unlabelled).
        let mut end = after_title;
        let title_page = lines.get(after_title.saturating_sub(1)).map_or(first_page, |l| l.page);
        while end < lines.len() && end < after_title + 30 {
            let l = &lines[end];
            let words = l.text.split_whitespace().count();
            // Names and affiliations are short and on the title page; a
            // sentence is text.
            // (A name in capitals is not a heading: "LEANA GOLUBCHIK".)
            if (heading_level(l, body, false).is_some() && names_in(l).is_empty())
                || words > 14
                || l.page != title_page
                || (words >= 6 && l.text.trim_end().ends_with('.'))
            {
                break;
            }
            end += 1;
        }
        // The paragraph's first lines may be short enough to pass for
        // names: lines of its size at its leading belong to it.
        if end + 1 < lines.len() && end > after_title {
            let (l, n) = (&lines[end], &lines[end + 1]);
            let leading = l.y - n.y;
            while end > after_title {
                let p = &lines[end - 1];
                let gap = p.y - lines[end].y;
                let same = (p.size - l.size).abs() <= 0.03 * l.size && p.page == l.page && p.side == l.side;
                if !(same
                    && leading > 0.0
                    && gap > 0.0
                    && gap <= leading * 1.15
                    && p.text.split_whitespace().count() >= 6)
                {
                    break;
                }
                end -= 1;
            }
        }
        front.authors = author_lines(&author_region(lines, after_title.min(end), end));
        body_from = end;
        // The paragraph before the first heading; past a block of
        // affiliations and dates, and the licence line after it (Hindawi,
        // PLOS and other journals print the abstract unlabelled there).
        let mut start = end;
        for _ in 0..3 {
            if start >= lines.len() || heading_level(&lines[start], body, false).is_some() {
                break;
            }
            let size = lines[start].size;
            let mut text = String::new();
            let mut k = start;
            while k < lines.len() && k < start + 60 {
                let l = &lines[k];
                if after_abstract(&l.text)
                    || heading_level(l, body, false).is_some()
                    || (l.size - size).abs() > 0.08 * size
                    || l.page != lines[start].page
                {
                    break;
                }
                append_line(&mut text, l.text.trim());
                k += 1;
            }
            // Only a paragraph that stops at a heading or a keywords line is
            // taken for the abstract; running text is the body's.
            let stops =
                k < lines.len() && (after_abstract(&lines[k].text) || heading_level(&lines[k], body, false).is_some());
            if stops && text.split_whitespace().count() >= 40 && !front_matter_block(&text) {
                front.abstract_ = Some(text);
                body_from = k;
                while body_from < lines.len()
                    && after_abstract(&lines[body_from].text)
                    && heading_level(&lines[body_from], body, false).is_none()
                {
                    body_from += 1;
                }
                break;
            }
            if !front_matter_block(&text) || k >= lines.len() || !licence(&lines[k].text) {
                break;
            }
            // Past the licence sentence, to the line that ends it.
            k = (k..lines.len().min(k + 8))
                .find(|&i| super::body::ends_sentence(&lines[i].text))
                .map_or(k + 1, |i| i + 1);
            start = k;
        }
    }
    if front.title.is_some() && heading_name(front.title.as_deref().unwrap_or("")) == "abstract" {
        front.title = None;
    }
    front.body_from = body_from;
    front
}

/// A block of affiliations, addresses and dates rather than prose: an
/// e-mail address, a "Received …" / "Accepted …" date, a correspondence or
/// editor line, or two or more institution words.
fn front_matter_block(text: &str) -> bool {
    let l = text.to_lowercase();
    let dated = |w: &str| {
        l.match_indices(w).any(|(i, _)| l[i + w.len()..].trim_start().starts_with(|c: char| c.is_ascii_digit()))
    };
    let institutions = ["university", "department", "institute", "college", "school of", "hospital"]
        .iter()
        .map(|w| l.matches(w).count())
        .sum::<usize>();
    l.contains('@')
        || dated("received")
        || dated("accepted")
        || l.contains("correspondence should")
        || l.contains("academic editor")
        || institutions >= 2
}

/// A licence or copyright line.
fn licence(s: &str) -> bool {
    let l = s.trim_start().to_lowercase();
    l.starts_with("copyright") || l.starts_with('©') || l.contains("creative commons") || l.contains("open access")
}

/// The body text's baseline spacing in body sizes (about 1.2 set solid,
/// 2.2 or more double-spaced): the median gap between consecutive body-size
/// lines of one page, over the first pages.
fn line_spacing(lines: &[Line], body: f32) -> f32 {
    let body_size = |l: &Line| (l.size - body).abs() <= 0.05 * body;
    let mut gaps: Vec<f32> = lines
        .windows(2)
        .take(600)
        .filter(|w| w[0].page == w[1].page && body_size(&w[0]) && body_size(&w[1]))
        .map(|w| (w[0].y - w[1].y) / body.max(1.0))
        .filter(|g| *g > 0.5 && *g < 4.0)
        .collect();
    if gaps.len() < 10 {
        return 1.2;
    }
    gaps.sort_by(f32::total_cmp);
    gaps[gaps.len() / 2]
}

/// The lines between the title (`lines[from - 1]`) and `lines[to]`, and, on
/// a title page read in two columns, the right column's lines beside them
/// (a grid of authors, which reading order puts after the left column's
/// abstract): row by row, left to right.
fn author_region(lines: &[Line], from: usize, to: usize) -> Vec<Line> {
    let mut out: Vec<Line> = lines[from..to].to_vec();
    let Some(first) = out.first() else { return out };
    let page = first.page;
    let top = from.checked_sub(1).map_or(f32::INFINITY, |t| lines[t].y);
    let bottom = lines.get(to).filter(|l| l.page == page).map_or(f32::NEG_INFINITY, |l| l.y);
    if !out.iter().any(|l| l.side == Side::Left) {
        return out;
    }
    let beside = lines
        .iter()
        .enumerate()
        .filter(|(i, l)| !(from..to).contains(i) && l.page == page && l.side == Side::Right)
        .filter(|(_, l)| l.y < top && l.y > bottom + 1.0);
    out.extend(beside.map(|(_, l)| l.clone()));
    out.sort_by(|a, b| b.y.total_cmp(&a.y).then(a.x0.total_cmp(&b.x0)));
    out
}

fn author_lines(lines: &[Line]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    // Lines that are not names: an address, e-mail or institution line, and
    // the lines that continue one (the same block, a line's leading below).
    let mut skipped: Vec<bool> = Vec::with_capacity(lines.len());
    // The names' size: that of the first line that has any.
    let mut name_size: Option<f32> = None;
    for (i, l) in lines.iter().enumerate() {
        let above =
            (0..i).rev().find(|&j| lines[j].page == l.page && (lines[j].x0 - l.x0).abs() < 3.0 && lines[j].y > l.y);
        let continues = above.is_some_and(|j| skipped[j] && lines[j].y - l.y <= 1.35 * l.size.max(lines[j].size));
        // A line printed twice or more in the block is an affiliation under
        // each of a grid's names ("TU Berlin"): a name is printed once.
        let repeated = lines.iter().filter(|m| m.text.trim() == l.text.trim()).nth(1).is_some();
        let skip = email_or_affiliation(&l.text)
            || institution_line(&l.text)
            || repeated
            || l.text.split_whitespace().count() > 16
            || continues
            || name_size.is_some_and(|s| (l.size - s).abs() > 0.05 * s);
        skipped.push(skip);
        if skip {
            continue;
        }
        for n in names_in(l) {
            name_size.get_or_insert(l.size);
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out
}

/// A line naming an institution (which a line of author names does not).
fn institution_line(s: &str) -> bool {
    s.split(|c: char| !c.is_alphabetic()).any(|w| INSTITUTION.contains(&w.to_lowercase().as_str()))
}

#[cfg(test)]
mod tests;
