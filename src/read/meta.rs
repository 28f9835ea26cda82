//! A run's metadata as a reader sees it: the one place that reads the JSON a writer put in
//! `run.completed` (and in the `step.completed` of a workflow's agent steps).
//!
//! An agent's metadata ([`RunMeta`](crate::normalize::RunMeta) on the writing side) is
//! read here, field by field, by [`Meta`]; [`Stats`](super::Stats), the run
//! [`tree`](super::tree) and the run [`summary`](super::summary) all ask it, so that a
//! change of the format is made once. It owns reading those fields and must not decide
//! anything from them (what a duration or a cost is worth is the summary's business).
//! Readers are tolerant: a field of the wrong type is as good as absent.

use serde_json::Value;

use crate::model::{EventType, ExchangeEvent, Payload, StepKind};

/// An agent's metadata, borrowed from the event that carries it.
#[derive(Clone, Copy, Debug)]
pub struct Meta<'a>(&'a Value);

/// Tokens by kind, as in the run metadata's `usage`: the same five kinds for every provider
/// (see [the wire format](crate::model#token-usage)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Tokens {
    /// Uncached input tokens.
    pub input: u64,
    /// Output tokens, reasoning included.
    pub output: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read: u64,
    /// Input tokens written to the prompt cache.
    pub cache_write: u64,
    /// Output tokens spent on reasoning (part of `output`).
    pub reasoning: u64,
}

impl Tokens {
    /// Adds another count to this one.
    pub fn add(&mut self, other: &Tokens) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
        self.reasoning += other.reasoning;
    }

    /// The whole prompt: uncached input, cache reads and cache writes. This is what the
    /// OpenTelemetry GenAI conventions call `gen_ai.usage.input_tokens`, and what `axt
    /// stats`, `axt ls` and `axt show` print as input.
    pub fn prompt(&self) -> u64 {
        self.input + self.cache_read + self.cache_write
    }

    /// Every token counted: the whole prompt and the output.
    pub fn total(&self) -> u64 {
        self.prompt() + self.output
    }

    /// Whether nothing was counted.
    pub fn is_zero(&self) -> bool {
        *self == Tokens::default()
    }
}

impl<'a> Meta<'a> {
    /// The agent metadata `event` carries: the result of a `run.completed`, or of the
    /// `step.completed` of an agent step, when that result is an agent's metadata (it names
    /// its provider). A writer puts an agent's metadata in one place, never both, so summing
    /// over every event this accepts counts each agent once.
    pub fn of(event: &'a ExchangeEvent) -> Option<Meta<'a>> {
        let Payload::Step(step) = &event.payload else {
            return None;
        };
        let carries = match event.event_type {
            EventType::RunCompleted => true,
            EventType::StepCompleted => step.kind == StepKind::Agent,
            _ => false,
        };
        (carries && step.result.get("provider").is_some_and(Value::is_string))
            .then_some(Meta(&step.result))
    }

    /// The metadata as JSON, for what this view does not read.
    pub fn json(&self) -> &'a Value {
        self.0
    }

    fn str(&self, key: &str) -> Option<&'a str> {
        self.0.get(key).and_then(Value::as_str)
    }

    /// The provider (`claude`, `codex`, ...).
    pub fn provider(&self) -> Option<&'a str> {
        self.str("provider")
    }

    /// The model that answered (the last one seen).
    pub fn model(&self) -> Option<&'a str> {
        self.str("model").filter(|m| !m.is_empty())
    }

    /// `completed`, `failed` or `incomplete`, as the output said.
    pub fn status(&self) -> Option<&'a str> {
        self.str("status")
    }

    /// The first fatal error's message, else the first error's.
    pub fn error(&self) -> Option<&'a str> {
        let errors = self.0.get("errors")?.as_array()?;
        let message = |e: &'a Value| e.get("message").and_then(Value::as_str);
        errors
            .iter()
            .find(|e| e.get("fatal").and_then(Value::as_bool) == Some(true))
            .and_then(message)
            .or_else(|| errors.iter().find_map(message))
    }

    /// Token usage.
    pub fn tokens(&self) -> Tokens {
        let usage = &self.0["usage"];
        let count = |key: &str| usage[key].as_u64().unwrap_or(0);
        Tokens {
            input: count("input_tokens"),
            output: count("output_tokens"),
            cache_read: count("cache_read_tokens"),
            cache_write: count("cache_write_tokens"),
            reasoning: count("reasoning_tokens"),
        }
    }

    /// The cost in US dollars the provider reported, if it did.
    pub fn reported_cost_usd(&self) -> Option<f64> {
        self.0.get("cost_usd").and_then(Value::as_f64)
    }

    /// The run's duration as the provider measured it.
    pub fn reported_duration_ms(&self) -> Option<u64> {
        self.0.get("duration_ms").and_then(Value::as_u64)
    }

    /// The first and latest times the provider stamped on its records, if it stamped any:
    /// then the events carry the provider's times, and their differences are durations.
    pub fn source_times(&self) -> Option<(&'a str, &'a str)> {
        let times = self.0.get("source_times")?;
        Some((times.get("first")?.as_str()?, times.get("last")?.as_str()?))
    }

    /// Whether the run was imported from a log (`import`: the importer's account), not
    /// normalized from an agent's output: its `duration_ms` is then the span of the log's
    /// stamps.
    pub fn imported(&self) -> bool {
        self.0.get("import").is_some_and(Value::is_object)
    }

    /// The working directory the run says it ran in: an import's (`import.cwd`, from the
    /// session log), else Claude Code's `system/init` record's.
    pub fn cwd(&self) -> Option<&'a str> {
        if let Some(cwd) = self.0.pointer("/import/cwd").and_then(Value::as_str) {
            return Some(cwd);
        }
        self.0
            .get("passthrough")?
            .as_array()?
            .iter()
            .find(|p| p.get("kind").and_then(Value::as_str) == Some("system/init"))
            .and_then(|p| p.pointer("/raw/cwd")?.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ExchangeEvent, StepPayload};
    use serde_json::json;

    fn completed(kind: StepKind, event_type: EventType, result: Value) -> ExchangeEvent {
        let payload = Payload::Step(StepPayload {
            result,
            ..StepPayload::new("x", kind)
        });
        ExchangeEvent::new("r", event_type, "", payload)
    }

    #[test]
    fn only_an_agents_metadata_is_metadata() {
        let meta = json!({"provider": "codex", "usage": {"input_tokens": 3, "cache_read_tokens": 4, "output_tokens": 5}});
        let run = completed(StepKind::Agent, EventType::RunCompleted, meta.clone());
        let step = completed(StepKind::Agent, EventType::StepCompleted, meta.clone());
        let command = completed(StepKind::Command, EventType::StepCompleted, meta);
        let workflow = completed(
            StepKind::Workflow,
            EventType::RunCompleted,
            json!({"answer": 42}),
        );
        assert!(Meta::of(&run).is_some());
        assert!(Meta::of(&step).is_some());
        assert!(Meta::of(&command).is_none());
        assert!(Meta::of(&workflow).is_none());
        let tokens = Meta::of(&run).unwrap().tokens();
        assert_eq!((tokens.prompt(), tokens.total()), (7, 12));
    }

    #[test]
    fn the_working_directory_comes_from_an_import_or_claudes_init() {
        let init = json!({"provider": "claude", "passthrough": [
            {"kind": "system/init", "line": 1, "raw": {"cwd": "/src/app"}}]});
        let event = completed(StepKind::Agent, EventType::RunCompleted, init);
        assert_eq!(Meta::of(&event).unwrap().cwd(), Some("/src/app"));
        let import = json!({"provider": "claude", "import": {"cwd": "/src/other"}});
        let event = completed(StepKind::Agent, EventType::RunCompleted, import);
        assert_eq!(Meta::of(&event).unwrap().cwd(), Some("/src/other"));
    }

    #[test]
    fn the_fatal_error_is_the_one_that_says_why() {
        let meta = json!({"provider": "codex", "errors": [
            {"message": "reconnecting", "fatal": false, "line": 2},
            {"message": "usage limit", "fatal": true, "line": 5}]});
        let event = completed(StepKind::Agent, EventType::RunCompleted, meta);
        assert_eq!(Meta::of(&event).unwrap().error(), Some("usage limit"));
    }
}
