//! The recorder: the sole owner of `seq`.
//!
//! Allocating `seq`, encoding the line, appending it, syncing it and offering it to the
//! subscribers happen under one mutex, in that order. That is what makes `seq` strictly
//! increasing *in file order* (a `seq` taken from an atomic counter before the lock, as the
//! reference recorder does, lets a thread with a smaller `seq` reach the file second), and
//! what lets a subscriber trust that an event it sees is already on disk.

use std::borrow::Cow;
use std::fmt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::error::{RecordError, Unrecorded};
use super::fanout::{DEFAULT_SUBSCRIBER_CAPACITY, FanOut, FanOutStats, Subscription};
use super::redact::Redactor;
use super::writer::{RunFile, TornTail, check_run_id, create_private, create_private_dir};
use crate::model::{ExchangeEvent, encode_event};

/// When a recorded line is made durable. See the [module documentation](super#durability)
/// for what each policy guarantees and costs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Durability {
    /// One `write(2)` per event and no sync: survives the process crashing or being killed,
    /// not a power loss or OS crash. The default.
    #[default]
    None,
    /// `fdatasync(2)` after every event: each event survives a power loss once `record`
    /// returns.
    Flush,
    /// `fsync(2)` after every event: as `Flush`, and the file's metadata (times) too.
    Fsync,
    /// No sync per event, one `fsync(2)` at [`Recorder::close`]: the whole run survives a
    /// power loss once `close` returns.
    FsyncOnClose,
}

/// A masking hook: called on every event before it is encoded, in the recording thread.
pub type Mask = Arc<dyn Fn(&mut ExchangeEvent) + Send + Sync>;

/// A masking hook for a line of raw provider output kept beside the transcript
/// (`<run-id>.raw`): called with each line, its LF taken off, to rewrite in place.
pub type LineMask = Arc<dyn Fn(&mut Vec<u8>) + Send + Sync>;

/// How a [`Recorder`] writes. `RecorderOptions::default()` is: no sync
/// ([`Durability::None`]), 256 events per subscriber, no masking, no parent run.
#[derive(Clone, Default)]
pub struct RecorderOptions {
    durability: Durability,
    subscriber_capacity: Option<usize>,
    pub(super) mask: Option<Mask>,
    raw_mask: Option<LineMask>,
    pub(super) parent_run_id: Option<String>,
}

impl RecorderOptions {
    /// Sets the durability policy.
    pub fn durability(mut self, durability: Durability) -> Self {
        self.durability = durability;
        self
    }

    /// Sets how many events each subscriber's buffer holds (at least 1; default 256).
    pub fn subscriber_capacity(mut self, capacity: usize) -> Self {
        self.subscriber_capacity = Some(capacity);
        self
    }

    /// Runs `mask` on every event before it is written (and so before any subscriber sees
    /// it). It runs in the recording thread outside the recorder's lock, so a slow mask slows
    /// only its own caller.
    pub fn mask(mut self, mask: impl Fn(&mut ExchangeEvent) + Send + Sync + 'static) -> Self {
        self.mask = Some(Arc::new(mask));
        self
    }

    /// Runs `mask` on every line of raw provider output a capture keeps beside the
    /// transcript (`<run-id>.raw`), before the line is written. A run with an event
    /// [`mask`](RecorderOptions::mask) needs one too, or the capture refuses to keep the raw
    /// output ([`RecordError::UnmaskedRaw`]): the raw file would hold what the transcript
    /// masks.
    pub fn mask_raw(mut self, mask: impl Fn(&mut Vec<u8>) + Send + Sync + 'static) -> Self {
        self.raw_mask = Some(Arc::new(mask));
        self
    }

    /// Masks common credentials with [`Redactor::credentials`] before every write: in every
    /// event, and in every line of the raw output a capture keeps.
    pub fn redact_credentials(self) -> Self {
        self.mask(|event| {
            Redactor::credentials().redact_event(event);
        })
        .mask_raw(|line| {
            if let Cow::Owned(masked) = Redactor::credentials().redact_bytes(line) {
                *line = masked;
            }
        })
    }

    /// The mask for raw output lines: none when nothing is masked, and an error when events
    /// are masked but raw lines would not be.
    pub(crate) fn line_mask(&self, run_id: &str) -> Result<Option<LineMask>, RecordError> {
        match (&self.mask, &self.raw_mask) {
            (Some(_), None) => Err(RecordError::UnmaskedRaw {
                run_id: run_id.to_owned(),
            }),
            (_, raw_mask) => Ok(raw_mask.clone()),
        }
    }

    /// Marks the run as a sub-run of `parent_run_id`: every event gets `parent_run_id`.
    /// [`Recorder::create_child`] sets this for you when the parent's recorder is at hand.
    pub fn parent_run_id(mut self, parent_run_id: impl Into<String>) -> Self {
        self.parent_run_id = Some(parent_run_id.into());
        self
    }
}

impl fmt::Debug for RecorderOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecorderOptions")
            .field("durability", &self.durability)
            .field("subscriber_capacity", &self.capacity())
            .field(
                "mask",
                &self.mask.as_ref().map(|_| "Fn(&mut ExchangeEvent)"),
            )
            .field(
                "raw_mask",
                &self.raw_mask.as_ref().map(|_| "Fn(&mut Vec<u8>)"),
            )
            .field("parent_run_id", &self.parent_run_id)
            .finish()
    }
}

impl RecorderOptions {
    pub(super) fn capacity(&self) -> usize {
        self.subscriber_capacity
            .unwrap_or(DEFAULT_SUBSCRIBER_CAPACITY)
    }
}

/// Writes one run's transcript, `<dir>/<run-id>.jsonl`, and fans its events out live.
///
/// `Recorder` is `Sync`: share it (`&Recorder`, `Arc<Recorder>`) between the threads that
/// record. See the [module documentation](super) for the file's guarantees.
pub struct Recorder {
    run_id: String,
    parent_run_id: Option<String>,
    dir: PathBuf,
    path: PathBuf,
    options: RecorderOptions,
    torn_tail: Option<TornTail>,
    state: Mutex<State>,
}

/// Everything the lock protects.
struct State {
    /// `None` once closed, or after a failed sync.
    file: Option<RunFile>,
    failed: bool,
    last_seq: u64,
    /// The line being written, reused so that a steady run allocates nothing for it.
    line: Vec<u8>,
    fanout: FanOut,
}

impl Recorder {
    /// Creates the run's file, or continues it when it exists (a restarted executor): `seq`
    /// resumes after the last intact line, and a torn final line left by a crash is moved to
    /// a sidecar first (see [`Recorder::torn_tail`]).
    ///
    /// `dir` is created (mode 0700) when missing; the file is created with mode 0600. Fails
    /// with [`RecordError::Busy`] when another recorder, in this process or another, has the
    /// run open.
    pub fn create(
        dir: impl AsRef<Path>,
        run_id: &str,
        options: RecorderOptions,
    ) -> Result<Recorder, RecordError> {
        let dir = dir.as_ref();
        if let Some(parent) = &options.parent_run_id {
            check_run_id(parent)?;
        }
        let sync_metadata = options.durability != Durability::None;
        let (file, recovered) = RunFile::open(dir, run_id, sync_metadata)?;
        Ok(Recorder {
            run_id: run_id.to_owned(),
            parent_run_id: options.parent_run_id.clone(),
            dir: dir.to_owned(),
            path: file.path().to_owned(),
            options,
            torn_tail: recovered.torn,
            state: Mutex::new(State {
                file: Some(file),
                failed: false,
                last_seq: recovered.last_seq,
                line: Vec::with_capacity(1024),
                fanout: FanOut::default(),
            }),
        })
    }

    /// Creates the recorder of a sub-run (a `call_workflow` step) in the same directory:
    /// every event it writes carries `parent_run_id` = this run.
    ///
    /// The link back is the caller's event to write: record `step.call_workflow.started` and
    /// `step.call_workflow.completed` here with `child_run_id` set to `child_run_id` (the
    /// strict writer refuses those two types without it).
    pub fn create_child(
        &self,
        child_run_id: &str,
        options: RecorderOptions,
    ) -> Result<Recorder, RecordError> {
        Recorder::create(&self.dir, child_run_id, options.parent_run_id(&self.run_id))
    }

    /// Writes `event` as the next line and returns the `seq` it was given.
    ///
    /// The recorder sets `seq`, `run_id` and `parent_run_id`; everything else, the timestamp
    /// included, is written as given (after the mask, if one is set). When this returns
    /// `Ok`, the line is in the file (how durably depends on the [`Durability`]) and has been
    /// handed to the fan-out, which offers it to every subscriber in `seq` order (all of
    /// them have been offered it once [`close`](Recorder::close) returns). On error nothing was written and no `seq` was used
    /// (see [failures](super#failures) for the one exception). A failed write leaves the
    /// recorder usable: the next `record` writes when the disk lets it. A failed sync
    /// (under [`Durability::Flush`] or [`Durability::Fsync`]) stops it
    /// ([`RecordError::Failed`] from then on): reopen the run to continue.
    pub fn record(&self, event: ExchangeEvent) -> Result<u64, RecordError> {
        self.try_record(event).map_err(|refused| refused.error)
    }

    /// As [`record`](Recorder::record), and on error the event back (masked, numbered as
    /// it would have been), so that a caller can keep it and retry once the disk has room
    /// without copying every event it records: what the [`workflow`](crate::workflow)
    /// scopes do.
    pub fn try_record(&self, mut event: ExchangeEvent) -> Result<u64, Box<Unrecorded>> {
        if let Some(mask) = &self.options.mask {
            mask(&mut event);
        }
        if event.run_id != self.run_id {
            event.run_id.clone_from(&self.run_id);
        }
        if event.parent_run_id != self.parent_run_id {
            event.parent_run_id.clone_from(&self.parent_run_id);
        }
        let mut guard = self.lock();
        let state = &mut *guard;
        match self.write_line(state, &mut event) {
            Ok(seq) => {
                let unsent = state.fanout.publish(event, &self.run_id);
                drop(guard);
                // Freeing the event's strings is the caller's time, not the other writers'.
                drop(unsent);
                Ok(seq)
            }
            Err(error) => Err(Box::new(Unrecorded { error, event })),
        }
    }

    /// Numbers, encodes, appends and syncs one line under the lock; on error nothing was
    /// written and no `seq` used (see [failures](super#failures) for the one exception).
    fn write_line(&self, state: &mut State, event: &mut ExchangeEvent) -> Result<u64, RecordError> {
        let Some(file) = state.file.as_mut() else {
            return Err(self.stopped(state));
        };
        let seq = state.last_seq + 1;
        event.seq = seq;
        state.line.clear();
        encode_event(event, &mut state.line)?;
        state.line.push(b'\n');
        let out = file.out();
        let before = out.len();
        // A failed append leaves nothing (the appender cuts back what reached the file) and
        // uses no seq: the caller may retry, and the recorder goes on once space returns.
        out.append(&state.line)
            .map_err(|error| RecordError::io(&self.path, error))?;
        let synced = match self.options.durability {
            Durability::Flush => out.sync_data(),
            Durability::Fsync => out.sync_all(),
            Durability::None | Durability::FsyncOnClose => Ok(()),
        };
        if let Err(error) = synced {
            // After a failed sync the kernel may have dropped the dirty pages and cleared the
            // error (fsyncgate): a later sync that succeeds would vouch for nothing. So the
            // line is taken back (the caller is told it was not recorded, and no subscriber
            // sees it) and this recorder stops; every line before was synced, and a new
            // recorder on the run continues from there. If the cut fails too, the line stays
            // with its seq (see the module docs for what it then reads back as).
            if out.cut_back(before).is_err() {
                state.last_seq = seq;
            }
            state.file = None;
            state.failed = true;
            state.fanout.close(state.last_seq, &self.run_id);
            return Err(RecordError::io(&self.path, error));
        }
        state.last_seq = seq;
        Ok(seq)
    }

    /// A live view of the events recorded from now on, with the default buffer size of
    /// the recorder's options. After [`close`](Recorder::close) the subscription is already
    /// ended.
    pub fn subscribe(&self) -> Subscription {
        self.subscribe_with_capacity(self.options.capacity())
    }

    /// Like [`subscribe`](Recorder::subscribe), with a buffer of `capacity` events (at
    /// least 1).
    pub fn subscribe_with_capacity(&self, capacity: usize) -> Subscription {
        let mut state = self.lock();
        let first_seq = state.last_seq + 1;
        if state.file.is_none() {
            return Subscription::ended(capacity, first_seq);
        }
        state.fanout.subscribe(capacity, first_seq, &self.run_id)
    }

    /// Closes the file and ends every subscription (each still yields what it has buffered).
    /// With [`Durability::FsyncOnClose`] the file is synced first. Idempotent: later calls
    /// return `Ok(())` and do nothing; [`record`](Recorder::record) then fails with
    /// [`RecordError::Closed`]. Dropping the recorder closes it too, ignoring errors.
    pub fn close(&self) -> Result<(), RecordError> {
        let mut guard = self.lock();
        let state = &mut *guard;
        let Some(file) = state.file.take() else {
            return Ok(());
        };
        let mut file = file;
        state.fanout.close(state.last_seq, &self.run_id);
        let out = file.out();
        // A fragment a failed append could not cut off is cut now; failing that, the next
        // open moves it aside as a torn tail.
        out.settle()
            .map_err(|error| RecordError::io(&self.path, error))?;
        if self.options.durability == Durability::FsyncOnClose {
            out.sync_all()
                .map_err(|error| RecordError::io(&self.path, error))?;
        }
        // Writes to a file whose name (or directory) was removed all succeed, into a file
        // nobody can open again: its lines are put back at the path, never left to vanish
        // behind a successful close.
        if out.file().metadata().is_ok_and(|meta| meta.nlink() == 0) {
            let restored = restore(out.file(), &self.dir, &self.path).map_err(|e| e.to_string());
            return Err(RecordError::Removed {
                path: self.path.clone(),
                restored,
            });
        }
        Ok(())
    }

    /// The fan-out's delivery and drop counters.
    pub fn stats(&self) -> FanOutStats {
        self.lock().fanout.stats(&self.run_id)
    }

    /// The `seq` of the last line in the file (0 when it has none).
    pub fn last_seq(&self) -> u64 {
        self.lock().last_seq
    }

    /// The run this recorder writes.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The run that invoked this one, for a sub-run.
    pub fn parent_run_id(&self) -> Option<&str> {
        self.parent_run_id.as_deref()
    }

    /// The transcript file, `<dir>/<run-id>.jsonl`.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The options this recorder was made with (a sub-run's recorder takes them too).
    pub fn options(&self) -> &RecorderOptions {
        &self.options
    }

    /// The durability policy in force.
    pub fn durability(&self) -> Durability {
        self.options.durability
    }

    /// The mask for lines of raw output kept beside the transcript (see
    /// [`RecorderOptions::mask_raw`]).
    pub fn raw_mask(&self) -> Result<Option<LineMask>, RecordError> {
        self.options.line_mask(&self.run_id)
    }

    /// The torn final line found and moved aside when the file was opened, if any.
    pub fn torn_tail(&self) -> Option<&TornTail> {
        self.torn_tail.as_ref()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while the lock was held happened before the append (encoding is the only
        // code that could panic), so the state is still consistent.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn stopped(&self, state: &State) -> RecordError {
        if state.failed {
            RecordError::Failed {
                path: self.path.clone(),
            }
        } else {
            RecordError::Closed {
                run_id: self.run_id.clone(),
            }
        }
    }
}

impl fmt::Debug for Recorder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recorder")
            .field("run_id", &self.run_id)
            .field("parent_run_id", &self.parent_run_id)
            .field("path", &self.path)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        if let Err(error) = self.close() {
            tracing::warn!(run_id = self.run_id, %error, "closing the transcript failed");
        }
    }
}

/// Writes the whole of `file` (open for reading) to a new file at `path`, recreating `dir`
/// (0700) first: the run file back after it was unlinked while it was written.
fn restore(file: &std::fs::File, dir: &Path, path: &Path) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom};
    create_private_dir(dir)?;
    let mut target = create_private(path)?;
    let mut source = file;
    source.seek(SeekFrom::Start(0))?;
    std::io::copy(&mut source, &mut target)?;
    target.sync_all()
}
