//! A page's glyphs into lines in reading order: glyphs join a line in
//! content-stream order while they move forward along one baseline
//! (superscripts, raised and smaller, stay in their line and are marked);
//! a two-column page is found by its empty gutter, lines are cut there, and
//! each band between full-width lines (or empty strips across the page) is
//! read left column first.

use super::glyphs::{Glyph, Page};
use super::text::{combining_for, is_spacing_accent};

/// Which part of the page a line lies in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Left,
    Right,
    Full,
}

/// One printed line (or one column's part of it).
#[derive(Debug, Clone)]
pub(crate) struct Line {
    pub page: u32,
    pub x0: f32,
    pub x1: f32,
    /// Baseline.
    pub y: f32,
    /// The size of most of its glyphs (raised ones apart).
    pub size: f32,
    pub text: String,
    /// Byte ranges of `text` printed raised and smaller.
    pub raised: Vec<(usize, usize)>,
    /// Byte offsets of the spaces that stand for a wide gap (cells of a
    /// row of author names, of a table).
    pub wide: Vec<usize>,
    pub side: Side,
}

#[derive(Clone)]
struct Frag {
    x0: f32,
    x1: f32,
    y: f32,
    size: f32,
    /// Glyphs: (x, end, text, raised).
    parts: Vec<(f32, f32, String, bool)>,
}

impl Frag {
    fn new(g: &Glyph) -> Frag {
        Frag { x0: g.x, x1: g.x + g.adv.max(0.0), y: g.y, size: g.size, parts: Vec::new() }
    }

    /// Whether glyph `g` continues this fragment, and whether it is raised.
    fn takes(&self, g: &Glyph) -> Option<bool> {
        let s = self.size;
        if g.x < self.x1 - 0.6 * s || g.x > self.x1 + 2.0 * s {
            return None;
        }
        let dy = g.y - self.y;
        if dy.abs() <= 0.2 * s {
            return Some(g.size < 0.9 * s && dy > 0.08 * s);
        }
        if g.size < 0.9 * s && dy > 0.08 * s && dy < 0.75 * s {
            return Some(true);
        }
        if g.size < 0.9 * s && dy < -0.05 * s && dy > -0.5 * s {
            return Some(false); // a subscript
        }
        None
    }

    fn push(&mut self, g: &Glyph, raised: bool) {
        self.x1 = self.x1.max(g.x + g.adv.max(0.0));
        self.x0 = self.x0.min(g.x);
        self.parts.push((g.x, g.x + g.adv.max(0.0), g.text.clone(), raised));
    }
}

/// The page's fragments: runs of glyphs in stream order along one baseline.
fn fragments(page: &Page) -> Vec<Frag> {
    let mut out: Vec<Frag> = Vec::new();
    let mut cur: Option<Frag> = None;
    for g in &page.glyphs {
        if g.text.chars().all(char::is_whitespace) {
            continue;
        }
        if let Some(f) = cur.as_mut() {
            // A line number printed just before its line stays apart.
            let number = f.parts.iter().all(|p| p.2.chars().all(|c| c.is_ascii_digit()));
            let apart = number && g.x > f.x1 + 0.5 * f.size && !g.text.chars().all(|c| c.is_ascii_digit());
            if let Some(raised) = f.takes(g).filter(|_| !apart) {
                f.push(g, raised);
                continue;
            }
            // A first glyph that was itself raised (an affiliation mark):
            // the larger glyph below it is the line's real baseline.
            let dy = f.y - g.y;
            if f.parts.iter().all(|p| !p.3)
                && g.size > 1.1 * f.size
                && dy > 0.08 * g.size
                && dy < 0.75 * g.size
                && g.x >= f.x1 - 0.6 * g.size
                && g.x <= f.x1 + 1.0 * g.size
            {
                for p in &mut f.parts {
                    p.3 = true;
                }
                f.y = g.y;
                f.size = g.size;
                f.push(g, false);
                continue;
            }
        }
        if let Some(f) = cur.take() {
            out.push(f);
        }
        let mut f = Frag::new(g);
        f.push(g, false);
        cur = Some(f);
    }
    if let Some(f) = cur.take() {
        out.push(f);
    }
    out
}

/// The page's gutter `(x0, x1)` when it is set in two columns: an empty
/// vertical band near the middle of the text that most lines stop at.
fn gutter(frags: &[Frag], page: &Page) -> Option<(f32, f32)> {
    if frags.len() < 12 {
        return None;
    }
    let lo = frags.iter().map(|f| f.x0).fold(f32::INFINITY, f32::min).max(page.x0);
    let hi = frags.iter().map(|f| f.x1).fold(f32::NEG_INFINITY, f32::max).min(page.x1);
    if hi - lo <= 100.0 || hi.is_nan() || lo.is_nan() {
        return None;
    }
    let bins = ((hi - lo).ceil() as usize).min(4000);
    let mut cover = vec![0u32; bins + 1];
    for f in frags {
        // Cover by glyph so that a line's word gaps stay open.
        for p in &f.parts {
            let a = (((p.0 - lo).max(0.0)) as usize).min(bins);
            let b = (((p.1 - lo).max(0.0)) as usize).min(bins);
            for c in &mut cover[a..=b.max(a)] {
                *c += 1;
            }
        }
    }
    let rows = frags.len() as u32;
    // Full-width lines (title, authors, wide figures) may cross it.
    let quiet = (rows / 10).max(3);
    let (m0, m1) = (bins * 3 / 10, bins * 7 / 10);
    let mut best: Option<(usize, usize)> = None;
    let mut i = m0;
    while i < m1 {
        if cover[i] <= quiet {
            let s = i;
            while i < bins && cover[i] <= quiet {
                i += 1;
            }
            if best.is_none_or(|(a, b)| i - s > b - a) {
                best = Some((s, i));
            }
        } else {
            i += 1;
        }
    }
    let (s, e) = best?;
    if e - s < 5 {
        return None;
    }
    let (g0, g1) = (lo + s as f32, lo + e as f32);
    let left = frags.iter().filter(|f| f.x1 <= g0 + 1.0).count();
    let right = frags.iter().filter(|f| f.x0 >= g1 - 1.0).count();
    if left < 6 || right < 6 {
        return None;
    }
    Some((g0, g1))
}

/// The gutter of a page set in two columns for only part of its height (a
/// one-column appendix above a two-column reference list, a full-width
/// figure over two columns): a gutter of the fragments below, or above, a
/// split height (the middle, then the thirds, then the quarters).
fn part_gutter(frags: &[Frag], page: &Page) -> Option<(f32, f32)> {
    if frags.len() < 24 {
        return None;
    }
    let mut ys: Vec<f32> = frags.iter().map(|f| f.y).collect();
    ys.sort_by(f32::total_cmp);
    for share in [0.5, 1.0 / 3.0, 2.0 / 3.0, 0.25, 0.75] {
        let split = ys[((ys.len() as f64) * share) as usize];
        let below: Vec<Frag> = frags.iter().filter(|f| f.y < split).cloned().collect();
        let above: Vec<Frag> = frags.iter().filter(|f| f.y >= split).cloned().collect();
        for part in [below, above] {
            if part.len() >= 12 {
                if let Some(g) = gutter(&part, page) {
                    return Some(g);
                }
            }
        }
    }
    None
}

/// Cuts fragments that cross the gutter where a gap lies in it.
fn cut_at_gutter(frags: Vec<Frag>, (g0, g1): (f32, f32)) -> Vec<Frag> {
    let mut out = Vec::with_capacity(frags.len());
    for f in frags {
        if !(f.x0 < g0 && f.x1 > g1) {
            out.push(f);
            continue;
        }
        // A gap as wide as half the gutter: a word space in a title that
        // crosses the middle is not one.
        let wide = ((g1 - g0) * 0.5).max(0.6 * f.size);
        let cut = f.parts.windows(2).position(|w| w[0].1 <= g1 && w[1].0 >= g0 && w[1].0 - w[0].1 >= wide);
        match cut {
            Some(k) => {
                let mut a = Frag { x0: f.x0, x1: f.x0, y: f.y, size: f.size, parts: Vec::new() };
                let mut b =
                    Frag { x0: f.parts[k + 1].0, x1: f.parts[k + 1].0, y: f.y, size: f.size, parts: Vec::new() };
                for (i, p) in f.parts.into_iter().enumerate() {
                    let t = if i <= k { &mut a } else { &mut b };
                    t.x1 = t.x1.max(p.1);
                    t.parts.push(p);
                }
                out.push(a);
                out.push(b);
            }
            None => out.push(f),
        }
    }
    out
}

fn side_of(f: &Frag, gutter: Option<(f32, f32)>) -> Side {
    match gutter {
        None => Side::Full,
        Some((g0, g1)) => {
            // What crosses the gutter's middle is full width (a title, an
            // author line, a wide figure's caption).
            let mid = (g0 + g1) / 2.0;
            if f.x0 < mid - 1.0 && f.x1 > mid + 1.0 {
                Side::Full
            } else if f.x0 + f.x1 < 2.0 * mid {
                Side::Left
            } else {
                Side::Right
            }
        }
    }
}

/// Fragments on one baseline and side, in x order, into one line's text.
fn join(page: u32, mut row: Vec<Frag>, side: Side) -> Line {
    row.sort_by(|a, b| a.x0.total_cmp(&b.x0));
    let mut parts: Vec<(f32, f32, String, bool)> = Vec::new();
    let mut sizes: Vec<f32> = Vec::new();
    let mut y = row[0].y;
    let mut best = 0usize;
    for f in &row {
        if f.parts.len() > best {
            best = f.parts.len();
            y = f.y;
        }
        sizes.push(f.size);
        parts.extend(f.parts.iter().cloned());
    }
    sizes.sort_by(f32::total_cmp);
    let size = row.iter().max_by_key(|f| f.parts.iter().filter(|p| !p.3).count()).map_or(sizes[0], |f| f.size);
    let mut text = String::new();
    let mut raised: Vec<(usize, usize)> = Vec::new();
    let mut wide: Vec<usize> = Vec::new();
    let mut prev_end: Option<f32> = None;
    let mut pending_accent: Option<char> = None;
    let n = parts.len();
    for i in 0..n {
        let (x, end, ref t, up) = parts[i];
        let mut chars = t.chars();
        let single = match (chars.next(), chars.next()) {
            (Some(c), None) => Some(c),
            _ => None,
        };
        if let Some(c) = single.filter(|c| is_spacing_accent(*c)) {
            let mid = (x + end) / 2.0;
            // The accent over the next glyph (it is printed first) or the previous one.
            let over_next = i + 1 < n && mid >= parts[i + 1].0 - 0.5 && mid <= parts[i + 1].1 + 0.5;
            let over_prev = prev_end.is_some() && i > 0 && mid >= parts[i - 1].0 - 0.5 && mid <= parts[i - 1].1 + 0.5;
            if let Some(comb) = combining_for(c) {
                if over_next {
                    pending_accent = Some(comb);
                    continue;
                }
                if over_prev {
                    text.push(comb);
                    continue;
                }
            }
        }
        if let Some(pe) = prev_end {
            if x - pe > 0.15 * size.min(20.0) {
                if x - pe > 1.5 * size {
                    wide.push(text.len());
                }
                text.push(' ');
            }
        }
        let start = text.len();
        text.push_str(t);
        if let Some(comb) = pending_accent.take() {
            text.push(comb);
        }
        if up {
            match raised.last_mut() {
                Some(last) if last.1 == start || (last.1 + 1 == start && text.as_bytes()[last.1] == b' ') => {
                    last.1 = text.len()
                }
                _ => raised.push((start, text.len())),
            }
        }
        prev_end = Some(prev_end.map_or(end, |p: f32| p.max(end)));
    }
    let x0 = row.iter().map(|f| f.x0).fold(f32::INFINITY, f32::min);
    let x1 = row.iter().map(|f| f.x1).fold(f32::NEG_INFINITY, f32::max);
    Line { page, x0, x1, y, size, text, raised, wide, side }
}

/// An empty strip across both columns taller than this many line sizes
/// (baseline to baseline) ends a band, as a full-width line does, when the
/// columns are balanced above it ([`balanced_strips`]): they are read
/// before the columns below it (the reference list of APS and revtex
/// papers starts there with no heading). On the dev PDFs the rule changed
/// only the pages docs/FULLTEXT.md lists.
const STRIP_LINES: f32 = 3.5;

/// The page's lines in reading order.
pub(crate) fn lines(page: &Page) -> Vec<Line> {
    let mut frags = fragments(page);
    let gut = gutter(&frags, page).or_else(|| part_gutter(&frags, page));
    if let Some(g) = gut {
        frags = cut_at_gutter(frags, g);
    }
    // Rows: fragments of one side whose baselines agree.
    let mut tagged: Vec<(Side, Frag)> = frags.into_iter().map(|f| (side_of(&f, gut), f)).collect();
    tagged.sort_by(|a, b| b.1.y.total_cmp(&a.1.y).then(a.1.x0.total_cmp(&b.1.x0)));
    let mut rows: Vec<(Side, Vec<Frag>)> = Vec::new();
    for (side, f) in tagged {
        let near = rows.iter_mut().rev().take(6).find(|(s, r)| {
            let y = r[0].y;
            let size = r[0].size.max(f.size);
            // Near in x too: a line number in the margin stays its own line.
            let x0 = r.iter().map(|g| g.x0).fold(f32::INFINITY, f32::min);
            let x1 = r.iter().map(|g| g.x1).fold(f32::NEG_INFINITY, f32::max);
            // A digits-only piece (a line number) joins only what touches it.
            let digits = |x: &Frag| x.parts.iter().all(|p| p.2.chars().all(|c| c.is_ascii_digit()));
            let reach = if digits(&f) || r.iter().all(digits) { 0.5 } else { 3.0 } * size;
            let near_x = f.x0 <= x1 + reach && f.x1 >= x0 - reach;
            *s == side && near_x && (f.y - y).abs() <= 0.3 * size.min(r[0].size.max(1.0) * 1.5)
        });
        match near {
            Some((_, r)) => r.push(f),
            None => rows.push((side, vec![f])),
        }
    }
    let mut lines: Vec<Line> = rows.into_iter().map(|(side, r)| join(page.number, r, side)).collect();
    lines.retain(|l| !l.text.trim().is_empty());
    if gut.is_none() {
        lines.sort_by(|a, b| b.y.total_cmp(&a.y));
        return lines;
    }
    // Bands between full-width lines, or across an empty strip the width of
    // the page between balanced columns: the left column, then the right.
    lines.sort_by(|a, b| b.y.total_cmp(&a.y));
    let strips = balanced_strips(&lines);
    let mut out = Vec::with_capacity(lines.len());
    let mut left: Vec<Line> = Vec::new();
    let mut right: Vec<Line> = Vec::new();
    for (i, l) in lines.into_iter().enumerate() {
        if strips.contains(&i) {
            out.append(&mut left);
            out.append(&mut right);
        }
        match l.side {
            Side::Full => {
                out.append(&mut left);
                out.append(&mut right);
                out.push(l);
            }
            Side::Left => left.push(l),
            Side::Right => right.push(l),
        }
    }
    out.append(&mut left);
    out.append(&mut right);
    out
}

/// The positions in `lines` (sorted top to bottom) where a band ends at an
/// empty strip across the page ([`STRIP_LINES`] line sizes at least)
/// between balanced columns: the lowest left and right lines above it end
/// on one baseline, and the highest left and right lines below it start on
/// one (a section's columns balanced above a reference list, as revtex
/// sets them). Columns that merely both have a gap there (a figure in
/// each, a heading's space) do not line up at both ends and stay one band.
fn balanced_strips(lines: &[Line]) -> Vec<usize> {
    let level = |a: Option<&Line>, b: Option<&Line>| match (a, b) {
        (Some(a), Some(b)) => (a.y - b.y).abs() <= 0.3 * a.size.max(b.size),
        _ => false,
    };
    let mut out = Vec::new();
    let mut band_start = 0;
    for i in 1..lines.len() {
        if lines[i - 1].side == Side::Full {
            band_start = i;
        }
        let (up, down) = (&lines[i - 1], &lines[i]);
        if up.y - down.y <= STRIP_LINES * up.size.max(down.size) {
            continue;
        }
        let above = &lines[band_start..i];
        let below = lines[i..].iter().take_while(|l| l.side != Side::Full);
        let last = |side| above.iter().rev().find(|l| l.side == side);
        let (mut first_left, mut first_right) = (None, None);
        for l in below {
            match l.side {
                Side::Left => first_left = first_left.or(Some(l)),
                Side::Right => first_right = first_right.or(Some(l)),
                Side::Full => {}
            }
        }
        if level(last(Side::Left), last(Side::Right)) && level(first_left, first_right) {
            out.push(i);
            band_start = i;
        }
    }
    out
}
