//! Reading ahead: an input's records are analysed (their text tokenised and
//! counted) on a second thread a few hundred records before the engine
//! stores them, so the writer's core does the writing. The records are
//! still stored one by one in their order; a paper stored with other text
//! than its record's (a merge) is analysed again by the writer.

use std::collections::VecDeque;
use std::sync::mpsc;

use crate::analyzer::Analyzer;
use crate::store::postings_writer::Analysed;

/// How many items are read ahead of the one being stored.
const AHEAD: usize = 256;

/// Calls `each` with every item of `items` in order, and with the analysis
/// of the text `text` gives for it (none for an item without text).
/// Stops at the first error `each` returns.
pub(super) fn each_analysed<T>(
    items: impl Iterator<Item = T>,
    analyzer: Analyzer,
    text: impl Fn(&T) -> Option<(String, String)>,
    mut each: impl FnMut(T, Option<Analysed>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    std::thread::scope(|scope| {
        let (to_worker, work) = mpsc::channel::<(String, String)>();
        let (to_writer, done) = mpsc::channel::<Analysed>();
        scope.spawn(move || {
            for (title, abstract_) in work {
                if to_writer.send(Analysed::new(analyzer, title, abstract_)).is_err() {
                    break;
                }
            }
        });
        let mut items = items.fuse();
        // Items read, each with whether its text went to the worker.
        let mut queue: VecDeque<(T, bool)> = VecDeque::with_capacity(AHEAD);
        loop {
            while queue.len() < AHEAD {
                let Some(item) = items.next() else { break };
                let sent = text(&item).is_some_and(|t| to_worker.send(t).is_ok());
                queue.push_back((item, sent));
            }
            let Some((item, sent)) = queue.pop_front() else { break };
            // A worker gone leaves the analysis to the writer (a panic there
            // would be the writer's own on the same text).
            let analysed = if sent { done.recv().ok() } else { None };
            each(item, analysed)?;
        }
        // Dropping `to_worker` ends the worker's loop; the scope joins it.
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_come_in_order_each_with_its_own_text_analysed() {
        let items: Vec<Option<&str>> =
            (0..1000).map(|i| (i % 3 != 0).then_some(["alpha beta", "gamma"][i % 2])).collect();
        let mut seen = Vec::new();
        each_analysed(
            items.iter().copied().enumerate(),
            Analyzer::Plain,
            |(_, t)| t.map(|t| (t.to_string(), String::new())),
            |(i, t), analysed| {
                assert_eq!(analysed.is_some(), t.is_some(), "item {i}");
                if let Some(a) = analysed {
                    assert_eq!(a.text(), (t.unwrap(), ""), "item {i}");
                }
                seen.push(i);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, (0..1000).collect::<Vec<_>>());
    }

    #[test]
    fn an_error_stops_at_its_item() {
        let mut seen = 0;
        let err = each_analysed(
            0..10_000,
            Analyzer::Plain,
            |i| Some((format!("t{i}"), String::new())),
            |i, _| {
                seen += 1;
                anyhow::ensure!(i != 500, "bad item {i}");
                Ok(())
            },
        )
        .unwrap_err();
        assert_eq!((err.to_string().as_str(), seen), ("bad item 500", 501));
    }
}
