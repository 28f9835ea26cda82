//! The recorder port: what an executor's instrumentation needs of "where a run's events
//! go", behind one trait, so that the file recorder is the default and not the only choice.
//!
//! [`Recorder`] writes `<dir>/<run-id>.jsonl`; [`MemoryRecorder`](super::MemoryRecorder)
//! keeps the events in memory, so that an executor can unit-test its instrumentation
//! without files. Both number `seq` from 1 under one lock, refuse what the strict writer
//! refuses, fan events out to bounded subscribers and make sub-run recorders that stamp
//! `parent_run_id`. The [`workflow`](crate::workflow) scopes take any implementation.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use super::error::{RecordError, Unrecorded};
use super::fanout::Subscription;
use super::raw_mask::RawMask;
use super::recorder::Recorder;
use crate::model::ExchangeEvent;

/// Where one run's events go: a transcript file, memory, or an executor's own store.
///
/// An implementation owns `seq` for its run (from 1, by 1, in the order events are
/// accepted), sets `run_id` and `parent_run_id` on every event, refuses an event the
/// strict writer refuses without using a `seq`, and is `Sync`: the scopes of one run
/// record from many threads at once.
pub trait RunRecorder: Send + Sync + fmt::Debug {
    /// The run this recorder writes.
    fn run_id(&self) -> &str;

    /// The run that invoked this one, for a sub-run.
    fn parent_run_id(&self) -> Option<&str>;

    /// Records `event` as the run's next event and returns its `seq`.
    fn record(&self, event: ExchangeEvent) -> Result<u64, RecordError>;

    /// As [`record`](RunRecorder::record), and on error the event back, so that the caller
    /// can keep it and try again. The default copies the event first; a recorder that can
    /// hand it back ([`Recorder::try_record`]) saves the copy.
    fn try_record(&self, event: ExchangeEvent) -> Result<u64, Box<Unrecorded>> {
        let copy = event.clone();
        self.record(event)
            .map_err(|error| Box::new(Unrecorded { error, event: copy }))
    }

    /// As [`record`](RunRecorder::record), without taking the event, so that a caller can
    /// fill the same event again for its next one. What the recorder sets on it may stay
    /// set. The default records a copy; a recorder that can write it where it is
    /// ([`Recorder::record_ref`]) saves the copy and its freeing.
    fn record_ref(&self, event: &mut ExchangeEvent) -> Result<u64, RecordError> {
        self.record(event.clone())
    }

    /// A live view of the events recorded from now on.
    fn subscribe(&self) -> Subscription;

    /// Ends the run's recording and every subscription. Idempotent.
    fn close(&self) -> Result<(), RecordError>;

    /// A recorder for the sub-run `child_run_id` of this run, of the same kind and with
    /// the same options: every event it records carries `parent_run_id` = this run.
    fn create_child(&self, child_run_id: &str) -> Result<Arc<dyn RunRecorder>, RecordError>;

    /// The transcript file, for a recorder that writes one.
    fn path(&self) -> Option<&Path> {
        None
    }

    /// The `seq` of the run's last event so far: 0 for a run with none (a new file).
    fn last_seq(&self) -> u64;

    /// The mask for the raw provider output kept beside the run (an agent step's raw
    /// file): `Ok(None)` when the recorder masks nothing, an error when it masks events but
    /// has no mask for the raw output ([`RecorderOptions::mask_raw`](super::RecorderOptions::mask_raw)).
    fn raw_mask(&self) -> Result<Option<RawMask>, RecordError> {
        Ok(None)
    }
}

impl RunRecorder for Recorder {
    fn run_id(&self) -> &str {
        Recorder::run_id(self)
    }

    fn parent_run_id(&self) -> Option<&str> {
        Recorder::parent_run_id(self)
    }

    fn record(&self, event: ExchangeEvent) -> Result<u64, RecordError> {
        Recorder::record(self, event)
    }

    fn try_record(&self, event: ExchangeEvent) -> Result<u64, Box<Unrecorded>> {
        Recorder::try_record(self, event)
    }

    fn record_ref(&self, event: &mut ExchangeEvent) -> Result<u64, RecordError> {
        Recorder::record_ref(self, event)
    }

    fn subscribe(&self) -> Subscription {
        Recorder::subscribe(self)
    }

    fn close(&self) -> Result<(), RecordError> {
        Recorder::close(self)
    }

    fn create_child(&self, child_run_id: &str) -> Result<Arc<dyn RunRecorder>, RecordError> {
        let options = self.options().clone();
        Ok(Arc::new(Recorder::create_child(
            self,
            child_run_id,
            options,
        )?))
    }

    fn path(&self) -> Option<&Path> {
        Some(Recorder::path(self))
    }

    fn last_seq(&self) -> u64 {
        Recorder::last_seq(self)
    }

    fn raw_mask(&self) -> Result<Option<RawMask>, RecordError> {
        Recorder::raw_mask(self)
    }
}
