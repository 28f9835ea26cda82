//! A stored OpenCode message with its parts (`{"type": "message", "info", "parts"}`): how
//! OpenCode keeps a message in its storage (JSON files up to 1.1, `opencode.db` from 1.2),
//! serves it over its HTTP API and writes it in `opencode export` (`MessageV2.WithParts`).
//! The importer of OpenCode's store feeds one such record per message.
//!
//! * `info.role: "user"`: each `text` part is the user's text; one marked `synthetic` (what
//!   OpenCode wrote into the prompt itself: a file read for an `@` mention, a reminder) or
//!   `ignored` is kept as passthrough `opencode/synthetic-text`, since the user did not type
//!   it. Every other part of a user message (`file`, `agent`, `subtask`, ...) is kept as
//!   passthrough `opencode/part`: what was sent stays in the run.
//! * `info.role: "assistant"`: each part as the `parts` room maps it, exactly as the
//!   `run --format json` events that carry one; `step-finish` parts add their tokens and
//!   cost and give the stop reason. A message of an OpenCode before step parts existed
//!   (no `step-finish`) counts the message's own `tokens` and `cost` instead. Parts that make
//!   no block and say something (`file`, `patch`, `snapshot`, `agent`, `subtask`,
//!   `compaction`, `retry`, ...) are kept as passthrough `opencode/part`; `step-start` says
//!   nothing and is dropped.
//! * `info.error` (an aborted or failed reply: `{name, data{message}}`) is a run error that
//!   is not fatal: the session went on.
//! * `info.modelID` names the run's model (`providerID/modelID`), the first one seen.
//!
//! This room owns the message's shape; the parts' blocks are the `parts` room's.

use serde_json::Value;

use super::parts::{PartBlocks, Step, part_blocks, step_usage};
use super::{Diagnostic, Item, RunError, State};
use crate::model::{Block, Role, Timestamp};
use crate::normalize::framing::Record;
use crate::normalize::{Source, Usage};

impl State {
    /// One stored message and its parts.
    pub(super) fn message(
        &mut self,
        info: &Value,
        parts: &mut [Value],
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let text = |field: &str| info.get(field).and_then(Value::as_str);
        let message = text("id").map(str::to_owned);
        let created = info.get("time").and_then(|time| time.get("created"));
        if let Some(millis) = created.and_then(Value::as_i64) {
            let nanos = i128::from(millis) * 1_000_000;
            self.meta.saw_timestamp(Timestamp::from_unix_nanos(nanos));
        }
        if self.meta.session_id.is_none() {
            self.meta.session_id = text("sessionID").map(str::to_owned);
        }
        let user = text("role") == Some("user");
        if !user && self.meta.model.is_none() {
            self.meta.model = text("modelID").map(|model| match text("providerID") {
                Some(provider) => format!("{provider}/{model}"),
                None => model.to_owned(),
            });
        }
        let source = Source::record(record.line, record.offset);
        let mut stepped = false;
        for part in parts {
            let kind = part.get("type").and_then(Value::as_str).unwrap_or_default();
            let said = part.get("text").and_then(Value::as_str).unwrap_or_default();
            let flagged = |flag: &str| part.get(flag) == Some(&Value::Bool(true));
            match kind {
                "text" if flagged("synthetic") || flagged("ignored") => {
                    self.meta
                        .keep(record.line, "opencode/synthetic-text", || part.clone());
                }
                "text" if user => {
                    if !said.is_empty() {
                        items.push(Item::emitted(
                            Block::text(said),
                            Role::User,
                            message.clone(),
                            source,
                        ));
                    }
                }
                "step-start" => {}
                _ if user => self
                    .meta
                    .keep(record.line, "opencode/part", || part.clone()),
                _ => {
                    let step_finish = kind == "step-finish";
                    if step_finish {
                        stepped = true;
                        self.step_finished(Step::of(part));
                    }
                    match part_blocks(part) {
                        PartBlocks::None if !step_finish => {
                            self.meta
                                .keep(record.line, "opencode/part", || part.clone());
                        }
                        blocks => self.emit(blocks, message.clone(), record, items, diagnostics),
                    }
                }
            }
        }
        if !user && !stepped {
            self.unstepped(info);
        }
        if let Some(error) = info.get("error").filter(|e| !e.is_null()) {
            let message = (error.pointer("/data/message"))
                .or_else(|| error.get("message"))
                .and_then(Value::as_str)
                .map(str::to_owned)
                .unwrap_or_else(|| error.to_string());
            self.meta.errors.push(RunError {
                message: match error.get("name").and_then(Value::as_str) {
                    Some(name) => format!("{name}: {message}"),
                    None => message,
                },
                fatal: false,
                line: record.line,
            });
        }
    }

    /// An assistant message without step parts: its own tokens and cost.
    fn unstepped(&mut self, info: &Value) {
        if let Some(usage) = step_usage(info) {
            self.usage.get_or_insert_with(Usage::default).add(&usage);
        }
        if let Some(cost) = info.get("cost").and_then(Value::as_f64) {
            self.meta.cost_usd = Some(self.meta.cost_usd.unwrap_or(0.0) + cost);
        }
    }
}
