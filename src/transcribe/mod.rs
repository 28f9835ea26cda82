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
//! Rooms: `mapper.rs` (the mapping, its options and run ids), `sinks.rs` (the [`EventSink`]
//! trait and the two sinks that number `seq`); this file joins them into the
//! [`Transcriber`].
//!
//! This module owns the mapping and the sink seam. It must not know a provider's dialect
//! (that is [`normalize`](crate::normalize)'s) nor how a line is written to disk (that is
//! [`record`](crate::record)'s); it imports `model`, `normalize` and `record`, and nothing
//! above them.

pub mod mapper;
pub mod sinks;

use crate::model::{ContentBlock, ExchangeEvent};
use crate::normalize::{Normalized, Normalizer, Options, Output, ProcessEnd, Provider, RunMeta};

pub(crate) use mapper::new_run_id;
pub use mapper::{AGENT_PATH, Clock, EventMapper, EventOptions};
pub use sinks::{EventSink, IfExists, JsonlSink, RecordingError, RecordingSink};

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
