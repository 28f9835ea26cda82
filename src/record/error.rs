//! [`RecordError`]: why recording failed. A file of its own so that the recorder and the
//! writer, which both return it, import it directly rather than from their folder's `mod.rs`.

use std::io;
use std::path::{Path, PathBuf};

use crate::model::{EncodeError, ExchangeEvent};

/// Why recording failed.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// Reading, writing, syncing or creating a file or directory failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// The strict writer refused the event; nothing was written and no `seq` was used.
    #[error("event refused: {0}")]
    Encode(#[from] EncodeError),
    /// The recorder was closed.
    #[error("the recorder of run {run_id} is closed")]
    Closed {
        /// The run.
        run_id: String,
    },
    /// The run id cannot be a file name.
    #[error("invalid run id {run_id:?}: {reason}")]
    InvalidRunId {
        /// The id given.
        run_id: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// Another recorder, in this process or another, has the run's file open: the run can
    /// be neither continued nor replaced until it closes.
    #[error(
        "{}: another recorder is writing this run; it cannot be continued or replaced until \
         that one ends",
        path.display()
    )]
    Busy {
        /// The run file.
        path: PathBuf,
    },
    /// The run already has a transcript, and the recorder was told to refuse it
    /// ([`IfExists::Refuse`](super::IfExists::Refuse)); nothing was written.
    #[error("{}: the run already has a transcript", path.display())]
    Exists {
        /// The run file.
        path: PathBuf,
    },
    /// What is at the run's path is not a regular file (a FIFO, a device, ...): axt does
    /// not record into it.
    #[error("{}: is {what}, not a regular file; axt records only into a regular file", path.display())]
    NotARegularFile {
        /// The path.
        path: PathBuf,
        /// What it is.
        what: &'static str,
    },
    /// The file at the run's path belongs to another user: axt does not record into it.
    #[error(
        "{}: belongs to user {owner}, not to this process's user; axt records only into its \
         user's own files",
        path.display()
    )]
    NotOwned {
        /// The path.
        path: PathBuf,
        /// The file's owner (uid).
        owner: u32,
    },
    /// The existing file does not end with an event of this run, so it cannot be continued.
    #[error("{}: cannot continue the transcript: the line at byte {offset}: {reason}", path.display())]
    Corrupt {
        /// The run file.
        path: PathBuf,
        /// Where the offending line starts.
        offset: u64,
        /// What is wrong with it.
        reason: String,
    },
    /// Events are masked but lines of raw output would not be: a capture refuses to keep
    /// its raw file rather than write there what the transcript masks.
    #[error(
        "run {run_id}: events are masked but the raw output would not be: set \
         RecorderOptions::mask_raw, or do not keep the raw output"
    )]
    UnmaskedRaw {
        /// The run.
        run_id: String,
    },
    /// An earlier sync failed (under [`Durability::Flush`](super::Durability::Flush) or
    /// [`Durability::Fsync`](super::Durability::Fsync)), and the recorder stopped rather
    /// than let a later sync vouch for lines it cannot. Every line before the failed one was
    /// synced; a new recorder on the run continues after it.
    #[error("{}: the recorder stopped after a failed sync; open the run again to continue", path.display())]
    Failed {
        /// The run file.
        path: PathBuf,
    },
    /// The run file was unlinked while it was written (it, or its directory, removed):
    /// its lines lived only in the open file. [`close`](super::Recorder::close) writes
    /// them back to the path when it can (`restored`), and says so either way.
    #[error(
        "{}: the file was removed while the run was recorded (its directory deleted?); {}",
        path.display(),
        match restored {
            Ok(()) => "its lines were written back to it".to_owned(),
            Err(reason) => format!("the transcript is lost: {reason}"),
        }
    )]
    Removed {
        /// The run file.
        path: PathBuf,
        /// Whether the lines were written back, or why not.
        restored: Result<(), String>,
    },
}

impl RecordError {
    pub(super) fn io(path: &Path, source: io::Error) -> Self {
        RecordError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

/// An event the recorder did not write, handed back with why
/// ([`Recorder::try_record`](super::Recorder::try_record)): the caller may keep it and try
/// again.
#[derive(Debug)]
pub struct Unrecorded {
    /// Why it was not written.
    pub error: RecordError,
    /// The event, as the recorder had prepared it (masked, `run_id` set).
    pub event: ExchangeEvent,
}

impl RecordError {
    /// Whether trying again later may succeed: a write the disk refused (full, an I/O
    /// error, a quota), which the recorder survives. Not a refused event, a closed
    /// recorder, nor one stopped by a failed sync.
    pub fn is_transient(&self) -> bool {
        matches!(self, RecordError::Io { .. })
    }
}
