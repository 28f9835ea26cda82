//! One OpenCode session as either layout gives it (the `files` and `sqlite` rooms fill it,
//! the folder plans runs of it): its fields and its messages with their parts, in order.
//! It reads and decides nothing.

use std::path::PathBuf;

use crate::import::feed::Feed;
use crate::import::session::SessionFiles;

use serde_json::Value;

/// One session as either layout has it: its fields and its messages, in order.
pub(crate) struct Stored {
    pub(crate) id: String,
    pub(crate) parent: Option<String>,
    pub(crate) directory: Option<String>,
    pub(crate) version: Option<String>,
    pub(crate) title: Option<String>,
    /// Its session file, or the database.
    pub(crate) source: PathBuf,
    pub(crate) pieces: Pieces,
}

/// A session's pieces, each made into what it feeds as it is added (the folder's
/// `Pieces::push`, ...): never held as parsed JSON, which took three times the session's
/// size (a 198 MiB database session peaked at 611 MiB). A message of the JSON files is held
/// as its record's bytes; one of the database as its place in the rows, read again as it is
/// fed (held as bytes, the same session peaked at 269 MiB).
#[derive(Default)]
pub(crate) struct Pieces {
    /// What each piece feeds, in order.
    pub(crate) fed: Vec<Feed>,
    /// The task calls of its parts that name a session they spawned, in order: the
    /// session's id, the call's id and the sub-agent's name.
    pub(crate) calls: Vec<(String, String, String)>,
}

/// What one session's storage gave, in order.
pub(crate) enum Piece {
    /// A message (`info` with its ids) and its parts.
    Message {
        info: Value,
        parts: Vec<Value>,
        /// The file it was read from (the JSON layout), and its size.
        file: Option<(PathBuf, usize)>,
    },
    /// A file that is no JSON object: its bytes fed as one record, for the adapter to
    /// report at that file.
    Unreadable { file: PathBuf, bytes: Vec<u8> },
}

/// The sessions found: each its files and, for a database, its id there.
pub(crate) type Found = Vec<(SessionFiles, Option<String>)>;
