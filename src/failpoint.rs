//! Failpoints: named places in the write path where a test can make the
//! process die, to prove that a crash there leaves the index as it was.
//!
//! They exist only in a binary built with the cargo feature `failpoints`
//! (`cargo test --features failpoints`; CI enables it). Without it,
//! [`failpoint`] and [`failpoint_at`] are empty inline functions: no
//! environment variable is read and `LITINDEX_FAILPOINT` is ignored.
//!
//! `LITINDEX_FAILPOINT=NAME` arms the failpoint `NAME`; counted failpoints
//! fire when their count reaches `LITINDEX_FAILPOINT_AFTER` (default 1000).
//! `LITINDEX_FAILPOINT_ACTION` says what happens there: `abort` (the default:
//! `std::process::abort()`, no destructor runs, like a crash), `pause`
//! (sleep until killed, so a test can send SIGKILL exactly there) or
//! `sleep:MS` (wait MS milliseconds, then go on). Each firing is announced on
//! stderr as `litindex: failpoint NAME reached`.
//!
//! The names: `after-records` (N records filed), `mid-postings` (the Nth
//! paper's postings written, its edges not yet), `before-stats` (just before
//! the statistics are refreshed), `before-commit`, `after-commit` (committed,
//! connection still open, so the WAL is not checkpointed), `before-rename`
//! (a new index complete, not yet moved into place), `embed-batch` (the Nth
//! batch of vectors committed).

/// Whether this build has failpoints (the cargo feature `failpoints`).
pub const ENABLED: bool = cfg!(feature = "failpoints");

#[cfg(feature = "failpoints")]
pub(crate) use armed::{failpoint, failpoint_at};

/// Without the feature: does nothing.
#[cfg(not(feature = "failpoints"))]
#[inline(always)]
pub(crate) fn failpoint(_name: &str) {}

/// Without the feature: does nothing.
#[cfg(not(feature = "failpoints"))]
#[inline(always)]
pub(crate) fn failpoint_at(_name: &str, _count: u64) {}

#[cfg(feature = "failpoints")]
mod armed {
    use std::io::Write;
    use std::sync::OnceLock;
    use std::time::Duration;

    #[derive(Debug)]
    struct Armed {
        name: String,
        after: u64,
        action: Action,
    }

    #[derive(Debug, Clone, Copy)]
    enum Action {
        Abort,
        Pause,
        Sleep(u64),
    }

    fn armed() -> Option<&'static Armed> {
        static ARMED: OnceLock<Option<Armed>> = OnceLock::new();
        ARMED
            .get_or_init(|| {
                let name = std::env::var("LITINDEX_FAILPOINT").ok().filter(|s| !s.is_empty())?;
                let after = std::env::var("LITINDEX_FAILPOINT_AFTER").ok().and_then(|s| s.parse().ok()).unwrap_or(1000);
                let action = match std::env::var("LITINDEX_FAILPOINT_ACTION").as_deref() {
                    Ok("pause") => Action::Pause,
                    Ok(s) if s.starts_with("sleep:") => Action::Sleep(s["sleep:".len()..].parse().unwrap_or(1000)),
                    _ => Action::Abort,
                };
                Some(Armed { name, after, action })
            })
            .as_ref()
    }

    /// Fires when `LITINDEX_FAILPOINT` names `name`.
    pub(crate) fn failpoint(name: &str) {
        if let Some(a) = armed() {
            if a.name == name {
                fire(a);
            }
        }
    }

    /// Fires when `LITINDEX_FAILPOINT` names `name` and `count` equals
    /// `LITINDEX_FAILPOINT_AFTER`.
    pub(crate) fn failpoint_at(name: &str, count: u64) {
        if let Some(a) = armed() {
            if a.name == name && a.after == count {
                fire(a);
            }
        }
    }

    fn fire(a: &Armed) {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "litindex: failpoint {} reached", a.name);
        let _ = err.flush();
        drop(err);
        match a.action {
            Action::Abort => std::process::abort(),
            Action::Pause => loop {
                std::thread::sleep(Duration::from_secs(3600));
            },
            Action::Sleep(ms) => std::thread::sleep(Duration::from_millis(ms)),
        }
    }
}
