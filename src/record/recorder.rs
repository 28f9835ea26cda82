//! The recorder: the sole owner of `seq`.
//!
//! Allocating `seq`, encoding the line, appending it, syncing it and offering it to the
//! subscribers happen under one mutex, in that order. That is what makes `seq` strictly
//! increasing *in file order* (a `seq` taken from an atomic counter before the lock, as the
//! reference recorder does, lets a thread with a smaller `seq` reach the file second), and
//! what lets a subscriber trust that an event it sees is already on disk.

use std::fmt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::error::{RecordError, Unrecorded};
use super::fanout::{DEFAULT_SUBSCRIBER_CAPACITY, FanOut, FanOutStats, Subscription};
use super::raw_mask::RawMask;
use super::redact::Redactor;
use super::writer::{
    IfExists, RunFile, TornTail, check_run_id, create_private, create_private_dir,
};
use crate::model::{Cut, EncodeError, ExchangeEvent, encode_fitted, encode_in_run, run_id_field};

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

/// How a [`Recorder`] writes. `RecorderOptions::default()` is: no sync
/// ([`Durability::None`]), 256 events per subscriber, no masking, no parent run.
#[derive(Clone, Default)]
pub struct RecorderOptions {
    durability: Durability,
    subscriber_capacity: Option<usize>,
    pub(super) mask: Option<Mask>,
    raw_mask: Option<RawMask>,
    pub(super) parent_run_id: Option<String>,
    if_exists: IfExists,
}

impl RecorderOptions {
    /// Sets the durability policy.
    pub fn durability(mut self, durability: Durability) -> Self {
        self.durability = durability;
        self
    }

    /// What [`Recorder::create`] does when the run's file already has lines: continue it
    /// (the default), refuse it, or replace it. Decided under the run's lock, so a run
    /// another recorder is writing is never replaced ([`RecordError::Busy`]).
    pub fn if_exists(mut self, policy: IfExists) -> Self {
        self.if_exists = policy;
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
        self.raw_mask = Some(RawMask::lines(Arc::new(mask)));
        self
    }

    /// Masks common credentials with [`Redactor::credentials`] before every write: in every
    /// event, and in the raw output a capture keeps, where a credential streamed in pieces
    /// or hidden by JSON escapes is masked as the transcript masks it ([`RawMask`]).
    pub fn redact_credentials(mut self) -> Self {
        self = self.mask(|event| {
            Redactor::credentials().redact_event(event);
        });
        self.raw_mask = Some(RawMask::redactor(Arc::new(Redactor::credentials().clone())));
        self
    }

    /// The mask for the raw output: none when nothing is masked, and an error when events
    /// are masked but the raw output would not be.
    pub(crate) fn line_mask(&self, run_id: &str) -> Result<Option<RawMask>, RecordError> {
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
            .field("raw_mask", &self.raw_mask)
            .field("parent_run_id", &self.parent_run_id)
            .field("if_exists", &self.if_exists)
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
    /// The run's id as every line has it (`,"run_id":"<id>"`), escaped once: an event is
    /// written with it whatever its own `run_id` (most have none: a workflow scope's never
    /// has it), which is neither read nor replaced (see `encode`).
    run_id_field: Box<[u8]>,
    fanout: FanOut,
}

impl Recorder {
    /// Creates the run's file, or continues it when it exists (a restarted executor): `seq`
    /// resumes after the last intact line, and a torn final line left by a crash is moved to
    /// a sidecar first (see [`Recorder::torn_tail`]).
    ///
    /// `dir` is created (mode 0700) when missing; the file is created with mode 0600. An
    /// existing file must be a regular file of this process's user ([`RecordError::NotARegularFile`],
    /// [`RecordError::NotOwned`]) and is made 0600. Fails with [`RecordError::Busy`] when
    /// another recorder, in this process or another, has the run open; what happens to a run
    /// that has lines already is [`RecorderOptions::if_exists`]'s.
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
        let (file, recovered) = RunFile::open(dir, run_id, sync_metadata, options.if_exists)?;
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
                run_id_field: run_id_field(run_id),
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
    #[inline] // into `record`, so that the event is not moved (copied) once more to get here
    pub fn try_record(&self, mut event: ExchangeEvent) -> Result<u64, Box<Unrecorded>> {
        let (mut guard, written) = self.write_event(&mut event);
        let state = &mut *guard;
        // A copy of the run's id for an event a subscriber will see, or one handed back
        // unrecorded; one that is only written and freed was written with the run's id
        // without holding it.
        if (written.is_err() || state.fanout.is_live()) && event.run_id != self.run_id {
            event.run_id.clone_from(&self.run_id);
        }
        match written {
            Ok(seq) if state.fanout.is_live() => {
                state.fanout.publish(event, &self.run_id);
                Ok(seq)
            }
            Ok(seq) => {
                // Freeing the event's strings is the caller's time, not the other writers':
                // the lock goes first, and the event is freed where it lies as this returns
                // (handed to the fan-out and back, or to `drop`, it was copied on the way).
                drop(guard);
                Ok(seq)
            }
            Err(error) => Err(Box::new(Unrecorded { error, event })),
        }
    }

    /// As [`record`](Recorder::record), without taking the event: the caller keeps it and
    /// may fill it again for its next event, so that nothing of it is allocated and freed
    /// per event (an executor's loop, the [`workflow`](crate::workflow) scopes). The event
    /// is written as `record` writes it; what the recorder sets (`seq`, `parent_run_id`,
    /// the mask's changes) stays set on it, its `run_id` is left as the caller had it. A
    /// subscriber gets a copy. On error nothing was written and no `seq` used, as for
    /// `record`.
    pub fn record_ref(&self, event: &mut ExchangeEvent) -> Result<u64, RecordError> {
        let (mut guard, written) = self.write_event(event);
        let seq = written?;
        let state = &mut *guard;
        if state.fanout.is_live() {
            let mut copy = event.clone();
            if copy.run_id != self.run_id {
                copy.run_id.clone_from(&self.run_id);
            }
            state.fanout.publish(copy, &self.run_id);
        }
        Ok(seq)
    }

    /// Writes `events` as the next lines, in order, with consecutive `seq`s, in ONE append
    /// (one `write(2)`), and returns the `seq`s they were given (empty for no events).
    ///
    /// Each event is recorded as [`record_ref`](Recorder::record_ref) records it (masked,
    /// given the run's links, fitted to a line and its cuts reported; what the recorder
    /// sets stays set on it, its `run_id` is left as the caller had it), and the batch is
    /// all or nothing: when an event cannot be encoded or the append fails, nothing of the
    /// batch is in the file and no `seq` is used, as for one event (see
    /// [failures](super#failures)). The durability applies once per batch: under
    /// [`Durability::Flush`] or [`Durability::Fsync`] one sync after the append, whose
    /// failure takes the whole batch back and stops the recorder. Subscribers get a copy of
    /// each event after the append, in `seq` order.
    ///
    /// For a writer that has many events at hand (an importer): the system call per event is
    /// most of what recording costs. The caller bounds the batch (its events are encoded
    /// into one buffer, under the lock).
    pub fn record_batch(
        &self,
        events: &mut [ExchangeEvent],
    ) -> Result<std::ops::Range<u64>, RecordError> {
        for event in events.iter_mut() {
            self.prepare(event);
        }
        let mut guard = self.lock();
        let state = &mut *guard;
        let seqs = self.write_lines(state, events)?;
        if state.fanout.is_live() {
            for event in events.iter() {
                let mut copy = event.clone();
                if copy.run_id != self.run_id {
                    copy.run_id.clone_from(&self.run_id);
                }
                state.fanout.publish(copy, &self.run_id);
            }
        }
        Ok(seqs)
    }

    /// Numbers and encodes `events` into the line buffer, each with the run's id (as
    /// [`write_event`](Recorder::write_event) writes it), then appends and syncs them as
    /// one, under the lock; on error nothing was written and no `seq` used.
    fn write_lines(
        &self,
        state: &mut State,
        events: &mut [ExchangeEvent],
    ) -> Result<std::ops::Range<u64>, RecordError> {
        if state.file.is_none() {
            return Err(self.stopped(state));
        }
        let first = state.last_seq + 1;
        state.line.clear();
        for (seq, event) in (first..).zip(events.iter_mut()) {
            event.seq = seq;
            if let Err(refused) = encode_in_run(event, &state.run_id_field, &mut state.line) {
                self.fit(&mut state.line, event, refused)?;
            }
            state.line.push(b'\n');
        }
        let end = first + events.len() as u64;
        if events.is_empty() {
            return Ok(first..end);
        }
        self.append(state, end - 1)?;
        Ok(first..end)
    }

    /// What every event gets before it is written, outside the lock: the recorder's mask,
    /// and the run's parent.
    #[inline]
    fn prepare(&self, event: &mut ExchangeEvent) {
        if let Some(mask) = &self.options.mask {
            mask(event);
        }
        if event.parent_run_id != self.parent_run_id {
            event.parent_run_id.clone_from(&self.parent_run_id);
        }
    }

    /// Masks `event`, gives it the run's links and writes it under the lock, which it
    /// returns held (the fan-out is offered the event under it, in `seq` order). The line
    /// has the run's id whatever the event's own `run_id`, which is left as it was.
    fn write_event(
        &self,
        event: &mut ExchangeEvent,
    ) -> (MutexGuard<'_, State>, Result<u64, RecordError>) {
        self.prepare(event);
        let mut guard = self.lock();
        let written = self.write_line(&mut guard, event);
        (guard, written)
    }

    /// After `encode_in_run` refused `event` with `refused`: an event that is only too long
    /// for a line is cut to fit ([`encode_fitted`]), appended to `line` and its cuts
    /// reported; any other refusal is returned.
    ///
    /// It is cut as `encode_fitted` cuts it with the run's id in it (the cut depends on the
    /// line's length): for that rare event the id is copied into it for the cut and its own
    /// put back after. Out of line, so that the common path returns no list of cuts.
    #[cold]
    fn fit(
        &self,
        line: &mut Vec<u8>,
        event: &mut ExchangeEvent,
        refused: EncodeError,
    ) -> Result<(), RecordError> {
        if !refused.is_over_limit() {
            return Err(refused.into());
        }
        let own = std::mem::replace(&mut event.run_id, self.run_id.clone());
        let fitted = encode_fitted(event, line);
        event.run_id = own;
        report_cuts(&self.run_id, event.seq, &fitted?);
        Ok(())
    }

    /// Numbers, encodes, appends and syncs one line under the lock; on error nothing was
    /// written and no `seq` used (see [failures](super#failures) for the one exception).
    fn write_line(&self, state: &mut State, event: &mut ExchangeEvent) -> Result<u64, RecordError> {
        if state.file.is_none() {
            return Err(self.stopped(state));
        }
        let seq = state.last_seq + 1;
        event.seq = seq;
        state.line.clear();
        if let Err(refused) = encode_in_run(event, &state.run_id_field, &mut state.line) {
            self.fit(&mut state.line, event, refused)?;
        }
        state.line.push(b'\n');
        self.append(state, seq)?;
        Ok(seq)
    }

    /// Appends the line buffer (whole lines, the last numbered `last`) in one append and
    /// syncs it as the durability says, under the lock; on error nothing was written and no
    /// `seq` used (see [failures](super#failures) for the one exception).
    fn append(&self, state: &mut State, last: u64) -> Result<(), RecordError> {
        let Some(file) = state.file.as_mut() else {
            return Err(self.stopped(state));
        };
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
            // lines are taken back (the caller is told they were not recorded, and no
            // subscriber sees them) and this recorder stops; every line before was synced,
            // and a new recorder on the run continues from there. If the cut fails too, the
            // lines stay with their seqs (see the module docs for what they then read back
            // as).
            if out.cut_back(before).is_err() {
                state.last_seq = last;
            }
            state.file = None;
            state.failed = true;
            state.fanout.close(state.last_seq, &self.run_id);
            return Err(RecordError::io(&self.path, error));
        }
        state.last_seq = last;
        Ok(())
    }

    /// Keeps the first `keep` lines of the run's file, which end at byte `len`, and cuts
    /// the rest, so that the next event is numbered `keep + 1`. For an importer whose source
    /// grew: the lines that are still right stay as they are, and the run's new tail is
    /// written after them. Under the lock, like every write; `len` must end a line of the
    /// file (or be 0), else nothing is cut and the file is [`RecordError::Corrupt`] for the
    /// caller's purpose. Subscribers are not told: they are for live runs.
    pub(crate) fn cut_back(&self, keep: u64, len: u64) -> Result<(), RecordError> {
        use std::os::unix::fs::FileExt;
        let mut guard = self.lock();
        let state = &mut *guard;
        let Some(file) = state.file.as_mut() else {
            return Err(self.stopped(state));
        };
        let out = file.out();
        let corrupt = |reason: &str| RecordError::Corrupt {
            path: self.path.clone(),
            offset: len,
            reason: reason.to_owned(),
        };
        if len > out.len() {
            return Err(corrupt("the cut is past the end of the file"));
        }
        if len > 0 {
            let mut byte = [0u8];
            out.file()
                .read_exact_at(&mut byte, len - 1)
                .map_err(|error| RecordError::io(&self.path, error))?;
            if byte[0] != b'\n' {
                return Err(corrupt("the cut is not at the end of a line"));
            }
        }
        out.cut_back(len)
            .map_err(|error| RecordError::io(&self.path, error))?;
        state.last_seq = keep;
        Ok(())
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

    /// The mask for the raw output kept beside the transcript (see
    /// [`RecorderOptions::mask_raw`], [`RecorderOptions::redact_credentials`]).
    pub fn raw_mask(&self) -> Result<Option<RawMask>, RecordError> {
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

/// Says that an event was cut to fit a transcript line (the event itself marks where).
/// Events made from provider output were fitted, and reported as a diagnostic, before they
/// reached a recorder or a sink; this is for those an executor records itself (a step's
/// result, say).
#[inline]
pub(crate) fn report_cuts(run_id: &str, seq: u64, cuts: &[Cut]) {
    if !cuts.is_empty() {
        warn_cuts(run_id, seq, cuts);
    }
}

#[cold]
fn warn_cuts(run_id: &str, seq: u64, cuts: &[Cut]) {
    let cuts: Vec<String> = cuts.iter().map(ToString::to_string).collect();
    tracing::warn!(
        run_id,
        seq,
        cuts = cuts.join("; "),
        "an event did not fit a transcript line and was cut to fit"
    );
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

#[cfg(test)]
mod tests {
    use super::{RecordError, Recorder, RecorderOptions};
    use crate::model::{EventType, ExchangeEvent, Payload};

    /// An event recorded by reference is written byte for byte as one recorded by value;
    /// the caller keeps it (its own run id, the seq it was given), and a subscriber gets
    /// its copy with the run's id.
    #[test]
    fn an_event_recorded_by_reference_is_written_as_one_recorded_by_value() {
        let dir = std::env::temp_dir().join(format!("axt-by-ref-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let event = || {
            let mut event = ExchangeEvent::new("", EventType::RunStarted, "", Payload::None);
            event.timestamp = crate::model::Timestamp::from_unix_nanos(0);
            event
        };
        let by_value = Recorder::create(&dir, "v", RecorderOptions::default()).unwrap();
        let by_ref = Recorder::create(&dir, "r", RecorderOptions::default()).unwrap();
        let subscription = by_ref.subscribe();
        let mut kept = event();
        for seq in 1..=3 {
            by_value.record(event()).unwrap();
            assert_eq!(by_ref.record_ref(&mut kept).unwrap(), seq);
            assert_eq!((kept.seq, kept.run_id.as_str()), (seq, ""));
        }
        by_value.close().unwrap();
        by_ref.close().unwrap();
        let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
        assert_eq!(read("v.jsonl").replace("\"v\"", "\"r\""), read("r.jsonl"));
        let seen: Vec<String> = subscription
            .filter_map(|delivery| match delivery {
                super::super::Delivery::Event(event) => Some(event.run_id.clone()),
                super::super::Delivery::Missed { .. } => None,
            })
            .collect();
        assert_eq!(seen, ["r", "r", "r"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// An importer keeps a run's first lines and writes the rest anew: the next event is
    /// numbered after the lines kept, and a cut that is not at a line's end cuts nothing.
    #[test]
    fn cutting_back_keeps_whole_lines_and_numbers_on_after_them() {
        let dir = std::env::temp_dir().join(format!("axt-cut-back-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let recorder = Recorder::create(&dir, "r", RecorderOptions::default()).unwrap();
        let event = || ExchangeEvent::new("r", EventType::RunStarted, "", Payload::None);
        for _ in 0..3 {
            recorder.record(event()).unwrap();
        }
        let bytes = std::fs::read(recorder.path()).unwrap();
        let two = bytes
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(1);
        let two = two.unwrap().0 as u64 + 1;
        let refused = recorder.cut_back(1, two - 1).unwrap_err();
        assert!(matches!(refused, RecordError::Corrupt { .. }), "{refused}");
        let past = recorder.cut_back(9, bytes.len() as u64 + 1).unwrap_err();
        assert!(matches!(past, RecordError::Corrupt { .. }), "{past}");
        assert_eq!(
            std::fs::read(recorder.path()).unwrap(),
            bytes,
            "nothing cut"
        );
        recorder.cut_back(2, two).unwrap();
        assert_eq!(recorder.record(event()).unwrap(), 3);
        let after = std::fs::read(recorder.path()).unwrap();
        assert_eq!(after.len(), bytes.len(), "the third line written again");
        assert_eq!(&after[..two as usize], &bytes[..two as usize]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
