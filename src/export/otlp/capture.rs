//! The content capture setting of the GenAI conventions,
//! `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`: where message content goes, if
//! anywhere.
//!
//! This file owns reading the setting's value. It must not read the environment itself (a
//! front end passes the value) nor map content (`map.rs`).

/// Where message content goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Capture {
    /// Nowhere: the conventions' default.
    #[default]
    NoContent,
    /// On spans, as attributes.
    SpanOnly,
    /// In a `gen_ai.client.inference.operation.details` event on each `chat` span.
    EventOnly,
    /// Both.
    SpanAndEvent,
}

/// The variable the setting is read from.
pub const CAPTURE_VARIABLE: &str = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

impl Capture {
    /// The setting a value names, read case-insensitively; `None` for any other value
    /// (`true` and `false` included), which the conventions fail closed to `NO_CONTENT`
    /// with a warning.
    pub fn parse(value: &str) -> Option<Capture> {
        Some(match value.to_ascii_uppercase().as_str() {
            "NO_CONTENT" => Capture::NoContent,
            "SPAN_ONLY" => Capture::SpanOnly,
            "EVENT_ONLY" => Capture::EventOnly,
            "SPAN_AND_EVENT" => Capture::SpanAndEvent,
            _ => return None,
        })
    }

    /// Whether content goes on spans.
    pub fn spans(self) -> bool {
        matches!(self, Capture::SpanOnly | Capture::SpanAndEvent)
    }

    /// Whether content goes into events.
    pub fn events(self) -> bool {
        matches!(self, Capture::EventOnly | Capture::SpanAndEvent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_read_case_insensitively_and_anything_else_is_refused() {
        assert_eq!(
            Capture::parse("span_and_event"),
            Some(Capture::SpanAndEvent)
        );
        assert_eq!(Capture::parse("EVENT_ONLY"), Some(Capture::EventOnly));
        assert_eq!(Capture::parse("true"), None);
        assert!(Capture::SpanOnly.spans() && !Capture::SpanOnly.events());
    }
}
