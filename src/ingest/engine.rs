//! The ingest engine: files items into records, records into papers.
//!
//! For each record:
//! 1. A record of the same source and id that this command already filed
//!    is a repeat: the two are folded into one ([`derive::fold`]: first
//!    non-empty value per field, lists unioned, conflicts counted). One
//!    stored by an earlier command is replaced by it (an update), unless
//!    identical (a no-op).
//! 2. Its papers: every paper that already holds one of its ids (aliases).
//!    None: the title fallback may find one (same normalised title, years
//!    within one, same first-author surname; never across two different
//!    non-arXiv DOIs, never between two `paper`/`beir` records with
//!    different ids, never on a generic title). Several: the record bridges
//!    them and they become one paper.
//! 3. The paper is re-derived from all its records ([`derive::derive`]) and
//!    stored through the store's [`IngestWriter`]: paper row, postings and BM25
//!    statistics, aliases, disagreements, the records themselves; the edges
//!    touching any of its ids are re-resolved from the links at the end.
//!
//! The result does not depend on the order records arrive in, except where
//! a title fallback's candidates would themselves conflict, and for repeats
//! (the first of a command wins).

use std::collections::BTreeSet;

use serde::Serialize;

use super::derive;
use crate::failpoint::{failpoint, failpoint_at};
use crate::paper::title::{surname, title_key};
use crate::paper::{Filed, Link, Record};
use crate::store::Handle;
use crate::store::ingest_writer::IngestWriter;
use crate::store::postings_writer::PaperDraft;

/// What an ingest did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct IngestReport {
    /// Records read (valid ones).
    pub records: u64,
    /// Records that made a new paper.
    pub added: u64,
    /// Records that replaced an older record of the same source.
    pub updated: u64,
    /// Records that joined an existing paper (shared id, title, or bridge).
    pub merged: u64,
    /// Records identical to what was stored.
    pub unchanged: u64,
    /// Records repeating the source and id of an earlier record of the same
    /// command, folded into it.
    pub repeated: u64,
    /// Citation links read (from edge files and from records' inline
    /// references and citations), and how many were new (a link a record's
    /// older version stated already is not).
    pub links: u64,
    pub links_added: u64,
    /// Invalid records skipped with `--skip-invalid`.
    pub skipped: u64,
    /// Entries without an id (S2 `paperId: null`, a null cited corpus id), skipped by design.
    pub skipped_null_ids: u64,
}

/// How many links a record states (its references and citations, but
/// itself and empty ids), as `replace_links` files them.
fn stated_links(rec: &Record, key: &str) -> u64 {
    rec.references
        .iter()
        .chain(&rec.citations)
        .filter(|other| {
            let other = other.key();
            other != key && !other.is_empty()
        })
        .count() as u64
}

/// Files records and links into an open index, inside the caller's
/// transaction. [`Ingester::finish`] must be called before it commits.
pub struct Ingester<'c> {
    writer: IngestWriter<'c>,
    pub report: IngestReport,
    /// The records (`source`, key) this command found unchanged: a repeat of
    /// one later in the same command folds into it, as into a record this
    /// command stored.
    unchanged: std::collections::HashSet<(String, String)>,
}

impl<'c> Ingester<'c> {
    pub fn new(handle: Handle<'c>) -> anyhow::Result<Ingester<'c>> {
        Ok(Ingester {
            writer: IngestWriter::new(handle)?,
            report: IngestReport::default(),
            unchanged: std::collections::HashSet::new(),
        })
    }

    /// The index's analyzer.
    pub(crate) fn analyzer(&self) -> crate::analyzer::Analyzer {
        self.writer.analyzer()
    }

    /// Gives the next record's text analysed ahead (see [`super::ahead`]).
    pub(crate) fn analysed_ahead(&mut self, analysed: crate::store::postings_writer::Analysed) {
        self.writer.analysed_ahead(analysed);
    }

    /// Files one record read in `format` from `origin` (`file:line`).
    pub(crate) fn add_record(&mut self, rec: Record, format: &str, origin: &str) -> anyhow::Result<()> {
        self.report.records += 1;
        let source = rec.source.clone();
        let key = rec.source_id.key();
        anyhow::ensure!(!key.is_empty(), "{origin}: the record has an empty id");
        let mut existing = self.writer.record(&source, &key)?;
        if let Some(old) = existing.as_mut() {
            old.this_command |= self.unchanged.contains(&(source.clone(), key.clone()));
        }
        let mut repeat_conflicts = Vec::new();
        let rec = match &existing {
            Some(old) if old.this_command => {
                let (folded, conflicts) = derive::fold(&old.filed.record, rec);
                // Nothing new and nothing in conflict: a plain repeat. (A repeat
                // whose only news is a conflict still records it.)
                if folded == old.filed.record && conflicts.is_empty() {
                    self.report.repeated += 1;
                    self.report.links += stated_links(&folded, &key);
                    return Ok(());
                }
                repeat_conflicts = conflicts;
                folded
            }
            Some(old) if old.filed.format == format && old.filed.record == rec => {
                self.report.unchanged += 1;
                // Its repeats in this command, if any, record their conflicts anew.
                self.writer.forget_repeat_conflicts(&old.paper_id, &source)?;
                self.unchanged.insert((source.clone(), key.clone()));
                // Read again, none new (as an edge file read again).
                self.report.links += stated_links(&rec, &key);
                return Ok(());
            }
            _ => rec,
        };

        // The papers this record belongs to.
        let mut papers: BTreeSet<String> = BTreeSet::new();
        if let Some(old) = &existing {
            papers.insert(old.paper_id.clone());
        }
        for id in rec.all_ids() {
            if let Some(p) = self.writer.resolve_alias(&id.key())? {
                papers.insert(p);
            }
        }
        let mut merge_note: Option<(&'static str, String, String)> = None;
        if papers.is_empty() {
            if let Some((paper_id, other, detail)) = self.title_match(&rec, format)? {
                merge_note = Some(("title-fallback", other, detail));
                papers.insert(paper_id);
            }
        } else if papers.len() > 1 {
            let list: Vec<&str> = papers.iter().map(String::as_str).collect();
            merge_note = Some(("bridge", list.join(", "), "the record holds ids of each".to_string()));
        }
        match (&existing, papers.is_empty()) {
            (Some(old), _) if old.this_command => self.report.repeated += 1,
            (Some(_), _) => self.report.updated += 1,
            (None, true) => self.report.added += 1,
            (None, false) => self.report.merged += 1,
        }

        // Inline references and citations count as an edge file's links do.
        let (read, added) =
            self.writer.replace_links(&source, &key, existing.as_ref().map(|old| &old.filed.record), &rec)?;
        self.report.links += read;
        self.report.links_added += added;
        let canonical = self.rederive(&papers, Filed { record: rec, format: format.to_string() }, origin)?;
        if let Some(old) = &existing {
            if old.this_command {
                self.writer.put_repeat_conflicts(&canonical, &repeat_conflicts)?;
            } else {
                self.writer.forget_repeat_conflicts(&canonical, &source)?;
            }
        }
        if let Some((rule, other, detail)) = merge_note {
            self.writer.add_merge(&canonical, rule, &format!("{source}:{key}"), &other, &detail)?;
        }
        Ok(())
    }

    /// Removes the stored record `(source, key)` (its source withdrew it):
    /// its paper is re-derived from the records left, or deleted when none
    /// is. Returns whether there was such a record. Marks stay on the paper
    /// (or dangle, when it is gone).
    pub(crate) fn remove_record(&mut self, source: &str, key: &str) -> anyhow::Result<bool> {
        let Some(old) = self.writer.record(source, key)? else { return Ok(false) };
        // The links it stated go with it.
        let empty =
            Record { source: source.to_string(), source_id: old.filed.record.source_id.clone(), ..Record::default() };
        self.writer.replace_links(source, key, Some(&old.filed.record), &empty)?;
        let mut records = self.writer.records_of(&old.paper_id)?;
        records.retain(|f| !(f.record.source == source && f.record.source_id.key() == key));
        self.writer.delete_record(source, key)?;
        self.writer.forget_repeat_conflicts(&old.paper_id, source)?;
        if records.is_empty() {
            self.writer.delete_paper(&old.paper_id)?;
            return Ok(true);
        }
        derive::order(&mut records);
        let d =
            derive::derive(&records).ok_or_else(|| anyhow::anyhow!("{source}:{key}: the records left have no id"))?;
        let papers: BTreeSet<String> = std::iter::once(old.paper_id.clone()).collect();
        self.writer.retire_papers(&papers, &d.canonical)?;
        let draft = PaperDraft {
            id: &d.canonical,
            title: &d.title,
            abstract_: &d.abstract_,
            year: d.year,
            authors: &d.authors,
            source: &d.source,
            arxiv_version: d.arxiv_version,
            venue: d.venue.as_deref(),
        };
        self.writer.put_paper(&draft, &d.ids, &d.disagreements)?;
        self.writer.put_records(&draft, &records, ("", ""), "", (d.title_from, d.abstract_from))?;
        Ok(true)
    }

    /// The transaction the ingester writes in (for the full-text tables).
    pub(crate) fn handle(&self) -> Handle<'c> {
        self.writer.handle()
    }

    /// The canonical id of the paper `alias` names.
    pub(crate) fn resolve_alias(&self, alias: &str) -> anyhow::Result<Option<String>> {
        self.writer.resolve_alias(alias)
    }

    /// Papers holding a record whose normalised title is `key`.
    pub(crate) fn title_candidates(
        &self,
        key: &str,
    ) -> anyhow::Result<Vec<crate::store::ingest_writer::TitleCandidate>> {
        self.writer.title_candidates(key)
    }

    /// Paper `paper_id`'s canonical id as a typed id (its alias row's kind).
    pub(crate) fn paper_alias(&self, paper_id: &str) -> anyhow::Result<Option<crate::paper::PaperId>> {
        self.writer.alias_id(paper_id)
    }

    /// Files one bare citation link (edge files, S2 reference pages).
    pub(crate) fn add_link(&mut self, link: &Link) -> anyhow::Result<()> {
        self.report.links += 1;
        let (citing, cited) = (link.citing.key(), link.cited.key());
        if citing == cited || citing.is_empty() || cited.is_empty() {
            return Ok(());
        }
        if self.writer.add_link(&citing, &cited)? {
            self.report.links_added += 1;
        }
        Ok(())
    }

    /// Writes what was held back (postings, statistics, edges).
    pub fn finish(self) -> anyhow::Result<IngestReport> {
        self.writer.finish(|| failpoint("before-stats"))?;
        Ok(self.report)
    }

    /// A paper the record matches by the title fallback: (paper, record, why).
    fn title_match(&self, rec: &Record, format: &str) -> anyhow::Result<Option<(String, String, String)>> {
        let Some(key) = title_key(&rec.title) else { return Ok(None) };
        let (Some(year), Some(author)) = (rec.year, rec.authors.first().and_then(|a| surname(a))) else {
            return Ok(None);
        };
        let own_key = rec.source_id.key();
        let user_ids = |f: &str| f == "paper" || f == "beir";
        'candidates: for c in self.writer.title_candidates(&key)? {
            if c.source == rec.source && c.source_id == own_key {
                continue;
            }
            let paper_records = self.writer.records_of(&c.paper_id)?;
            let Some(cand) =
                paper_records.iter().find(|s| s.record.source == c.source && s.record.source_id.key() == c.source_id)
            else {
                continue;
            };
            let cr = &cand.record;
            let (Some(cy), Some(ca)) = (cr.year, cr.authors.first().and_then(|a| surname(a))) else { continue };
            if (cy - year).abs() > 1 || ca != author {
                continue;
            }
            // Never across two different DOIs, nor two users' own ids, anywhere in the paper.
            for other in &paper_records {
                if let (Some(a), Some(b)) = (rec.doi(), other.record.doi()) {
                    if a != b {
                        continue 'candidates;
                    }
                }
                if user_ids(format) && user_ids(&other.format) && other.record.source_id.key() != own_key {
                    continue 'candidates;
                }
            }
            let detail = format!("title \"{key}\", years {year}/{cy}, first author {author}");
            return Ok(Some((c.paper_id, format!("{}:{}", c.source, c.source_id), detail)));
        }
        Ok(None)
    }

    /// Re-derives the paper made of the records of `papers` plus the record
    /// `new` (read from `origin`) and stores it; returns its canonical id.
    fn rederive(&mut self, papers: &BTreeSet<String>, new: Filed, origin: &str) -> anyhow::Result<String> {
        let (source, key) = (new.record.source.clone(), new.record.source_id.key());
        let mut records: Vec<Filed> = Vec::new();
        for p in papers {
            records.extend(self.writer.records_of(p)?);
        }
        // An older version of the new record is replaced by it.
        records.retain(|f| !(f.record.source == source && f.record.source_id.key() == key));
        records.push(new);
        derive::order(&mut records);
        let d = derive::derive(&records).ok_or_else(|| anyhow::anyhow!("{origin}: a record without ids"))?;
        self.writer.retire_papers(papers, &d.canonical)?;
        let draft = PaperDraft {
            id: &d.canonical,
            title: &d.title,
            abstract_: &d.abstract_,
            year: d.year,
            authors: &d.authors,
            source: &d.source,
            arxiv_version: d.arxiv_version,
            venue: d.venue.as_deref(),
        };
        self.writer.put_paper(&draft, &d.ids, &d.disagreements)?;
        // The paper's postings and statistics are written, its records not yet.
        failpoint_at("mid-postings", self.report.records);
        self.writer.put_records(&draft, &records, (&source, &key), origin, (d.title_from, d.abstract_from))?;
        Ok(d.canonical)
    }
}
