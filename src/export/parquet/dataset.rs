//! The dataset on disk: its layout, its lock, its manifest of batches, and the journal that
//! makes each export all or nothing.
//!
//! ```text
//! DIR/
//!   runs/date=2026-06-08/part-<batch>.parquet      one file per table and batch that has rows
//!   steps/  llm_calls/  tool_calls/  content/  diagnostics/   (the same layout)
//!   _axt/dataset.json                              {"format": "axt-parquet", "schema_version": "1.0"}
//!   _axt/lock                                      held (flock) by the export writing
//!   _axt/batches/<batch>.json                      one manifest entry per batch: its runs, keyed
//!   _axt/staging/<transaction>/                    an export being committed (see below)
//! ```
//!
//! A *batch* is a set of runs of one date exported together; its key is the SHA-256 of its
//! runs' `run_id` and `source_sha256`, sorted, so the same runs make the same file names on
//! any machine. Every file of a batch is named by that key, and the batch's manifest entry
//! lists its runs: the manifest (every entry) is what the dataset holds, and each run is in
//! exactly one entry.
//!
//! **Writers take turns.** An export holds an exclusive `flock(2)` on `_axt/lock` from the
//! moment it reads the manifest until its commit is applied, so two exports into one
//! directory (two processes, or two machines on a shared file system with working locks,
//! NFSv4 say) serialize: the second sees the first's runs in the manifest and adds only
//! what is still missing. Nothing keyed by machine or time enters a name, so no run is
//! ever written twice.
//!
//! **Commits are journaled.** New and rewritten files are written under
//! `_axt/staging/<transaction>/` and synced; then `commit.json`, the list of files to
//! remove, files to move into place, and manifest entries to remove and to add, is written
//! and synced: from that moment the export has happened. Applying it removes the replaced
//! files first, then moves the new ones in, then updates the manifest, each step idempotent.
//! An export that dies before `commit.json` leaves a staging directory the next export
//! deletes; one that dies after it leaves a journal the next export applies before anything
//! else. A reader scanning the tables while a commit is applied can miss a replaced run for
//! that moment, never see it twice.
//!
//! This file owns the layout and those rules. It must not map events (`rows.rs`) or choose
//! what to export (`batch.rs`).

use std::collections::{BTreeMap, HashMap};
use std::fs::{self, File};
use std::io::{self, ErrorKind, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::schema::{SCHEMA_VERSION, TABLES};
use crate::record::{create_private, create_private_dir};

/// The value of `format` in `_axt/dataset.json`.
pub(crate) const FORMAT: &str = "axt-parquet";

/// One run in a manifest entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct EntryRun {
    /// The run's key: its id, or `sha256:<hash>` for a file with no event.
    pub(crate) key: String,
    /// The run id (absent for a file with no event).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) run_id: Option<String>,
    /// Its parent run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) parent_run_id: Option<String>,
    /// Its root run, as exported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) root_run_id: Option<String>,
    /// The hash of its transcript.
    pub(crate) source_sha256: String,
    /// The transcript's size.
    pub(crate) source_bytes: u64,
}

/// A manifest entry: one batch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Entry {
    /// The batch key.
    pub(crate) batch: String,
    /// The partition date of its runs.
    pub(crate) date: String,
    /// The schema version its files were written in.
    pub(crate) schema_version: String,
    /// Rows per table (a table with none has no file).
    pub(crate) rows: BTreeMap<String, u64>,
    /// Its runs, sorted by key.
    pub(crate) runs: Vec<EntryRun>,
}

impl Entry {
    /// The dataset-relative path of its file of `table`.
    pub(crate) fn file(&self, table: &str) -> PathBuf {
        table_file(table, &self.date, &self.batch)
    }

    /// Its files that exist (tables with rows).
    pub(crate) fn files(&self) -> Vec<(&'static str, PathBuf)> {
        TABLES
            .iter()
            .filter(|t| self.rows.get(t.name).copied().unwrap_or(0) > 0)
            .map(|t| (t.name, self.file(t.name)))
            .collect()
    }
}

/// The dataset-relative path of a batch's file of `table`.
pub(crate) fn table_file(table: &str, date: &str, batch: &str) -> PathBuf {
    PathBuf::from(table)
        .join(format!("date={date}"))
        .join(format!("part-{batch}.parquet"))
}

/// What the dataset holds: its manifest, by batch, and each run's batch.
#[derive(Debug, Default)]
pub(crate) struct Manifest {
    /// Entries by batch key.
    pub(crate) entries: BTreeMap<String, Entry>,
    /// Run key to batch key.
    pub(crate) runs: HashMap<String, String>,
}

impl Manifest {
    /// The entry holding run `key`, and the run.
    pub(crate) fn run(&self, key: &str) -> Option<(&Entry, &EntryRun)> {
        let entry = self.entries.get(self.runs.get(key)?)?;
        let run = entry.runs.iter().find(|run| run.key == key)?;
        Some((entry, run))
    }
}

/// A journal: what applying a commit does.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Commit {
    /// Dataset-relative files to remove (replaced batches).
    pub(crate) remove_files: Vec<PathBuf>,
    /// Files to move in: staging-relative source, dataset-relative target.
    pub(crate) move_files: Vec<(PathBuf, PathBuf)>,
    /// Manifest entries (batch keys) to remove.
    pub(crate) remove_entries: Vec<String>,
    /// Manifest entries (batch keys) to add, staged as `entries/<batch>.json`.
    pub(crate) add_entries: Vec<String>,
}

/// Why a dataset cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    /// A file of the dataset could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// The inputs hold no transcript.
    #[error("no transcript in {}", describe(paths))]
    Empty {
        /// The inputs.
        paths: Vec<PathBuf>,
    },
    /// The directory holds a dataset this version must not write into.
    #[error("{}: {reason}", path.display())]
    Incompatible {
        /// `_axt/dataset.json`.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

fn describe(paths: &[PathBuf]) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    names.join(", ")
}

fn at(path: &Path) -> impl FnOnce(io::Error) -> DatasetError + '_ {
    move |source| DatasetError::Io {
        path: path.to_owned(),
        source,
    }
}

/// An open dataset, its lock held until it is dropped.
pub(crate) struct Dataset {
    root: PathBuf,
    _lock: File,
    /// What it holds.
    pub(crate) manifest: Manifest,
}

#[derive(Serialize, Deserialize)]
struct Header {
    format: String,
    schema_version: String,
}

impl Dataset {
    /// Opens (creating it if need be) the dataset at `root`, waits for its lock, finishes
    /// or discards what an earlier export left in staging, and reads the manifest.
    pub(crate) fn open(root: &Path) -> Result<Dataset, DatasetError> {
        let meta = root.join("_axt");
        create_private_dir(&meta.join("batches")).map_err(at(&meta))?;
        create_private_dir(&meta.join("staging")).map_err(at(&meta))?;
        let lock_path = meta.join("lock");
        let lock = match create_private(&lock_path) {
            Ok(file) => file,
            Err(error) if error.kind() == ErrorKind::AlreadyExists => {
                crate::record::private_options()
                    .write(true)
                    .open(&lock_path)
                    .map_err(at(&lock_path))?
            }
            Err(error) => return Err(at(&lock_path)(error)),
        };
        lock.lock().map_err(at(&lock_path))?;
        check_header(&meta.join("dataset.json"))?;
        let mut dataset = Dataset {
            root: root.to_owned(),
            _lock: lock,
            manifest: Manifest::default(),
        };
        dataset.recover()?;
        dataset.manifest = read_manifest(&meta.join("batches"))?;
        Ok(dataset)
    }

    /// The dataset's directory.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// A new staging directory for one commit.
    pub(crate) fn stage(&self) -> Result<PathBuf, DatasetError> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = self
            .root
            .join("_axt/staging")
            .join(format!("{}-{nanos}", std::process::id()));
        create_private_dir(&dir.join("entries")).map_err(at(&dir))?;
        Ok(dir)
    }

    /// Commits what `staging` holds as `commit` says: the journal first, then its steps.
    pub(crate) fn commit(&mut self, staging: &Path, commit: &Commit) -> Result<(), DatasetError> {
        let journal = staging.join("commit.json");
        let text = serde_json::to_vec_pretty(commit).map_err(|e| at(&journal)(e.into()))?;
        write_synced(&journal, &text).map_err(at(&journal))?;
        sync_dir(staging).map_err(at(staging))?;
        self.apply(staging, commit)?;
        self.manifest = read_manifest(&self.root.join("_axt/batches"))?;
        Ok(())
    }

    fn apply(&self, staging: &Path, commit: &Commit) -> Result<(), DatasetError> {
        for file in &commit.remove_files {
            remove_if_there(&self.root.join(file))?;
        }
        for (from, to) in &commit.move_files {
            let (from, to) = (staging.join(from), self.root.join(to));
            if !from.exists() {
                continue; // moved before a crash
            }
            if let Some(dir) = to.parent() {
                create_private_dir(dir).map_err(at(dir))?;
            }
            fs::rename(&from, &to).map_err(at(&to))?;
        }
        let batches = self.root.join("_axt/batches");
        for batch in &commit.remove_entries {
            remove_if_there(&batches.join(format!("{batch}.json")))?;
        }
        for batch in &commit.add_entries {
            let from = staging.join("entries").join(format!("{batch}.json"));
            if from.exists() {
                let to = batches.join(format!("{batch}.json"));
                fs::rename(&from, &to).map_err(at(&to))?;
            }
        }
        sync_dir(&batches).map_err(at(&batches))?;
        fs::remove_dir_all(staging).map_err(at(staging))
    }

    /// Applies every journal a dead export left, and deletes every staging directory
    /// without one.
    fn recover(&self) -> Result<(), DatasetError> {
        let staging = self.root.join("_axt/staging");
        for entry in fs::read_dir(&staging).map_err(at(&staging))? {
            let dir = entry.map_err(at(&staging))?.path();
            let journal = dir.join("commit.json");
            match fs::read(&journal) {
                Ok(text) => {
                    let commit: Commit =
                        serde_json::from_slice(&text).map_err(|e| DatasetError::Incompatible {
                            path: journal.clone(),
                            reason: format!("a journal axt cannot read: {e}"),
                        })?;
                    self.apply(&dir, &commit)?;
                }
                Err(error) if error.kind() == ErrorKind::NotFound => {
                    fs::remove_dir_all(&dir).map_err(at(&dir))?;
                }
                Err(error) => return Err(at(&journal)(error)),
            }
        }
        Ok(())
    }
}

/// Writes `_axt/dataset.json` for a new dataset; refuses another format or schema major.
fn check_header(path: &Path) -> Result<(), DatasetError> {
    let major = |version: &str| version.split('.').next().unwrap_or("").to_owned();
    match fs::read(path) {
        Ok(text) => {
            let header: Header =
                serde_json::from_slice(&text).map_err(|e| DatasetError::Incompatible {
                    path: path.to_owned(),
                    reason: format!("not an axt dataset header: {e}"),
                })?;
            if header.format != FORMAT {
                return Err(DatasetError::Incompatible {
                    path: path.to_owned(),
                    reason: format!("format {:?}, not {FORMAT:?}", header.format),
                });
            }
            if major(&header.schema_version) != major(SCHEMA_VERSION) {
                return Err(DatasetError::Incompatible {
                    path: path.to_owned(),
                    reason: format!(
                        "schema {} cannot take rows of schema {SCHEMA_VERSION}: export into a new directory",
                        header.schema_version
                    ),
                });
            }
            Ok(())
        }
        Err(error) if error.kind() == ErrorKind::NotFound => {
            let header = Header {
                format: FORMAT.to_owned(),
                schema_version: SCHEMA_VERSION.to_owned(),
            };
            let mut text = serde_json::to_vec_pretty(&header).map_err(|e| at(path)(e.into()))?;
            text.push(b'\n');
            write_synced(path, &text).map_err(at(path))
        }
        Err(error) => Err(at(path)(error)),
    }
}

fn read_manifest(dir: &Path) -> Result<Manifest, DatasetError> {
    let mut manifest = Manifest::default();
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(at(dir))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    for file in files {
        let text = fs::read(&file).map_err(at(&file))?;
        let entry: Entry =
            serde_json::from_slice(&text).map_err(|e| DatasetError::Incompatible {
                path: file.clone(),
                reason: format!("a manifest entry axt cannot read: {e}"),
            })?;
        for run in &entry.runs {
            manifest.runs.insert(run.key.clone(), entry.batch.clone());
        }
        manifest.entries.insert(entry.batch.clone(), entry);
    }
    Ok(manifest)
}

/// Writes a new file whole and syncs it.
pub(crate) fn write_synced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let temp = path.with_extension("tmp");
    let _ = fs::remove_file(&temp);
    let mut file = create_private(&temp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    fs::rename(&temp, path)
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

fn remove_if_there(path: &Path) -> Result<(), DatasetError> {
    match fs::remove_file(path) {
        Err(error) if error.kind() != ErrorKind::NotFound => Err(at(path)(error)),
        _ => Ok(()),
    }
}
