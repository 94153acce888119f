//! PDFs into the index: each file read by [`crate::fulltext::read_pdf`]
//! becomes a record of source `pdf` filed by the one engine, and its text a
//! `documents` row with its sections and passages.
//!
//! - **Which paper.** The record carries the document's DOI and arXiv id,
//!   so the engine's alias merging attaches it to a paper that has one of
//!   them. Otherwise, when the document's title signature
//!   ([`title_key`]: the normalised title) equals that of records of
//!   exactly one paper, the record carries that paper's id and attaches to
//!   it. Otherwise it is a new paper. The record's key (`source_id`) is the
//!   arXiv id, else the DOI, else `pdf-` and the first 16 hex digits of the
//!   blake3 hash of the file's bytes as first read at that path; a changed
//!   file at the same path keeps the key it was first filed under.
//! - **Precedence.** `pdf` is the weakest source ([`crate::paper::text_rank`]):
//!   a metadata record's title, abstract, year and authors win.
//! - **Unchanged files** (same path, same blake3) are skipped without
//!   being read as PDF; a changed one replaces its record and passages.
//! - **Parallel, bounded.** Files are read and parsed on rayon's pool (all
//!   cores), [`IN_FLIGHT_PER_THREAD`] files per thread at a time, so at most
//!   that many files' bytes and documents are held; they are filed in
//!   path order in the caller's transaction.
//! - **Bad files.** One that opens but has no text (encrypted, scanned) is
//!   a paper with the PDF's metadata (its file name as title when it has
//!   none) and the note, stored and reported naming the file. A corrupt file
//!   or one past a [`Limits`] bound is an error naming it, which aborts the
//!   command, or with `skip_invalid` is counted as failed and listed.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use super::engine::Ingester;
use crate::fulltext::{Document, Limits, PdfError, read_pdf_named};
use crate::paper::title::title_key;
use crate::paper::{PaperId, Record};
use crate::store::LinkCounts;
use crate::store::documents::{document_at, paper_of_record, put_document};

/// Files each rayon thread reads at once.
pub const IN_FLIGHT_PER_THREAD: usize = 2;

/// What the PDFs of one ingest came to.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PdfSummary {
    /// Files read as PDF (not unchanged, not failed).
    pub read: u64,
    /// Of those, filed under a paper the index already had.
    pub attached: u64,
    /// Of those, a new paper.
    pub new: u64,
    /// Skipped: same path, same content hash as stored.
    pub unchanged: u64,
    /// Corrupt or past a limit, skipped with `skip_invalid`.
    pub failed: u64,
    /// Reference entries read from the files read, of them matched to an
    /// indexed paper (DOI, arXiv id or title signature), and citation contexts.
    pub references: u64,
    pub matched: u64,
    pub contexts: u64,
    /// `file: note` for each file read with less text than it should have (encrypted, scanned).
    pub notes: Vec<String>,
    /// `file: error` for each failed file.
    pub failures: Vec<String>,
}

impl PdfSummary {
    /// Adds `other`'s counts and lists to these.
    pub(crate) fn merge(&mut self, other: PdfSummary) {
        self.read += other.read;
        self.attached += other.attached;
        self.new += other.new;
        self.unchanged += other.unchanged;
        self.failed += other.failed;
        self.references += other.references;
        self.matched += other.matched;
        self.contexts += other.contexts;
        self.notes.extend(other.notes);
        self.failures.extend(other.failures);
    }
}

/// One file's outcome off the pool.
enum Read {
    Unchanged,
    Failed(PdfError),
    Doc { hash: String, doc: Box<Document> },
}

/// The PDF files of `paths`: files as given, folders searched recursively
/// for files named `*.pdf` (any case), sorted.
pub(crate) fn expand(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out)?;
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| anyhow::anyhow!("cannot read the folder {}: {e}", dir.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(|e| anyhow::anyhow!("cannot read the folder {}: {e}", dir.display()))?;
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out)?;
        } else if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pdf")) {
            out.push(p);
        }
    }
    Ok(())
}

/// Reads, files and stores the PDFs at `files` (made absolute), each with
/// the id of the paper it belongs to when the caller knows it (a Zotero
/// item's attachment): such a file is filed under that paper (its record
/// carries that id only, not the DOI or arXiv id printed in it).
pub(crate) fn ingest_pdfs(
    ingester: &mut Ingester<'_>,
    files: &[(PathBuf, Option<PaperId>)],
    skip_invalid: bool,
    limits: &Limits,
) -> anyhow::Result<PdfSummary> {
    let mut summary = PdfSummary::default();
    let batch = rayon::current_num_threads().max(1) * IN_FLIGHT_PER_THREAD;
    for chunk in files.chunks(batch) {
        let stored: Vec<Option<String>> = chunk
            .iter()
            .map(|(p, _)| Ok(document_at(ingester.handle(), &p.display().to_string())?.map(|d| d.hash)))
            .collect::<anyhow::Result<_>>()?;
        let read: Vec<Read> =
            chunk.par_iter().zip(&stored).map(|((path, _), old)| read_one(path, old.as_deref(), limits)).collect();
        for ((path, parent), outcome) in chunk.iter().zip(read) {
            let name = path.display().to_string();
            match outcome {
                Read::Unchanged => summary.unchanged += 1,
                Read::Failed(e) if skip_invalid => {
                    summary.failed += 1;
                    summary.failures.push(format!("{name}: {e}"));
                }
                Read::Failed(e) => {
                    anyhow::bail!("{name}: {e} (pdf format; nothing was ingested; --skip-invalid skips bad files)")
                }
                Read::Doc { hash, doc } => {
                    let (attached, links) = file_document(ingester, &name, &hash, &doc, parent.as_ref())?;
                    summary.read += 1;
                    summary.references += links.entries;
                    summary.matched += links.by_doi + links.by_arxiv + links.by_title;
                    summary.contexts += links.contexts;
                    ingester.report.links += links.links;
                    ingester.report.links_added += links.links_added;
                    if attached {
                        summary.attached += 1;
                    } else {
                        summary.new += 1;
                    }
                    summary.notes.extend(doc.notes.iter().map(|n| format!("{name}: {n}")));
                }
            }
        }
    }
    Ok(summary)
}

/// Reads one file off the pool: its hash, and its document unless the hash is `old`.
fn read_one(path: &Path, old: Option<&str>, limits: &Limits) -> Read {
    match std::fs::metadata(path) {
        Ok(m) if m.len() > limits.max_file_bytes => {
            return Read::Failed(PdfError::Limit(format!(
                "the file has {} bytes, over the limit of {}",
                m.len(),
                limits.max_file_bytes
            )));
        }
        Ok(_) => {}
        Err(e) => return Read::Failed(PdfError::Corrupt(format!("cannot read the file: {e}"))),
    }
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return Read::Failed(PdfError::Corrupt(format!("cannot read the file: {e}"))),
    };
    let hash = blake3::hash(&bytes).to_hex().to_string();
    if old == Some(hash.as_str()) {
        return Read::Unchanged;
    }
    match read_pdf_named(&bytes, path.file_name().and_then(|n| n.to_str()), limits) {
        Ok(doc) => Read::Doc { hash, doc: Box::new(doc) },
        Err(e) => Read::Failed(e),
    }
}

/// Files `doc` read from `path` (hash `hash`): its record through the
/// engine, then its text. Returns whether it joined a paper already indexed,
/// and what its references came to.
fn file_document(
    ingester: &mut Ingester<'_>,
    path: &str,
    hash: &str,
    doc: &Document,
    parent: Option<&PaperId>,
) -> anyhow::Result<(bool, LinkCounts)> {
    let h = ingester.handle();
    let previous = document_at(h, path)?;
    let mut ids: Vec<PaperId> = Vec::new();
    if let Some(p) = parent {
        ids.push(p.clone());
    } else {
        if let Some(a) = &doc.arxiv {
            ids.push(PaperId::Arxiv(a.clone()));
        }
        if let Some(d) = &doc.doi {
            ids.push(PaperId::parse(d));
        }
    }
    let title = match doc.title.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        Some(t) => t.to_string(),
        None => Path::new(path).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
    };
    // Attached: an id it carries, or (none matching) its title signature, names one indexed paper.
    let mut attached = false;
    for id in &ids {
        if ingester.resolve_alias(&id.key())?.is_some() {
            attached = true;
        }
    }
    if !attached {
        if let Some(key) = title_key(&title) {
            let mut papers: Vec<String> = ingester.title_candidates(&key)?.into_iter().map(|c| c.paper_id).collect();
            papers.dedup();
            let own = previous.as_ref().map(|p| p.source_id.clone());
            // Its own earlier record (a changed file) is not another paper.
            if let Some(own) = own.as_deref().map(|k| paper_of_record(h, k)).transpose()?.flatten() {
                papers.retain(|p| *p != own);
            }
            if let [paper] = papers.as_slice() {
                if let Some(id) = ingester.paper_alias(paper)? {
                    ids.push(id);
                    attached = true;
                }
            }
        }
    }
    let source_id = match &previous {
        Some(p) => PaperId::parse(&p.source_id),
        None if parent.is_some() => PaperId::Own(format!("pdf-{}", &hash[..16])),
        None => ids
            .iter()
            .find(|i| matches!(i, PaperId::Arxiv(_)))
            .or_else(|| ids.iter().find(|i| matches!(i, PaperId::Doi(_))))
            .cloned()
            .unwrap_or_else(|| PaperId::Own(format!("pdf-{}", &hash[..16]))),
    };
    let record = Record {
        source: "pdf".into(),
        source_id: source_id.clone(),
        ids,
        title,
        abstract_: doc.abstract_.clone().unwrap_or_default(),
        year: doc.year,
        authors: doc.authors.clone(),
        ..Record::default()
    };
    let key = source_id.key();
    ingester.add_record(record, "pdf", path)?;
    let document = put_document(h, path, hash, &key, doc)?;
    let paper_id = paper_of_record(h, &key)?
        .ok_or_else(|| anyhow::anyhow!("{path}: the PDF's record was not filed (index damaged?)"))?;
    let paper_doc = crate::store::PaperDoc { document, paper_id, source_id: key };
    // The document's references and citation contexts, and the links they state.
    let links = crate::store::write_document_links(h, &paper_doc, doc)?;
    Ok((attached, links))
}

/// Documents filed without a PDF reader, for the unit tests of full text.
#[cfg(test)]
pub(crate) mod test_support {
    use std::path::Path;

    use super::*;
    use crate::fulltext::{Caption, Paragraph, Section};
    use crate::ingest::{IngestOptions, Input, ingest};
    use crate::store::write_to;

    pub(crate) fn para(text: &str, page: u32) -> Paragraph {
        Paragraph { text: text.into(), page_starts: vec![(0, page)], raised: Vec::new() }
    }

    /// A document with one body paragraph per page and one caption.
    pub(crate) fn document(title: &str, doi: Option<&str>, body: &[&str]) -> Document {
        Document {
            pages: body.len() as u32,
            title: Some(title.into()),
            authors: vec!["Grace Hopper".into()],
            abstract_: Some("An abstract printed in the PDF.".into()),
            doi: doi.map(str::to_string),
            sections: vec![Section {
                heading: "1 Introduction".into(),
                level: 1,
                paragraphs: body.iter().enumerate().map(|(i, t)| para(t, i as u32 + 1)).collect(),
            }],
            captions: vec![Caption { text: "Figure 1: The zygomorphic flowchart.".into(), page: 1 }],
            ..Document::default()
        }
    }

    /// An index of the built-in corpus in `dir`.
    pub(crate) fn mock_index(dir: &Path) -> std::path::PathBuf {
        let db = dir.join("i.db");
        ingest(&db, &[Input::Mock], &IngestOptions::default()).unwrap();
        db
    }

    /// Files `docs` (path, document) in one ingest transaction, as `ingest_pdfs` does after reading.
    pub(crate) fn file(db: &Path, docs: &[(&str, &Document)]) -> Vec<bool> {
        write_to(db, &|_| {}, |tx| {
            let mut ing = Ingester::new(tx)?;
            let mut out = Vec::new();
            for (path, doc) in docs {
                let hash = blake3::hash(format!("{doc:?}").as_bytes()).to_hex().to_string();
                out.push(file_document(&mut ing, path, &hash, doc, None)?.0);
            }
            ing.finish()?;
            Ok(out)
        })
        .unwrap()
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::test_support::{document, file, mock_index};
    use crate::store::Store;

    fn checked(db: &Path) -> Store {
        let store = Store::open(db).unwrap();
        let report = store.check();
        let bad: Vec<_> = report.violated().map(|i| format!("{}: {:?}", i.name, i.examples)).collect();
        assert!(bad.is_empty(), "{bad:?}");
        store
    }

    #[test]
    fn a_pdf_attaches_by_title_signature_and_keeps_the_metadata_text() {
        let dir = tempfile::tempdir().unwrap();
        let db = mock_index(dir.path());
        let doc = document(
            "Fixed strided patterns for sparse attention in long-sequence models",
            None,
            &["The quokka benchmark shows strided attention on page one.", "Page two talks about xylophones."],
        );
        assert_eq!(file(&db, &[("/pdfs/p001.pdf", &doc)]), vec![true]);
        let store = checked(&db);
        let paper = store.paper("p001").unwrap().unwrap();
        assert_eq!(paper.title, "Fixed Strided Patterns for Sparse Attention in Long Sequence Models", "metadata wins");
        assert!(paper.abstract_.starts_with("Transformers compute attention"));
        assert_eq!(store.meta().unwrap().num_docs, 100, "no new paper");
        let docs = store.documents_of_paper("p001").unwrap();
        assert_eq!(docs.len(), 1);
        assert!(docs[0].text.contains("## 1 Introduction"));
        let ps = store.passages_of_paper("p001").unwrap();
        assert_eq!(ps.iter().map(|p| p.kind.as_str()).collect::<Vec<_>>(), ["abstract", "body", "body", "caption"]);
        assert_eq!(ps[2].page_first, 2);
        // Offsets point into the stored text (characters).
        let chars: Vec<char> = docs[0].text.chars().collect();
        for p in &ps {
            assert_eq!(chars[p.start..p.end].iter().collect::<String>(), p.text);
        }
    }

    #[test]
    fn a_pdf_without_a_match_is_a_new_paper_and_a_doi_attaches() {
        let dir = tempfile::tempdir().unwrap();
        let db = mock_index(dir.path());
        let lone = document("A Paper Nobody Has Indexed Before Today", None, &["Nothing matches here."]);
        let with_doi = document("Another Title Entirely Of Its Own", Some("10.1234/abc"), &["Body."]);
        assert_eq!(file(&db, &[("/pdfs/lone.pdf", &lone), ("/pdfs/doi.pdf", &with_doi)]), vec![false, false]);
        let store = checked(&db);
        assert_eq!(store.meta().unwrap().num_docs, 102);
        // The same DOI again, another file: it joins that paper.
        let again = document("Different Words In The Title Here", Some("10.1234/ABC"), &["Other body."]);
        assert_eq!(file(&db, &[("/pdfs/doi-v2.pdf", &again)]), vec![true]);
        let store = checked(&db);
        assert_eq!(store.meta().unwrap().num_docs, 102);
        let id = store.resolve("10.1234/abc").unwrap().unwrap();
        assert_eq!(store.paper(&id).unwrap().unwrap().source, "pdf");
    }

    #[test]
    fn a_changed_file_replaces_its_passages_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let db = mock_index(dir.path());
        let v1 =
            document("Local Window Attention With Learned Global Tokens", None, &["Aardvark words.", "More aardvark."]);
        file(&db, &[("/pdfs/p002.pdf", &v1)]);
        let before = Store::open(&db).unwrap().passage_stats().unwrap();
        let v2 = document("Local Window Attention With Learned Global Tokens", None, &["Zebra words only."]);
        file(&db, &[("/pdfs/p002.pdf", &v2)]);
        let store = checked(&db);
        let after = store.passage_stats().unwrap();
        assert_eq!(before.num_passages, 4);
        assert_eq!(after.num_passages, 3);
        let terms = |q: &str| crate::bm25::query_terms(crate::analyzer::Analyzer::English, q);
        assert!(store.passage_scores(&terms("aardvark")).unwrap().is_empty(), "old passages gone");
        assert_eq!(store.passage_scores(&terms("zebra")).unwrap().len(), 1);
        assert_eq!(store.documents_of_paper("p002").unwrap().len(), 1, "one document per path");
    }
}
