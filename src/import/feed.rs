//! What an importer decided, before any event is made: a session's runs, each the records
//! to feed its provider's adapter (where they are in the store's files, or the record the
//! importer made to stand for them), what to keep beside them as passthrough, the run's
//! `import` account, and who spawned whom.
//!
//! This room owns the plan's vocabulary, shared by every store: a store's importer fills it
//! from its files (Claude Code's session graph, Codex's rollout, Gemini's chats, ...), and
//! [`stream`](super::stream) and [`write`](super::write) turn it into events and files. It
//! reads no file and makes no event.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde_json::{Map, Value};

use super::session::{ImportError, Note};
use crate::model::{Provider, Timestamp, Usage};

/// A session, decided: its runs (root first), who spawned whom, and what the store's files
/// showed.
pub(crate) struct SessionPlan {
    /// The session id (the root run's id).
    pub(crate) session_id: String,
    pub(crate) runs: Vec<RunPlan>,
    /// Per run, the run that spawned it.
    pub(crate) parents: Vec<Option<usize>>,
    /// Per run, the runs it spawned, in the order they are linked.
    pub(crate) spawns: Vec<Vec<Spawn>>,
    pub(crate) notes: Vec<Note>,
}

impl SessionPlan {
    /// The id of the run that spawned run `at`.
    pub(crate) fn parent_run_id(&self, at: usize) -> Option<&str> {
        self.parents[at].map(|parent| self.runs[parent].run_id.as_str())
    }

    /// The entries kept out of the runs, by reason, over all of them.
    pub(crate) fn kept_out(&self) -> BTreeMap<&'static str, u64> {
        let mut total = BTreeMap::new();
        for (reason, n) in self.runs.iter().flat_map(|r| &r.kept_out) {
            *total.entry(*reason).or_default() += n;
        }
        total
    }
}

/// One run to transcribe.
pub(crate) struct RunPlan {
    pub(crate) run_id: String,
    /// What makes its events: an adapter fed records.
    pub(crate) body: Body,
    /// The file its records come from (diagnostics name it, unless a feed names its own).
    pub(crate) source: PathBuf,
    /// Merged into `run.completed`'s result under `import`.
    pub(crate) import: Map<String, Value>,
    /// The session and the agent's version, when the records do not state them.
    pub(crate) session_id: Option<String>,
    pub(crate) version: Option<String>,
    /// The records end with the provider's terminal record; else the run is complete as
    /// the store has it (a log has no terminal record), lasting as long as its stamps say.
    pub(crate) terminal: bool,
    /// The caller's count of the run's tokens, replacing the adapter's (a sub-agent whose
    /// tokens the session's total counts already: none).
    pub(crate) usage: Option<Usage>,
    /// The message id and usage of a record kept off the thread, whose tokens were spent
    /// all the same: added up apart, in `import.off_chain_usage`.
    pub(crate) off_chain_usage: Option<OffChainUsage>,
    /// Entries of the run's group kept out of it, by reason.
    pub(crate) kept_out: BTreeMap<&'static str, u64>,
    /// What makes its [`What::Fetched`] records, as they are fed.
    pub(crate) records: Option<Rc<dyn Records>>,
}

impl RunPlan {
    /// A run of `provider` whose records come from `source`, nothing fed yet.
    pub(crate) fn new(run_id: String, provider: Provider, source: PathBuf) -> Self {
        RunPlan {
            run_id,
            body: Body::Feed {
                provider,
                feed: Vec::new(),
            },
            source,
            import: Map::new(),
            session_id: None,
            version: None,
            terminal: false,
            usage: None,
            off_chain_usage: None,
            kept_out: BTreeMap::new(),
            records: None,
        }
    }

    /// The records to feed, to add to.
    pub(crate) fn feed_mut(&mut self) -> &mut Vec<Feed> {
        match &mut self.body {
            Body::Feed { feed, .. } => feed,
        }
    }
}

/// The start of a run's `import` account: the store's `format`, the `source` file's name,
/// its `entries` and the `thread` fed to this run.
pub(crate) fn account(
    format: &str,
    source: &Path,
    entries: u64,
    thread: u64,
) -> Map<String, Value> {
    let mut import = Map::new();
    import.insert("format".into(), format.into());
    import.insert(
        "source".into(),
        source
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .into(),
    );
    import.insert("entries".into(), entries.into());
    import.insert("thread".into(), thread.into());
    import
}

/// Reads a record kept off the thread: its message id and usage, when it spent tokens.
pub(crate) type OffChainUsage = fn(&Value) -> Option<(String, Usage)>;

/// What makes a run's events.
pub(crate) enum Body {
    /// Records fed to the provider's adapter, in order.
    Feed { provider: Provider, feed: Vec<Feed> },
}

/// What one record fed to the adapter is.
pub(crate) enum What {
    /// The file's bytes at the feed's range, a record of the provider's own.
    Entry,
    /// The same, less one top-level field (a sub-agent's events, fed to its own run
    /// without the field that scopes them to it in the session's log).
    EntryWithout(&'static str),
    /// The file's JSON at the feed's range, kept as passthrough of this kind.
    Keep(&'static str),
    /// An entry kept out of the run's thread (`rewound`, `side-branch`, `duplicate`, ...),
    /// kept as passthrough `axt-import/off-chain` with its reason.
    OffChain(&'static str),
    /// A record the importer made to stand for the feed's range.
    Made(Vec<u8>),
    /// The record this function makes of the file's JSON at the feed's range, made as it is
    /// fed: a session is planned as the places of its records, never held as their bytes
    /// (Qwen Code's 198 MiB session took 152 MiB held so). What is no JSON, or what it
    /// makes nothing of, is fed as it is, for the adapter to report.
    Remade(Remake),
    /// The record number `n` of the run's [`Records`] makes, made as it is fed: a store kept
    /// in a database is planned as the places of its rows and read again in the same read
    /// (OpenCode's 198 MiB session took 269 MiB held as its records' bytes).
    // Only the SQLite store makes these: the library built without it never does.
    #[cfg_attr(not(feature = "import-sqlite"), allow(dead_code))]
    Fetched(usize),
}

/// Makes the records a run's [`What::Fetched`] feeds stand for, one at a time.
pub(crate) trait Records {
    /// Record `n`, into `out` (emptied first).
    fn fetch(&self, n: usize, out: &mut Vec<u8>) -> Result<(), ImportError>;
}

/// Makes the record a store's entry stands for, from the entry's bytes, into the buffer
/// (empty when called); `false` when it stands for none (the entry is then fed as it is).
/// Bytes in and bytes out, so that a store can make the record without building a JSON
/// value of the entry (Qwen Code's messages: most of an import's time went to that value);
/// a closure, so that it can keep what planning learned of the entry (where its fields
/// are), not the entry.
pub(crate) type Remake = Box<dyn Fn(&[u8], &mut Vec<u8>) -> bool + Send + Sync>;

/// One record fed to the adapter.
pub(crate) struct Feed {
    pub(crate) what: What,
    /// The file's line and the record's bytes there.
    pub(crate) line: u64,
    pub(crate) range: Range<usize>,
    pub(crate) timestamp: Option<Timestamp>,
    /// The file, when it is not the run's source (a store that keeps a message in a file
    /// of its own).
    pub(crate) file: Option<PathBuf>,
}

impl Feed {
    /// A record at `line`, bytes `range` of the run's source.
    pub(crate) fn at(what: What, line: u64, range: Range<usize>) -> Feed {
        Feed {
            what,
            line,
            range,
            timestamp: None,
            file: None,
        }
    }

    /// A record the importer made of `value`, standing for `line`, bytes `range`.
    pub(crate) fn made(value: &Value, line: u64, range: Range<usize>) -> Feed {
        let bytes = serde_json::to_vec(value).expect("a JSON value serializes");
        Feed::at(What::Made(bytes), line, range)
    }

    pub(crate) fn offset(&self) -> u64 {
        self.range.start as u64
    }

    /// The file's bytes the record stands for. A record the importer made stands for its
    /// entry, whatever its own length.
    pub(crate) fn span(&self) -> Range<u64> {
        self.range.start as u64..self.range.end as u64
    }
}

/// A run another run spawned: `step.call_workflow.*` events to put into the parent.
pub(crate) struct Spawn {
    /// The spawning call (`None`: not found, put before the parent closes).
    pub(crate) call: Option<String>,
    /// The child run.
    pub(crate) child: String,
    pub(crate) name: String,
}
