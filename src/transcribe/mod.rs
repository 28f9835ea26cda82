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
//! **A caller that knows more than the bytes** (an importer reading records out of a log)
//! says so instead of making up provider records: [`Transcriber::push_record`] takes a
//! record at the caller's line and offset, [`Transcriber::keep`] keeps what is no provider
//! record as passthrough, and [`Transcriber::finish_given`] ends the run with the caller's
//! metadata ([`Given`]), a log without a terminal record included.
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

use std::ops::Range;

use serde_json::Value;

use crate::model::{ContentBlock, ExchangeEvent, ProcessEnd, Provider, RunMeta, fit_event};
use crate::normalize::{
    Diagnostic, DiagnosticKind, Given, Normalized, Normalizer, Options, Output,
};

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
    /// Where the items last handed to the mapper begin (line, offset): an event cut to fit
    /// a line is reported there (the run's closing events at the last items').
    place: (u64, u64),
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
            place: (1, 0),
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

    /// Feeds one whole record (without its line feed) picked out of a larger input, at the
    /// caller's `line` and byte `offset` ([`Normalizer::push_record`]): an importer's
    /// diagnostics, passthrough and errors then name the file's lines with no remapping.
    pub fn push_record<S: EventSink + ?Sized>(
        &mut self,
        bytes: &[u8],
        line: u64,
        offset: u64,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        self.normalizer
            .push_record(bytes, line, offset, &mut self.output);
        self.deliver(sink)
    }

    /// Feeds a record the caller made to stand for `span` of its input, at the caller's
    /// `line` ([`Normalizer::push_made_record`]): every position reported for it is within
    /// the caller's line, whatever the record's length.
    pub fn push_made_record<S: EventSink + ?Sized>(
        &mut self,
        bytes: &[u8],
        line: u64,
        span: Range<u64>,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        self.normalizer
            .push_made_record(bytes, line, span, &mut self.output);
        self.deliver(sink)
    }

    /// Keeps `raw` as passthrough of `kind` from the caller's `line`: what the caller knows
    /// of the run that is no provider record ([`Normalizer::keep`]).
    pub fn keep(&mut self, line: u64, kind: &str, raw: Value) {
        self.normalizer.keep(line, kind, raw);
    }

    /// Ends the input with what the caller knows of the run ([`Given`]: session, version,
    /// its own account, and whether the input is complete without a terminal record), and
    /// returns the run's final metadata as `run.completed` carries it.
    pub fn finish_given<S: EventSink + ?Sized>(
        &mut self,
        given: Given,
        sink: &mut S,
    ) -> Result<RunMeta, S::Error> {
        if given.complete {
            self.normalizer.complete();
        }
        self.normalizer.finish(&mut self.output);
        self.deliver(sink)?;
        let mut meta = self.normalizer.meta().clone();
        given.apply(&mut meta);
        self.mapper.finish(&meta, &mut self.events);
        self.deliver(sink)?;
        Ok(meta)
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
        // The events of these items are reported at the first one's record: the mapper
        // groups items into events, and the first record is where the first event begins.
        if let Some(item) = self.output.items.first() {
            self.place = (item.source.line, item.source.offset);
        }
        self.mapper
            .items(&mut self.output.items, meta, &mut self.events);
        self.output
            .diagnostics
            .drain(..)
            .try_for_each(|d| sink.diagnostic(d))?;
        let (line, offset) = self.place;
        self.events.drain(..).try_for_each(|mut event| {
            // Every writer of the transcript would refuse a line over its limits, and every
            // reader skip it: what does not fit is cut here, where it can be said.
            let cuts = fit_event(&mut event);
            if !cuts.is_empty() {
                let cuts: Vec<String> = cuts.iter().map(ToString::to_string).collect();
                let message = format!(
                    "the {} event did not fit a transcript line and was cut (the event marks \
                     where): {}",
                    event.event_type,
                    cuts.join("; ")
                );
                sink.diagnostic(Diagnostic::new(
                    DiagnosticKind::OversizeCut,
                    line,
                    offset,
                    message,
                ))?;
            }
            sink.event(event)
        })
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{EventOptions, EventSink, Transcriber};
    use crate::model::{ExchangeEvent, Provider, RunStatus};
    use crate::normalize::{Diagnostic, DiagnosticKind, Given, Options};

    #[derive(Default)]
    struct Collect {
        events: Vec<ExchangeEvent>,
        diagnostics: Vec<Diagnostic>,
    }

    impl EventSink for Collect {
        type Error = std::convert::Infallible;
        fn event(&mut self, event: ExchangeEvent) -> Result<(), Self::Error> {
            self.events.push(event);
            Ok(())
        }
        fn diagnostic(&mut self, diagnostic: Diagnostic) -> Result<(), Self::Error> {
            self.diagnostics.push(diagnostic);
            Ok(())
        }
    }

    /// An importer's three inputs: records at the file's positions, what it keeps itself,
    /// and the end it knows. No provider record is made up for any of them.
    #[test]
    fn a_caller_gives_positions_passthrough_and_the_run_s_end() {
        let mut transcriber = Transcriber::new(
            Provider::Claude,
            Options::default(),
            EventOptions::default(),
        );
        let mut sink = Collect::default();
        let user = json!({"type": "user", "message": {"role": "user", "content": "hi"},
            "sessionId": "s", "uuid": "u1", "parentUuid": null});
        let bytes = serde_json::to_vec(&user).unwrap();
        transcriber.push_record(&bytes, 7, 900, &mut sink).unwrap();
        transcriber.keep(
            9,
            "axt-import/compact-summary",
            json!({"summary": "so far"}),
        );
        // Not valid JSON: its diagnostic names the caller's line, and the offset of the
        // error's byte counted from the caller's offset.
        transcriber
            .push_record(b"{torn", 12, 2000, &mut sink)
            .unwrap();
        let mut import = serde_json::Map::new();
        import.insert("format".into(), "claude-code-session".into());
        let given = Given {
            provider_version: Some("2.1.0".into()),
            import: Some(import.clone()),
            complete: true,
            duration_ms: Some(1500),
            ..Given::default()
        };
        let meta = transcriber.finish_given(given, &mut sink).unwrap();
        let places: Vec<_> = sink
            .diagnostics
            .iter()
            .map(|d| (d.line, d.offset))
            .collect();
        assert_eq!(places, [(12, 2001)], "{:?}", sink.diagnostics);
        assert_eq!(meta.status, RunStatus::Completed);
        assert_eq!(meta.duration_ms, Some(1500));
        assert_eq!(meta.session_id.as_deref(), Some("s"));
        assert_eq!(meta.provider_version.as_deref(), Some("2.1.0"));
        assert_eq!(meta.import, Some(import));
        assert_eq!(meta.passthrough.len(), 1);
        assert_eq!(meta.passthrough[0].line, 9);
        assert_eq!(
            meta.report.total(),
            2,
            "kept passthrough is no input record"
        );
    }

    /// Found by the `import_claude_code` fuzz target: a record the importer made (a line of
    /// the simplified format rewritten into stream-json) is longer than the line it stands
    /// for, and its positions were counted in its own bytes: a column inside it, and the
    /// missing terminal after it, named bytes past the end of the file.
    #[test]
    fn a_made_record_s_positions_are_its_line_s_whatever_its_length() {
        let mut transcriber = Transcriber::new(
            Provider::Claude,
            Options::default(),
            EventOptions::default(),
        );
        let mut sink = Collect::default();
        // Line 2 of the caller's file, bytes 31..66: made into a record of 83 bytes whose
        // `stop_reason` is no string (an unexpected shape, at column 73 of the record).
        let made = br#"{"type":"result","subtype":"success","is_error":false,"stop_reason":false}"#;
        assert_ne!(made.len(), 35);
        transcriber
            .push_made_record(made, 2, 31..66, &mut sink)
            .unwrap();
        transcriber.finish(&mut sink).unwrap();
        let places: Vec<_> = sink
            .diagnostics
            .iter()
            .map(|d| (d.kind, d.line, d.offset))
            .collect();
        assert_eq!(
            places,
            [
                (DiagnosticKind::UnexpectedShape, 2, 31),
                (DiagnosticKind::MissingTerminal, 2, 66),
                // Nothing of the input was recognized: said at its first record.
                (DiagnosticKind::UnrecognizedInput, 2, 31),
            ],
            "{:#?}",
            sink.diagnostics
        );
    }
}
