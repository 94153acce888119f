//! Where a review stands: how many candidates are screened and included,
//! an estimate of the relevant ones left, and a stopping suggestion.
//!
//! - **Estimate** (method `recent-rate`): the inclusion rate of the last
//!   `min(100, screened)` decisions times the undecided candidates. With the
//!   model proposing the likeliest first the rate falls as screening goes
//!   on, so this overestimates what is left: read it as an upper figure.
//! - **Stopping** (the knee method, Cormack & Grossman 2016, "Engineering
//!   quality and reliability in technology-assisted review", SIGIR, with their
//!   adjusted threshold): with `s` screened and `r(s)` included, the knee is
//!   the `i` furthest above the line from the origin to `(s, r(s))`; the
//!   slope ratio is `(r(i)/i) / ((r(s) − r(i) + 1)/(s − i))`. Stop when
//!   `s ≥ 150` and the ratio is at least `156 − min(r(s), 150)`. Also
//!   reported: the run of consecutive excludes at the end.

use serde::Serialize;

use super::review::decisions;
use crate::store::Store;

/// A review's status.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Status {
    pub review: String,
    pub origin: String,
    pub candidates: usize,
    pub screened: usize,
    pub included: usize,
    pub excluded: usize,
    pub undecided: usize,
    /// Excludes in a row since the last include.
    pub excludes_in_a_row: usize,
    pub estimate: Estimate,
    pub stop: Stop,
}

/// How many relevant candidates are left, and how that was estimated.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    pub relevant_remaining: f64,
    pub method: &'static str,
}

/// The stopping suggestion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stop {
    pub rule: &'static str,
    pub stop: bool,
    /// The slope ratio at the knee (`None` before there is one).
    pub slope_ratio: Option<f64>,
    /// The ratio the rule asks for now.
    pub threshold: f64,
    pub why: String,
}

/// The status of review `name`.
pub fn status(store: &Store, name: &str) -> anyhow::Result<Status> {
    let review = store.screen_review(name)?.ok_or_else(|| anyhow::anyhow!("no review `{name}`"))?;
    let candidates = store.screen_candidates(name)?.len();
    let seq: Vec<bool> = decisions(store, name)?.into_iter().map(|d| d.included).collect();
    let included = seq.iter().filter(|x| **x).count();
    let screened = seq.len();
    let undecided = candidates - screened;
    let window = &seq[screened.saturating_sub(100)..];
    let rate = if window.is_empty() { 0.0 } else { window.iter().filter(|x| **x).count() as f64 / window.len() as f64 };
    Ok(Status {
        review: review.name,
        origin: review.origin,
        candidates,
        screened,
        included,
        excluded: screened - included,
        undecided,
        excludes_in_a_row: seq.iter().rev().take_while(|x| !**x).count(),
        estimate: Estimate { relevant_remaining: rate * undecided as f64, method: "recent-rate" },
        stop: knee(&seq, undecided),
    })
}

/// The knee method's verdict on a sequence of decisions (true = include).
pub fn knee(seq: &[bool], undecided: usize) -> Stop {
    let s = seq.len();
    let mut cum = Vec::with_capacity(s + 1);
    cum.push(0usize);
    for &x in seq {
        cum.push(cum.last().copied().unwrap_or(0) + usize::from(x));
    }
    let rs = cum[s];
    let threshold = 156.0 - rs.min(150) as f64;
    let rule = "knee (Cormack & Grossman 2016, adjusted)";
    if undecided == 0 {
        return Stop { rule, stop: true, slope_ratio: None, threshold, why: "every candidate is decided".into() };
    }
    if rs == 0 || s < 2 {
        return Stop { rule, stop: false, slope_ratio: None, threshold, why: "no include yet".into() };
    }
    // The knee: the i maximising r(i) − i·r(s)/s (the distance above the diagonal, up to a constant).
    let (i, _) = (1..s)
        .map(|i| (i, cum[i] as f64 - i as f64 * rs as f64 / s as f64))
        .fold((1, f64::MIN), |m, c| if c.1 > m.1 { c } else { m });
    let ratio = (cum[i] as f64 / i as f64) / ((rs - cum[i]) as f64 + 1.0) * (s - i) as f64;
    let stop = s >= 150 && ratio >= threshold;
    let why = if s < 150 {
        format!("{s} screened: the rule waits for 150")
    } else if stop {
        format!("slope ratio {ratio:.1} at the knee ({i} screened) reaches {threshold:.0}")
    } else {
        format!("slope ratio {ratio:.1} at the knee ({i} screened) is below {threshold:.0}")
    };
    Stop { rule, stop, slope_ratio: Some(ratio), threshold, why }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_knee_stops_after_a_long_tail_of_excludes_only() {
        // 40 includes early, then excludes: a sharp knee.
        let mut seq: Vec<bool> = (0..60).map(|i| i % 3 != 2).collect();
        seq.extend(std::iter::repeat_n(false, 300));
        let inc = seq.iter().filter(|x| **x).count();
        let s = knee(&seq, 500);
        assert_eq!(inc, 40);
        assert!(s.stop, "{s:?}");
        // The same rate throughout: no knee worth stopping at.
        let flat: Vec<bool> = (0..200).map(|i| i % 5 == 0).collect();
        assert!(!knee(&flat, 500).stop);
        // Too few screened.
        assert!(!knee(&seq[..100], 500).stop);
    }
}
