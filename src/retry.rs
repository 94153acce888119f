//! Retries with exponential backoff: the one policy both HTTP clients use
//! (`fetch`'s APIs and an OpenSearch cluster).
//!
//! An attempt either gives its value, fails for good (an error, returned at
//! once) or fails transiently (a timeout, a refused connection, a status the
//! client deems worth another try), optionally with the server's
//! `Retry-After`. A transient failure is retried up to [`Backoff::retries`]
//! times. The pause before retry `n` (from 0) is the server's `Retry-After`
//! when it gave one, else `base · 2^n`, plus a random jitter in `[0, base)`
//! when [`Backoff::jitter`] is on, at most [`Backoff::max`]. Which failures
//! are transient is the client's call: this module only counts and waits.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::time::{Duration, Instant};

/// How often and how long to retry.
#[derive(Debug, Clone)]
pub(crate) struct Backoff {
    /// How many times a transient failure is retried (0: one attempt only).
    pub retries: u32,
    /// The first pause, doubled on each retry.
    pub base: Duration,
    /// The longest computed pause (a `Retry-After` is not capped here).
    pub max: Duration,
    /// Whether a random jitter in `[0, base)` is added to a computed pause.
    pub jitter: bool,
    seed: RandomState,
}

/// What one attempt gave.
pub(crate) enum Attempt<T> {
    Done(T),
    /// Worth another try: why, and how long the server asked us to wait.
    Transient(String, Option<Duration>),
}

/// What a retried operation does besides its attempts.
pub(crate) trait Retried {
    type Output;

    /// One try.
    fn attempt(&mut self) -> anyhow::Result<Attempt<Self::Output>>;

    /// The error once the retries are spent: `attempts` were made, the last
    /// one failing for `why`.
    fn gave_up(&self, attempts: u32, why: &str) -> anyhow::Error;

    /// Told of a pause before it is slept; `asked` when it is the server's
    /// `Retry-After`. An error ends the retries with it.
    fn pausing(&mut self, _pause: Duration, _asked: bool) -> anyhow::Result<()> {
        Ok(())
    }

    /// Told of a pause once it has been slept.
    fn paused(&mut self, _pause: Duration) {}
}

impl Backoff {
    pub(crate) fn new(retries: u32, base: Duration, max: Duration, jitter: bool) -> Backoff {
        Backoff { retries, base, max, jitter, seed: RandomState::new() }
    }

    /// `base · 2^attempt`, plus the jitter when it is on, at most `max`.
    pub(crate) fn pause(&self, attempt: u32) -> Duration {
        let doubled = self.base.saturating_mul(1u32 << attempt.min(16));
        let jitter = if self.jitter {
            let nanos = self.base.as_nanos().max(1) as u64;
            Duration::from_nanos(self.seed.hash_one((attempt, Instant::now())) % nanos)
        } else {
            Duration::ZERO
        };
        (doubled + jitter).min(self.max)
    }

    /// Runs `op`'s attempts until one is done, fails for good, or the
    /// retries are spent.
    pub(crate) fn run<R: Retried>(&self, op: &mut R) -> anyhow::Result<R::Output> {
        self.run_with(op, std::thread::sleep)
    }

    fn run_with<R: Retried>(&self, op: &mut R, mut sleep: impl FnMut(Duration)) -> anyhow::Result<R::Output> {
        let mut attempt = 0u32;
        loop {
            let (why, retry_after) = match op.attempt()? {
                Attempt::Done(v) => return Ok(v),
                Attempt::Transient(why, after) => (why, after),
            };
            if attempt >= self.retries {
                return Err(op.gave_up(attempt + 1, &why));
            }
            let pause = retry_after.unwrap_or_else(|| self.pause(attempt));
            op.pausing(pause, retry_after.is_some())?;
            sleep(pause);
            op.paused(pause);
            attempt += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fails transiently `fail` times (with `after` as Retry-After), then gives 7.
    struct Flaky {
        fail: u32,
        after: Option<Duration>,
        attempts: u32,
        told: Vec<(Duration, bool)>,
        slept: Vec<Duration>,
    }

    impl Flaky {
        fn new(fail: u32, after: Option<Duration>) -> Flaky {
            Flaky { fail, after, attempts: 0, told: Vec::new(), slept: Vec::new() }
        }
    }

    impl Retried for Flaky {
        type Output = u32;
        fn attempt(&mut self) -> anyhow::Result<Attempt<u32>> {
            self.attempts += 1;
            Ok(if self.attempts > self.fail { Attempt::Done(7) } else { Attempt::Transient("busy".into(), self.after) })
        }
        fn gave_up(&self, attempts: u32, why: &str) -> anyhow::Error {
            anyhow::anyhow!("gave up after {attempts}: {why}")
        }
        fn pausing(&mut self, pause: Duration, asked: bool) -> anyhow::Result<()> {
            if pause > Duration::from_secs(100) {
                anyhow::bail!("too long");
            }
            self.told.push((pause, asked));
            Ok(())
        }
        fn paused(&mut self, pause: Duration) {
            self.slept.push(pause);
        }
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn pauses_double_without_jitter_and_are_capped() {
        let b = Backoff::new(4, ms(250), ms(250 * 64), false);
        let pauses: Vec<Duration> = (0..9).map(|a| b.pause(a)).collect();
        assert_eq!(pauses, [250, 500, 1000, 2000, 4000, 8000, 16000, 16000, 16000].map(ms));
    }

    #[test]
    fn jitter_stays_below_one_base() {
        let b = Backoff::new(4, ms(100), Duration::from_secs(60), true);
        for attempt in 0..4 {
            let d = b.pause(attempt);
            let base = ms(100 << attempt);
            assert!(d >= base && d < base + ms(100), "attempt {attempt}: {d:?}");
        }
        assert_eq!(b.pause(30), Duration::from_secs(60));
    }

    #[test]
    fn transient_failures_are_retried_until_done() {
        let b = Backoff::new(3, ms(10), ms(1000), false);
        let mut op = Flaky::new(2, None);
        let mut slept = Vec::new();
        assert_eq!(b.run_with(&mut op, |d| slept.push(d)).unwrap(), 7);
        assert_eq!(op.attempts, 3);
        assert_eq!(slept, [ms(10), ms(20)]);
        assert_eq!(op.told, [(ms(10), false), (ms(20), false)]);
        assert_eq!(op.slept, slept);
    }

    #[test]
    fn spent_retries_give_the_clients_error() {
        let b = Backoff::new(2, ms(10), ms(1000), false);
        let mut op = Flaky::new(5, None);
        let err = b.run_with(&mut op, |_| {}).unwrap_err().to_string();
        assert_eq!(err, "gave up after 3: busy");
        assert_eq!(op.attempts, 3);
        let mut once = Flaky::new(5, None);
        let err = Backoff::new(0, ms(10), ms(1000), false).run_with(&mut once, |_| {}).unwrap_err();
        assert_eq!(err.to_string(), "gave up after 1: busy");
    }

    #[test]
    fn retry_after_replaces_the_computed_pause_and_can_be_refused() {
        let b = Backoff::new(3, ms(10), ms(1000), true);
        let mut op = Flaky::new(1, Some(Duration::from_secs(5)));
        let mut slept = Vec::new();
        assert_eq!(b.run_with(&mut op, |d| slept.push(d)).unwrap(), 7);
        assert_eq!(slept, [Duration::from_secs(5)], "not capped by max, no jitter");
        assert_eq!(op.told, [(Duration::from_secs(5), true)]);
        let mut op = Flaky::new(1, Some(Duration::from_secs(500)));
        let err = b.run_with(&mut op, |_| panic!("no sleep after a refused pause")).unwrap_err();
        assert_eq!(err.to_string(), "too long");
    }
}
