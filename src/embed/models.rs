//! Loaded models kept for use again: a process that searches more than
//! once (the web page's server, the MCP server, `watch` over several saved
//! searches) loads a model once, not at every dense or hybrid search. Each
//! load copied the weights into tensors, hashed them and parsed the
//! tokenizer, about 30 ms on both cores at 1M papers' every request
//! (docs/PERFORMANCE.md, "The model loaded once per process").
//!
//! A kept model is used again only while its directory's files are the ones
//! it was loaded from: each of [`MODEL_FILES`] with the same size, inode,
//! device, and modification and change times. A file replaced (`pip`
//! writes a new one and renames it) or written in place changes them, and
//! the next search loads the model again, with a new fingerprint if the
//! content differs. The stamp is taken before the load, so a file changed
//! during a load is seen as changed at the next search.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use super::model::{Embedder, MODEL_FILES};

/// The models a process has loaded (the last one), shared by its threads.
/// Cloning shares the same models.
#[derive(Clone, Default)]
pub struct Models {
    kept: Arc<Mutex<Option<Kept>>>,
}

/// A loaded model and the stamp of its files when it was loaded.
type Kept = (Stamp, Arc<Embedder>);

impl std::fmt::Debug for Models {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Models").finish_non_exhaustive()
    }
}

/// What a model directory's files are: its resolved path, then per file
/// its size, times, and where it lives.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    dir: PathBuf,
    files: Vec<FileStamp>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct FileStamp {
    len: u64,
    modified: Option<SystemTime>,
    /// Device, inode, change time (s, ns): what a rename or a write changes
    /// even when the size and the modification time were kept.
    #[cfg(unix)]
    unix: (u64, u64, i64, i64),
}

impl Stamp {
    /// The stamp of `dir`'s model files; `None` when one cannot be read
    /// (the load then says which).
    fn of(dir: &Path) -> Option<Stamp> {
        let dir = dir.canonicalize().ok()?;
        let files = MODEL_FILES
            .iter()
            .map(|f| {
                let m = fs::metadata(dir.join(f)).ok()?;
                Some(FileStamp {
                    len: m.len(),
                    modified: m.modified().ok(),
                    #[cfg(unix)]
                    unix: {
                        use std::os::unix::fs::MetadataExt;
                        (m.dev(), m.ino(), m.ctime(), m.ctime_nsec())
                    },
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Stamp { dir, files })
    }
}

impl Models {
    /// The model in `dir`: the one loaded before when its files are
    /// unchanged, else loaded now (and kept in its place).
    pub fn load(&self, dir: &Path) -> anyhow::Result<Arc<Embedder>> {
        let Some(stamp) = Stamp::of(dir) else {
            return Ok(Arc::new(Embedder::load(dir)?));
        };
        // Held through the load: two searches at once load the model once.
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((s, e)) = kept.as_ref() {
            if *s == stamp {
                return Ok(Arc::clone(e));
            }
        }
        let e = Arc::new(Embedder::load(dir)?);
        *kept = Some((stamp, Arc::clone(&e)));
        Ok(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::tiny::write_tiny_model;

    /// The same directory gives the same loaded model, through another
    /// path to it too; a model written over it is loaded again.
    #[test]
    fn a_model_is_loaded_once_until_its_files_change() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m");
        write_tiny_model(&path, 16, 1).unwrap();
        let models = Models::default();
        let first = models.load(&path).unwrap();
        assert!(Arc::ptr_eq(&first, &models.load(&path).unwrap()), "loaded once");
        assert!(Arc::ptr_eq(&first, &models.load(&path.join("..").join("m")).unwrap()), "the same directory");
        assert!(Arc::ptr_eq(&first, &models.clone().load(&path).unwrap()), "a clone shares the models");

        // Written again in place (new weights, the same files' names).
        write_tiny_model(&path, 16, 2).unwrap();
        let second = models.load(&path).unwrap();
        assert!(!Arc::ptr_eq(&first, &second), "the files changed: loaded again");
        assert_ne!(first.info().fingerprint, second.info().fingerprint);
        assert!(Arc::ptr_eq(&second, &models.load(&path).unwrap()));

        // One file replaced by a copy of itself, its size and modification
        // time kept: the same content, another file.
        let file = path.join("tokenizer.json");
        let copy = dir.path().join("copy.json");
        fs::copy(&file, &copy).unwrap();
        let modified = fs::metadata(&file).unwrap().modified().unwrap();
        fs::File::options().write(true).open(&copy).unwrap().set_modified(modified).unwrap();
        fs::rename(&copy, &file).unwrap();
        let third = models.load(&path).unwrap();
        assert!(!Arc::ptr_eq(&second, &third), "a replaced file is read again");
        assert_eq!(second.info().fingerprint, third.info().fingerprint);
    }

    /// A directory that cannot be loaded is an error each time, and leaves
    /// the kept model in place.
    #[test]
    fn a_missing_model_is_an_error_and_keeps_the_last() {
        let dir = tempfile::tempdir().unwrap();
        write_tiny_model(dir.path(), 16, 1).unwrap();
        let models = Models::default();
        let first = models.load(dir.path()).unwrap();
        let gone = dir.path().join("absent");
        let err = models.load(&gone).unwrap_err().to_string();
        assert!(err.contains("does not exist"), "{err}");
        assert!(Arc::ptr_eq(&first, &models.load(dir.path()).unwrap()));
    }
}
