//! Items worked on by several threads, their results handed over in the
//! items' order.
//!
//! The calling thread is one of the workers and the only one that hands
//! results over, so the consumer needs no locking and sees exactly the order
//! a single thread would give. Items are claimed a batch at a time, and no
//! thread starts a batch more than `AHEAD` batches per thread past the next
//! one to hand over: memory stays bounded whatever the items' costs.

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, mpsc};

/// Items per claim: small enough to keep every core busy to the end, large
/// enough that claiming costs nothing beside an item's work.
pub(crate) const BATCH: usize = 16;
/// How far past the next batch to hand over a thread may start one, per thread.
const AHEAD: usize = 4;

type Batch<R> = anyhow::Result<Vec<R>>;

/// The next batch to hand over (`usize::MAX` once the hand-over has
/// stopped), and the workers waiting for it to move.
struct Window {
    handed: Mutex<usize>,
    moved: Condvar,
}

impl Window {
    /// Waits until batch `b` is within `width` of the next one to hand over;
    /// false when the hand-over has stopped.
    fn wait_for(&self, b: usize, width: usize) -> bool {
        let mut handed = self.handed.lock().unwrap_or_else(|e| e.into_inner());
        while *handed != usize::MAX && b >= *handed + width {
            handed = self.moved.wait(handed).unwrap_or_else(|e| e.into_inner());
        }
        *handed != usize::MAX
    }

    fn set(&self, handed: usize) {
        *self.handed.lock().unwrap_or_else(|e| e.into_inner()) = handed;
        self.moved.notify_all();
    }
}

/// Stops the hand-over when dropped, so that waiting workers end even when
/// the calling thread unwinds (the scope joins them before the panic goes on).
struct Stop<'a>(&'a Window);

impl Drop for Stop<'_> {
    fn drop(&mut self) {
        self.0.set(usize::MAX);
    }
}

/// A worker's panic as the error of the batch it was working on, so that it
/// surfaces in order instead of leaving that batch missing.
fn panicked(payload: Box<dyn std::any::Any + Send>) -> anyhow::Error {
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into());
    anyhow::anyhow!("a worker thread panicked: {message}")
}

/// Works on each of `items` and calls `each` on each result in the items'
/// order: `own` on the calling thread, and `work` on one scoped thread per
/// member of `others`, with that member (each thread's state, such as its
/// own connection to an index). The first error in the items'
/// order is returned, after the results before it were handed over; no item
/// after it is handed over, and the workers stop claiming.
pub(crate) fn map_in_order<T: Sync, W: Send, R: Send>(
    items: &[T],
    mut own: impl FnMut(&T) -> anyhow::Result<R>,
    others: Vec<W>,
    work: impl Fn(&mut W, &T) -> anyhow::Result<R> + Sync,
    mut each: impl FnMut(&T, R) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let batches = items.len().div_ceil(BATCH);
    let width = AHEAD * (others.len() + 1);
    let next = AtomicUsize::new(0);
    let window = Window { handed: Mutex::new(0), moved: Condvar::new() };
    let of = |b: usize| &items[b * BATCH..((b + 1) * BATCH).min(items.len())];
    let run = |w: &mut W, b: usize| -> Batch<R> { of(b).iter().map(|item| work(w, item)).collect() };
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, Batch<R>)>();
        for mut w in others {
            let tx = tx.clone();
            let (next, window, run) = (&next, &window, &run);
            scope.spawn(move || {
                loop {
                    let b = next.fetch_add(1, Ordering::Relaxed);
                    if b >= batches || !window.wait_for(b, width) {
                        break;
                    }
                    let done = std::panic::catch_unwind(AssertUnwindSafe(|| run(&mut w, b)))
                        .unwrap_or_else(|p| Err(panicked(p)));
                    if tx.send((b, done)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // The workers stop waiting on every way out of here.
        let _stop = Stop(&window);
        let mut held: BTreeMap<usize, Batch<R>> = BTreeMap::new();
        let mut handed = 0;
        while handed < batches {
            if let Some(done) = held.remove(&handed) {
                for (item, r) in items[handed * BATCH..].iter().zip(done?) {
                    each(item, r)?;
                }
                handed += 1;
                window.set(handed);
                continue;
            }
            // The next batch is a worker's: start another meanwhile when
            // one is left within the window, else wait for a worker's.
            if next.load(Ordering::Relaxed) < batches.min(handed + width) {
                // A worker may claim in between: the claim is checked again.
                let b = next.fetch_add(1, Ordering::Relaxed);
                if b < batches {
                    held.insert(b, of(b).iter().map(&mut own).collect());
                    continue;
                }
            }
            match rx.recv() {
                Ok((b, done)) => {
                    held.insert(b, done);
                }
                // Every worker has ended and the batch never came (not
                // expected: a worker's panic is its batch's error).
                Err(_) => anyhow::bail!("a worker ended without its batch"),
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn squares(n: usize, workers: usize) -> Vec<(usize, usize)> {
        let items: Vec<usize> = (0..n).collect();
        let mut seen = Vec::new();
        // Uneven work, so that the threads finish out of order.
        let square = |i: usize| {
            if i % 7 == 0 {
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
            Ok(i * i)
        };
        map_in_order(
            &items,
            |&i| square(i),
            vec![(); workers],
            |_, &i| square(i),
            |&i, r| {
                seen.push((i, r));
                Ok(())
            },
        )
        .unwrap();
        seen
    }

    #[test]
    fn results_come_in_the_items_order_whatever_the_threads() {
        for workers in [0, 1, 3] {
            for n in [0, 1, BATCH - 1, BATCH, BATCH + 1, 10 * BATCH + 3] {
                let want: Vec<(usize, usize)> = (0..n).map(|i| (i, i * i)).collect();
                assert_eq!(squares(n, workers), want, "{n} items, {workers} other workers");
            }
        }
    }

    #[test]
    fn the_first_error_in_order_stops_the_hand_over() {
        let fails_at = |i: usize| if i == 3 * BATCH + 5 || i == 9 * BATCH { anyhow::bail!("item {i}") } else { Ok(i) };
        let items: Vec<usize> = (0..20 * BATCH).collect();
        let mut seen = Vec::new();
        let err = map_in_order(
            &items,
            |&i| fails_at(i),
            vec![()],
            |_, &i| fails_at(i),
            |_, r| {
                seen.push(r);
                Ok(())
            },
        )
        .unwrap_err();
        assert_eq!(err.to_string(), format!("item {}", 3 * BATCH + 5));
        // The batch with the error is not handed over in part.
        assert_eq!(seen, (0..3 * BATCH).collect::<Vec<_>>());
    }

    #[test]
    fn the_consumers_error_stops_the_workers() {
        let items: Vec<usize> = (0..50 * BATCH).collect();
        let done = AtomicUsize::new(0);
        let count = |i: usize| {
            done.fetch_add(1, Ordering::Relaxed);
            Ok(i)
        };
        let err = map_in_order(
            &items,
            |&i| count(i),
            vec![(), ()],
            |_, &i| count(i),
            |_, r| if r == 2 { anyhow::bail!("consumer") } else { Ok(()) },
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "consumer");
        // No thread starts a batch past the window of the first one.
        let most = (AHEAD * 3 + 1) * BATCH;
        assert!(done.load(Ordering::Relaxed) <= most, "{} items worked", done.load(Ordering::Relaxed));
    }

    /// How `call` ended, on its own thread: "returned Ok", its error, or
    /// "a panic"; a call that has not ended within 30 s is a hang.
    fn ending(call: impl FnOnce() -> anyhow::Result<()> + Send + 'static) -> String {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(match std::panic::catch_unwind(AssertUnwindSafe(call)) {
                Ok(Ok(())) => "returned Ok".to_string(),
                Ok(Err(e)) => e.to_string(),
                Err(_) => "a panic".to_string(),
            });
        });
        rx.recv_timeout(std::time::Duration::from_secs(30)).expect("map_in_order hung after a panic")
    }

    #[test]
    fn a_panic_on_any_thread_ends_the_call_without_a_hang() {
        for workers in [1, 2] {
            let ended = ending(move || {
                let items: Vec<usize> = (0..20 * BATCH).collect();
                let blow = |i: usize| if i >= 5 * BATCH { panic!("item {i}") } else { Ok(i) };
                map_in_order(&items, |&i| blow(i), vec![(); workers], |_, &i| blow(i), |_, _| Ok(()))
            });
            // A panic on the calling thread goes on out of the call.
            assert!(ended.starts_with("a worker thread panicked: item ") || ended == "a panic", "{ended}");
        }
    }

    #[test]
    fn a_workers_panic_is_the_error_of_its_batch() {
        for workers in [1, 2] {
            let ended = ending(move || {
                let items: Vec<usize> = (0..40 * BATCH).collect();
                // Only the other threads fail, on whatever item they take
                // first. The calling thread holds its first item until one
                // has (10 s at most), so that a worker does claim a batch
                // rather than the calling thread doing them all.
                let claimed = std::sync::atomic::AtomicBool::new(false);
                let own = |&i: &usize| -> anyhow::Result<usize> {
                    let start = std::time::Instant::now();
                    while !claimed.load(Ordering::SeqCst) && start.elapsed().as_secs() < 10 {
                        std::thread::yield_now();
                    }
                    Ok(i)
                };
                let blow = |_: &mut (), &i: &usize| -> anyhow::Result<usize> {
                    claimed.store(true, Ordering::SeqCst);
                    panic!("item {i}")
                };
                map_in_order(&items, own, vec![(); workers], blow, |_, _| Ok(()))
            });
            assert!(ended.starts_with("a worker thread panicked: item "), "{ended}");
        }
    }
}
