//! What the page says about a run at a glance: its metadata read from a `*.completed`
//! result ([`meta`], the one place this module reads run metadata), and the facts gathered
//! from its events ([`Facts`]: start, end, title, the providers and models of its agents).
//!
//! The metadata is the [`RunMeta`] a normalized run's `run.completed` carries, or an agent
//! step's `step.completed` in a workflow run, read typed ([`RunMeta::of`]); anything that is
//! not such metadata gives `None`. Counting (tokens, cost, tools) is the readers'
//! [`Stats`](crate::read::Stats), not this file's.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::model::{
    Block, EventType, ExchangeEvent, Payload, RunMeta, RunStatus, StepPayload, StopKind,
};

/// The run metadata of one agent run, as much of it as the page shows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(super) struct Meta {
    pub(super) provider: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) model: Option<String>,
    /// `usage`, by kind.
    pub(super) tokens: Tokens,
    /// The cost the provider reported; `None` when it reported none (never a made-up 0).
    pub(super) cost_usd: Option<f64>,
    pub(super) status: RunStatus,
    /// The provider's stop reason, normalized (`end_turn`, `max_tokens`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) stop: Option<StopKind>,
    /// The errors the provider reported: (message, fatal).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) errors: Vec<(String, bool)>,
    /// What the adapter kept out of the blocks: records by fate, and fields it did not know.
    pub(super) kept_out: KeptOut,
}

/// Token counts by kind (`usage` of the run metadata).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub(super) struct Tokens {
    pub(super) input: u64,
    pub(super) output: u64,
    pub(super) cache_read: u64,
    pub(super) cache_write: u64,
    pub(super) reasoning: u64,
}

/// The input records an adapter did not turn into blocks, counted (its input report).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub(super) struct KeptOut {
    /// Records kept verbatim as passthrough metadata (those over the metadata's limit
    /// included).
    pub(super) passthrough: u64,
    /// Records dropped on purpose (ephemeral copies another record repeats).
    pub(super) ignored: u64,
    /// Records read but unusable.
    pub(super) skipped: u64,
    /// Records that could not be read at all.
    pub(super) unreadable: u64,
    /// Field names the adapter did not know, with the number of records each was in.
    pub(super) unknown_fields: Vec<(String, u64)>,
}

/// The run metadata in a `*.completed` step payload; `None` for any other result.
pub(super) fn meta(step: &StepPayload) -> Option<Meta> {
    let meta = RunMeta::of(step)?;
    let mut kept_out = KeptOut {
        unreadable: meta.report.unreadable,
        ..KeptOut::default()
    };
    let mut unknown = BTreeMap::<String, u64>::new();
    for counts in meta.report.records.values() {
        kept_out.passthrough += counts.passthrough;
        kept_out.ignored += counts.ignored;
        kept_out.skipped += counts.skipped;
        for (field, n) in &counts.unknown_fields {
            *unknown.entry(field.clone()).or_default() += n;
        }
    }
    kept_out.unknown_fields = unknown.into_iter().collect();
    let usage = meta.usage;
    Some(Meta {
        provider: meta.provider.as_str(),
        version: meta.provider_version,
        model: meta.model,
        tokens: Tokens {
            input: usage.input_tokens,
            output: usage.output_tokens,
            cache_read: usage.cache_read_tokens,
            cache_write: usage.cache_write_tokens,
            reasoning: usage.reasoning_tokens,
        },
        cost_usd: meta.cost_usd,
        status: meta.status,
        stop: meta.stop_reason.map(|stop| stop.kind),
        errors: meta
            .errors
            .into_iter()
            .map(|e| (e.message, e.fatal))
            .collect(),
        kept_out,
    })
}

/// What a run's events say about it, gathered one event at a time.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Facts {
    /// The time of its first event, as written.
    pub(super) start: Option<String>,
    /// The time of its `run.completed`, as written.
    pub(super) end: Option<String>,
    /// The first line of its first prompt.
    pub(super) title: Option<String>,
    /// The providers and models of its agents (the run's own, and its agent steps').
    pub(super) providers: BTreeSet<String>,
    pub(super) models: BTreeSet<String>,
    /// Whether any of them reported a cost.
    pub(super) cost_known: bool,
    /// Its own run metadata (`run.completed`), when it has one.
    pub(super) meta: Option<Meta>,
}

/// The longest title kept, in characters.
const TITLE_CHARS: usize = 120;

impl Facts {
    /// Notes one event; returns the metadata of its result, when it is a `*.completed`
    /// carrying run metadata.
    pub(super) fn see(&mut self, event: &ExchangeEvent) -> Option<Meta> {
        if self.start.is_none() {
            self.start = Some(event.timestamp.as_str().to_owned());
        }
        match (&event.event_type, &event.payload) {
            (EventType::MessageUser, Payload::Message(message)) if self.title.is_none() => {
                self.title = message.blocks.iter().find_map(|block| match &block.block {
                    Block::Text {
                        text,
                        system_prompt: false,
                        ..
                    } => title(text),
                    _ => None,
                });
                None
            }
            (EventType::RunCompleted | EventType::StepCompleted, Payload::Step(step)) => {
                if event.event_type == EventType::RunCompleted {
                    self.end = Some(event.timestamp.as_str().to_owned());
                }
                let meta = meta(step)?;
                self.providers.insert(meta.provider.to_owned());
                self.models.extend(meta.model.clone());
                self.cost_known |= meta.cost_usd.is_some();
                if event.event_type == EventType::RunCompleted {
                    self.meta = Some(meta.clone());
                }
                Some(meta)
            }
            _ => None,
        }
    }
}

/// The first non-blank line of a prompt, cut to [`TITLE_CHARS`].
fn title(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|line| !line.is_empty())?;
    let mut title: String = line.chars().take(TITLE_CHARS).collect();
    if line.chars().nth(TITLE_CHARS).is_some() {
        title.push('…');
    }
    Some(title)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn run_metadata_is_read_and_anything_else_is_not() {
        let step = |result: serde_json::Value| {
            let mut step = StepPayload::new("claude", crate::model::StepKind::Agent);
            step.result = result;
            step
        };
        let result = json!({
            "provider": "claude", "provider_version": "2.1.3", "model": "claude-sonnet-4-6",
            "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_tokens": 100,
                      "cache_write_tokens": 7, "reasoning_tokens": 0},
            "cost_usd": 0.25, "status": "completed",
            "stop_reason": {"kind": "end_turn", "raw": "end_turn"},
            "errors": [{"message": "rate limited", "fatal": false, "line": 3}],
            "report": {"records": {
                "system/init": {"seen": 1, "mapped": 1, "unknown_fields": {"plugins": 1}},
                "rate_limit_event": {"seen": 2, "passthrough": 2},
                "stream_event": {"seen": 9, "ignored": 9, "unknown_fields": {"plugins": 2}}
            }, "unreadable": 1}
        });
        let meta = meta(&step(result)).unwrap();
        assert_eq!(
            meta,
            Meta {
                provider: "claude",
                version: Some("2.1.3".into()),
                model: Some("claude-sonnet-4-6".into()),
                tokens: Tokens {
                    input: 10,
                    output: 5,
                    cache_read: 100,
                    cache_write: 7,
                    reasoning: 0
                },
                cost_usd: Some(0.25),
                status: RunStatus::Completed,
                stop: Some(StopKind::EndTurn),
                errors: vec![("rate limited".into(), false)],
                kept_out: KeptOut {
                    passthrough: 2,
                    ignored: 9,
                    skipped: 0,
                    unreadable: 1,
                    unknown_fields: vec![("plugins".into(), 3)],
                },
            }
        );
        assert_eq!(super::meta(&step(json!({"status": "completed"}))), None);
        assert_eq!(super::meta(&step(json!("done"))), None);
        assert_eq!(super::meta(&step(serde_json::Value::Null)), None);
        let no_cost = super::meta(&step(json!({"provider": "codex", "usage": {}}))).unwrap();
        assert_eq!(no_cost.cost_usd, None);
    }

    #[test]
    fn a_title_is_the_first_line_of_the_prompt_cut_short() {
        assert_eq!(
            title("\n  Review main.go \nthen"),
            Some("Review main.go".into())
        );
        assert_eq!(title(" \n "), None);
        let long = "x".repeat(130);
        assert_eq!(title(&long).unwrap().chars().count(), TITLE_CHARS + 1);
    }
}
