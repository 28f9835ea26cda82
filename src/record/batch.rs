//! Events on their way into a run's file in batches: one append (one `write(2)`) per
//! batch instead of one per event, the system call being most of what recording an event
//! costs. `axt import` and `axt normalize --out` record through it.

use crate::model::{ExchangeEvent, size_hint};

use super::{RecordError, Recorder};

/// Events held for one [`Recorder::record_batch`]. Bounded, so that memory holds a batch,
/// not a run: it is full once it holds [`Batch::EVENTS`] events or about [`Batch::BYTES`]
/// bytes of lines.
#[derive(Default)]
pub(crate) struct Batch {
    events: Vec<ExchangeEvent>,
    /// The lines' length, about ([`size_hint`]).
    bytes: usize,
}

impl Batch {
    /// A few tens of kilobytes: large enough that the system call costs little per event.
    const EVENTS: usize = 256;
    const BYTES: usize = 64 << 10;

    /// Adds `event`; true when the batch is full and is to be recorded.
    pub(crate) fn push(&mut self, event: ExchangeEvent) -> bool {
        self.bytes += size_hint(&event);
        self.events.push(event);
        self.events.len() >= Self::EVENTS || self.bytes >= Self::BYTES
    }

    /// Records the events held, all or none ([`Recorder::record_batch`]), and empties the
    /// batch either way: on failure, none of them written, they are handed back with the
    /// error (for a caller that records them one at a time, to fail where one would).
    pub(crate) fn record(
        &mut self,
        recorder: &Recorder,
    ) -> Result<(), (RecordError, Vec<ExchangeEvent>)> {
        if self.events.is_empty() {
            return Ok(());
        }
        self.bytes = 0;
        match recorder.record_batch(&mut self.events) {
            Ok(_) => {
                self.events.clear();
                Ok(())
            }
            Err(error) => Err((error, std::mem::take(&mut self.events))),
        }
    }
}
