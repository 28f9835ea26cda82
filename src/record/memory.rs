//! [`MemoryRecorder`]: the recorder port kept in memory, for tests of an executor's
//! instrumentation and for runs that are only ever watched live.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::error::RecordError;
use super::fanout::{FanOut, FanOutStats, Subscription};
use super::port::RunRecorder;
use super::recorder::RecorderOptions;
use super::writer::check_run_id;
use crate::model::{ExchangeEvent, encode_fitted};

/// Records runs in memory, exactly as [`Recorder`](super::Recorder) would write them to
/// files: `seq` from 1 under one lock, the strict writer's refusals, the mask, the bounded
/// fan-out, sub-runs stamped with `parent_run_id`. The runs of one family (a run and the
/// sub-runs made from it with [`create_child`](RunRecorder::create_child)) share one
/// [`MemoryStore`], which outlives the recorders.
///
/// ```
/// use axt::model::{EventType, ExchangeEvent, Payload};
/// use axt::record::{MemoryRecorder, RecorderOptions, RunRecorder};
///
/// let rec = MemoryRecorder::new("run-1", RecorderOptions::default())?;
/// rec.record(ExchangeEvent::new("", EventType::RunStarted, "", Payload::None))?;
/// let store = rec.store();
/// assert_eq!(store.events("run-1")[0].seq, 1);
/// assert!(store.jsonl("run-1").unwrap().starts_with(b"{\"seq\":1,\"run_id\":\"run-1\""));
/// # Ok::<(), axt::record::RecordError>(())
/// ```
pub struct MemoryRecorder {
    run_id: String,
    parent_run_id: Option<String>,
    options: RecorderOptions,
    store: MemoryStore,
    state: Mutex<State>,
}

struct State {
    closed: bool,
    last_seq: u64,
    line: Vec<u8>,
    fanout: FanOut,
}

/// The runs a family of [`MemoryRecorder`]s recorded: each run's events and its lines,
/// byte for byte what the file recorder would have written. Cheap to clone (shared).
#[derive(Clone, Default)]
pub struct MemoryStore {
    runs: Arc<Mutex<BTreeMap<String, StoredRun>>>,
}

#[derive(Default)]
struct StoredRun {
    events: Vec<ExchangeEvent>,
    jsonl: Vec<u8>,
}

impl MemoryRecorder {
    /// A recorder for run `run_id` in a new, empty store. The run id is checked as the
    /// file recorder checks it, so an id that works here works on disk.
    pub fn new(run_id: &str, options: RecorderOptions) -> Result<MemoryRecorder, RecordError> {
        MemoryRecorder::in_store(MemoryStore::default(), run_id, options)
    }

    /// A recorder for run `run_id` in `store`. Fails with [`RecordError::InvalidRunId`]
    /// when the id could not name a file, or the store already has the run (one recorder
    /// per run, as the file recorder's lock makes it on disk).
    pub fn in_store(
        store: MemoryStore,
        run_id: &str,
        options: RecorderOptions,
    ) -> Result<MemoryRecorder, RecordError> {
        check_run_id(run_id)?;
        if let Some(parent) = &options.parent_run_id {
            check_run_id(parent)?;
        }
        match store.lock().entry(run_id.to_owned()) {
            std::collections::btree_map::Entry::Occupied(_) => {
                return Err(RecordError::InvalidRunId {
                    run_id: run_id.to_owned(),
                    reason: "the store already has a run with this id",
                });
            }
            std::collections::btree_map::Entry::Vacant(slot) => {
                slot.insert(StoredRun::default());
            }
        }
        Ok(MemoryRecorder {
            run_id: run_id.to_owned(),
            parent_run_id: options.parent_run_id.clone(),
            options,
            store,
            state: Mutex::new(State {
                closed: false,
                last_seq: 0,
                line: Vec::with_capacity(1024),
                fanout: FanOut::default(),
            }),
        })
    }

    /// The store this recorder (and its sub-runs) record into.
    pub fn store(&self) -> MemoryStore {
        self.store.clone()
    }

    /// The events of this run so far.
    pub fn events(&self) -> Vec<ExchangeEvent> {
        self.store.events(&self.run_id)
    }

    /// The fan-out's delivery and drop counters.
    pub fn stats(&self) -> FanOutStats {
        self.lock().fanout.stats(&self.run_id)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl RunRecorder for MemoryRecorder {
    fn run_id(&self) -> &str {
        &self.run_id
    }

    fn parent_run_id(&self) -> Option<&str> {
        self.parent_run_id.as_deref()
    }

    fn record(&self, mut event: ExchangeEvent) -> Result<u64, RecordError> {
        if let Some(mask) = &self.options.mask {
            mask(&mut event);
        }
        event.run_id.clone_from(&self.run_id);
        event.parent_run_id.clone_from(&self.parent_run_id);
        let mut guard = self.lock();
        let state = &mut *guard;
        if state.closed {
            return Err(RecordError::Closed {
                run_id: self.run_id.clone(),
            });
        }
        let seq = state.last_seq + 1;
        event.seq = seq;
        state.line.clear();
        let cuts = encode_fitted(&mut event, &mut state.line)?;
        super::recorder::report_cuts(&self.run_id, seq, &cuts);
        state.line.push(b'\n');
        state.last_seq = seq;
        {
            let mut runs = self.store.lock();
            let run = runs.entry(self.run_id.clone()).or_default();
            run.jsonl.extend_from_slice(&state.line);
            run.events.push(event.clone());
        }
        if state.fanout.is_live() {
            state.fanout.publish(event, &self.run_id);
        } else {
            drop(guard);
            drop(event);
        }
        Ok(seq)
    }

    fn subscribe(&self) -> Subscription {
        let capacity = self.options.capacity();
        let mut state = self.lock();
        let first_seq = state.last_seq + 1;
        if state.closed {
            return Subscription::ended(capacity, first_seq);
        }
        state.fanout.subscribe(capacity, first_seq, &self.run_id)
    }

    fn close(&self) -> Result<(), RecordError> {
        let mut state = self.lock();
        if !state.closed {
            state.closed = true;
            let last_seq = state.last_seq;
            state.fanout.close(last_seq, &self.run_id);
        }
        Ok(())
    }

    fn create_child(&self, child_run_id: &str) -> Result<Arc<dyn RunRecorder>, RecordError> {
        let options = self.options.clone().parent_run_id(&self.run_id);
        Ok(Arc::new(MemoryRecorder::in_store(
            self.store.clone(),
            child_run_id,
            options,
        )?))
    }

    fn path(&self) -> Option<&Path> {
        None
    }

    fn last_seq(&self) -> u64 {
        self.lock().last_seq
    }

    fn raw_mask(&self) -> Result<Option<super::RawMask>, RecordError> {
        self.options.line_mask(&self.run_id)
    }
}

impl MemoryStore {
    /// The ids of the runs recorded, in order.
    pub fn runs(&self) -> Vec<String> {
        self.lock().keys().cloned().collect()
    }

    /// The events of run `run_id` (empty when there is no such run).
    pub fn events(&self, run_id: &str) -> Vec<ExchangeEvent> {
        self.lock()
            .get(run_id)
            .map(|run| run.events.clone())
            .unwrap_or_default()
    }

    /// The transcript of run `run_id` as the file recorder would have written it.
    pub fn jsonl(&self, run_id: &str) -> Option<Vec<u8>> {
        self.lock().get(run_id).map(|run| run.jsonl.clone())
    }

    /// Writes every run as `<dir>/<run-id>.jsonl` (new files, mode 0600, never through a
    /// symbolic link; `dir` created 0700 when missing), for the readers and the CLI;
    /// returns the paths written, in run id order.
    pub fn write_to(&self, dir: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
        use std::io::Write;
        let runs = self.lock();
        super::create_private_dir(dir)?;
        let mut paths = Vec::with_capacity(runs.len());
        for (run_id, run) in runs.iter() {
            let path = dir.join(format!("{run_id}.jsonl"));
            let named = |error: std::io::Error| {
                std::io::Error::new(error.kind(), format!("{}: {error}", path.display()))
            };
            let mut file = super::create_private(&path).map_err(named)?;
            // The run's lock, as every writer of a run file takes it: a recorder that opened
            // the new file meanwhile would otherwise interleave its lines with these.
            file.try_lock().map_err(|error| named(error.into()))?;
            file.write_all(&run.jsonl).map_err(named)?;
            paths.push(path);
        }
        Ok(paths)
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<String, StoredRun>> {
        self.runs.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl fmt::Debug for MemoryRecorder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryRecorder")
            .field("run_id", &self.run_id)
            .field("parent_run_id", &self.parent_run_id)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryStore")
            .field("runs", &self.runs())
            .finish()
    }
}
