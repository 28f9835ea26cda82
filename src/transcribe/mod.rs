//! The events stage: normalized items in, transcript events out, handed to a sink.
//!
//! ```text
//! provider bytes -> Normalizer -> Item* + RunMeta + Diagnostic*  (normalize)
//!                -> EventMapper -> ExchangeEvent (seq 0)          (mapper)
//!                -> EventSink: JsonlSink (stdout) | RecordingSink (a Recorder) | yours
//! ```
//!
//! A [`Transcriber`] is a [`Normalizer`] and an [`EventMapper`] in one: bytes go in as they
//! arrive, and every event and diagnostic they complete goes to an [`EventSink`] before the
//! call returns. The mapping itself (which item makes which event, run ids, times) is the
//! [`mapper`]'s and is documented there; [`to_events`] maps a whole [`Normalized`] run in one
//! go.
//!
//! **Who numbers `seq`.** Events leave the mapper with `seq` 0; the sink that writes the
//! transcript numbers them. There are exactly two such sinks, side by side in [`sinks`]:
//! [`RecordingSink`] hands each event to a [`Recorder`](crate::record::Recorder), which
//! allocates `seq` under its lock (and continues it after a crash); [`JsonlSink`] numbers
//! from 1 for a transcript written to any `Write` (stdout), where there is no recorder.
//!
//! **Errors.** A sink says what its own failure is ([`EventSink::Error`], as ripgrep's
//! `Sink::Error`): the transcriber makes no error of its own and hands the sink's back
//! unchanged, so a recorder's [`RecordError`](crate::record::RecordError) or an importer's
//! error reaches the caller whole.
//!
//! This module owns the mapping and the sink seam. It must not know a provider's dialect
//! (that is [`normalize`](crate::normalize)'s) nor how a line is written to disk (that is
//! [`record`](crate::record)'s); it imports `model`, `normalize` and `record`, and nothing
//! above them.

pub mod mapper;
pub mod sinks;

use crate::model::{ContentBlock, ExchangeEvent, Timestamp};
use crate::normalize::{
    Diagnostic, Normalized, Normalizer, Options, Output, ProcessEnd, Provider, RunMeta,
};

pub use mapper::{AGENT_PATH, EventMapper};
pub use sinks::{IfExists, JsonlSink, RecordingError, RecordingSink};

/// Where timestamps come from.
pub type Clock = Box<dyn FnMut() -> Timestamp + Send>;

/// How events are made.
pub struct EventOptions {
    /// The run id; see the module docs for the default.
    pub run_id: Option<String>,
    /// The time of events the input does not date; `Timestamp::now` by default.
    pub clock: Clock,
}

impl Default for EventOptions {
    fn default() -> Self {
        EventOptions {
            run_id: None,
            clock: Box::new(Timestamp::now),
        }
    }
}

impl std::fmt::Debug for EventOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventOptions")
            .field("run_id", &self.run_id)
            .finish_non_exhaustive()
    }
}

/// Where a [`Transcriber`] delivers what it makes.
pub trait EventSink {
    /// Why the sink failed: its own error, handed back to the caller unchanged.
    type Error;
    /// A transcript event, `seq` 0: the sink numbers it (a recorder, or [`JsonlSink`]).
    fn event(&mut self, event: ExchangeEvent) -> Result<(), Self::Error>;
    /// A problem found in the input.
    fn diagnostic(&mut self, diagnostic: Diagnostic) -> Result<(), Self::Error>;
    /// Hands on whatever the sink buffers: called when the input pauses, so that a live
    /// reader sees each event as soon as its input record is complete. A sink that writes
    /// each event through (a recorder) has nothing to do.
    fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

impl<S: EventSink + ?Sized> EventSink for &mut S {
    type Error = S::Error;
    fn event(&mut self, event: ExchangeEvent) -> Result<(), Self::Error> {
        (**self).event(event)
    }
    fn diagnostic(&mut self, diagnostic: Diagnostic) -> Result<(), Self::Error> {
        (**self).diagnostic(diagnostic)
    }
    fn flush(&mut self) -> Result<(), Self::Error> {
        (**self).flush()
    }
}

/// Provider bytes in, transcript events out, incrementally: a [`Normalizer`] and an
/// [`EventMapper`] in one.
pub struct Transcriber {
    normalizer: Box<dyn Normalizer + Send>,
    mapper: EventMapper,
    output: Output,
    events: Vec<ExchangeEvent>,
}

impl std::fmt::Debug for Transcriber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transcriber")
            .field("mapper", &self.mapper)
            .finish_non_exhaustive()
    }
}

impl Transcriber {
    /// A transcriber for one run of `provider`.
    pub fn new(provider: Provider, options: Options, events: EventOptions) -> Self {
        Transcriber {
            normalizer: provider.normalizer(options),
            mapper: EventMapper::new(provider, events),
            output: Output::default(),
            events: Vec::new(),
        }
    }

    /// Feeds bytes; every event and diagnostic they complete goes to `sink` before this
    /// returns.
    pub fn push<S: EventSink + ?Sized>(
        &mut self,
        bytes: &[u8],
        sink: &mut S,
    ) -> Result<(), S::Error> {
        self.normalizer.push(bytes, &mut self.output);
        self.deliver(sink)
    }

    /// Starts the run before any output, with the executor's prompt blocks; see
    /// [`EventMapper::start_run`].
    pub fn start<S: EventSink + ?Sized>(
        &mut self,
        user: Vec<ContentBlock>,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        self.mapper
            .start_run(self.normalizer.meta(), user, &mut self.events);
        self.deliver(sink)
    }

    /// Ends the input; the run's closing events go to `sink`.
    pub fn finish<S: EventSink + ?Sized>(&mut self, sink: &mut S) -> Result<(), S::Error> {
        self.normalizer.finish(&mut self.output);
        self.deliver(sink)?;
        self.mapper.finish(self.normalizer.meta(), &mut self.events);
        self.deliver(sink)
    }

    /// Ends the input of an agent whose process ended as `end`, and returns the run's final
    /// metadata: the output's, with [`RunMeta::set_process`] applied, as `run.completed`
    /// carries it.
    pub fn finish_process<S: EventSink + ?Sized>(
        &mut self,
        end: ProcessEnd,
        sink: &mut S,
    ) -> Result<RunMeta, S::Error> {
        self.normalizer.finish(&mut self.output);
        self.deliver(sink)?;
        let mut meta = self.normalizer.meta().clone();
        meta.set_process(end);
        self.mapper.finish(&meta, &mut self.events);
        self.deliver(sink)?;
        Ok(meta)
    }

    /// The run's metadata so far; final after [`Transcriber::finish`].
    pub fn meta(&self) -> &RunMeta {
        self.normalizer.meta()
    }

    /// The run id, once the first event has been made.
    pub fn run_id(&self) -> Option<&str> {
        self.mapper.run_id()
    }

    fn deliver<S: EventSink + ?Sized>(&mut self, sink: &mut S) -> Result<(), S::Error> {
        let meta = self.normalizer.meta();
        self.mapper
            .items(&mut self.output.items, meta, &mut self.events);
        self.output
            .diagnostics
            .drain(..)
            .try_for_each(|d| sink.diagnostic(d))?;
        self.events
            .drain(..)
            .try_for_each(|event| sink.event(event))
    }
}

/// Maps a whole normalized run in one go.
pub fn to_events(normalized: &Normalized, options: EventOptions) -> Vec<ExchangeEvent> {
    let mut mapper = EventMapper::new(normalized.meta.provider, options);
    let mut events = Vec::new();
    mapper.items(&mut normalized.items.clone(), &normalized.meta, &mut events);
    mapper.finish(&normalized.meta, &mut events);
    events
}

/// A random UUID v4 from the operating system's generator.
pub(crate) fn new_run_id() -> String {
    let mut bytes = [0u8; 16];
    let random = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes));
    if random.is_err() {
        // No /dev/urandom: time and process id still make a run id unique in practice.
        let nanos = Timestamp::now().unix_nanos().unwrap_or(0) as u128;
        bytes = (nanos ^ (u128::from(std::process::id()) << 64)).to_le_bytes();
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_are_uuid_v4() {
        let id = new_run_id();
        assert_eq!(id.len(), 36);
        assert_eq!(&id[14..15], "4");
        assert!(matches!(&id[19..20], "8" | "9" | "a" | "b"));
        assert_ne!(id, new_run_id());
    }
}
