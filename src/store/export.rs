//! The reads an export makes: every paper in id order, streamed, and a
//! paper's aliases.

use super::Store;
use super::read::PaperRow;
use crate::paper::PaperId;

impl Store {
    /// Calls `f` with every paper, in id order, one row at a time (the
    /// index is never held in memory); stops at the first error `f` returns.
    pub fn for_each_paper(&self, mut f: impl FnMut(PaperRow) -> anyhow::Result<()>) -> anyhow::Result<()> {
        let mut stmt = self.conn.prepare("SELECT id FROM papers ORDER BY id")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let id: String = row.get(0)?;
            let paper = self.paper(&id)?.ok_or_else(|| anyhow::anyhow!("paper {id} vanished during the export"))?;
            f(paper)?;
        }
        Ok(())
    }

    /// The ids the paper `id` is known by (its aliases, the canonical id
    /// among them), ordered by kind and key; kinds this litindex does not
    /// know are left out.
    pub fn aliases_of(&self, id: &str) -> anyhow::Result<Vec<PaperId>> {
        let mut stmt =
            self.conn.prepare_cached("SELECT kind, alias FROM aliases WHERE paper_id = ?1 ORDER BY kind, alias")?;
        let rows = stmt.query_map([id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        let mut out = Vec::new();
        for row in rows {
            let (kind, alias) = row?;
            out.extend(PaperId::from_alias(&kind, &alias));
        }
        Ok(out)
    }
}
