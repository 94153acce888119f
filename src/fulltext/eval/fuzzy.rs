//! Text normalisation and the fuzzy ratio the data set's README uses
//! (Python's `difflib.SequenceMatcher.ratio`, without its junk heuristics).

use unicode_normalization::UnicodeNormalization;

/// NFKD, ligatures split (NFKD does it), combining marks dropped, lowercase,
/// every run of non-alphanumerics one space, trimmed.
pub fn normalise(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = true;
    for c in s.nfkd() {
        if unicode_normalization::char::is_combining_mark(c) {
            continue;
        }
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
            space = false;
        } else if !space {
            out.push(' ');
            space = true;
        }
    }
    if out.ends_with(' ') {
        out.pop();
    }
    out
}

/// `2 * M / (len(a) + len(b))`, M the characters in the matching blocks
/// found as difflib finds them: the longest common block, then the same on
/// each side of it, recursively. 1.0 for two empty strings.
pub fn ratio(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let m = matches(&a, &b);
    2.0 * m as f64 / (a.len() + b.len()) as f64
}

fn matches(a: &[char], b: &[char]) -> usize {
    let mut total = 0;
    let mut stack = vec![(0usize, a.len(), 0usize, b.len())];
    while let Some((a0, a1, b0, b1)) = stack.pop() {
        let (i, j, k) = longest(a, b, a0, a1, b0, b1);
        if k == 0 {
            continue;
        }
        total += k;
        if a0 < i && b0 < j {
            stack.push((a0, i, b0, j));
        }
        if i + k < a1 && j + k < b1 {
            stack.push((i + k, a1, j + k, b1));
        }
    }
    total
}

/// The longest common block of `a[a0..a1]` and `b[b0..b1]`, earliest in `a`
/// then in `b` on ties (as difflib): `(i, j, size)`.
fn longest(a: &[char], b: &[char], a0: usize, a1: usize, b0: usize, b1: usize) -> (usize, usize, usize) {
    let mut best = (a0, b0, 0);
    // prev[t]: the common suffix ending at a[i - 1] and b[b0 + t - 1].
    let n = b1 - b0;
    let mut prev = vec![0usize; n + 1];
    let mut cur = vec![0usize; n + 1];
    for i in a0..a1 {
        for t in 0..n {
            let k = if a[i] == b[b0 + t] { prev[t] + 1 } else { 0 };
            cur[t + 1] = k;
            if k > best.2 {
                best = (i + 1 - k, b0 + t + 1 - k, k);
            }
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalised() {
        assert_eq!(normalise("E\u{FB03}cient  Caf\u{E9}—Models!"), "efficient cafe models");
    }

    #[test]
    fn ratios_as_difflib() {
        // difflib.SequenceMatcher(None, a, b).ratio() values.
        assert!((ratio("abcd", "bcde") - 0.75).abs() < 1e-9);
        assert!((ratio("private", "pirate") - 10.0 / 13.0).abs() < 1e-9);
        assert_eq!(ratio("", ""), 1.0);
        assert_eq!(ratio("abc", "xyz"), 0.0);
    }
}
