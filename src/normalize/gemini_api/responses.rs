//! A response, whole or chunk by chunk: when one begins and ends, its candidates' parts
//! (assembled by `parts.rs`), their finish, their other fields kept, and its usage.
//!
//! This file owns a response's life. What a part becomes is `parts.rs`'s business; handing
//! a block out is `State::deliver`'s.

use serde_json::Value;

use super::parts::{Candidate, Out};
use super::wire::{Counts, Wire, finish_reason};
use super::{Response, State};
use crate::model::{Role, StopKind, StopReason};
use crate::normalize::framing::Record;
use crate::normalize::lenient::Slot;
use crate::normalize::{Diagnostic, Item};

impl State {
    /// One response body or stream chunk.
    pub(super) fn chunk(
        &mut self,
        wire: Wire<'_>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        // The id and the model are copied only where they change: a stream's every chunk
        // repeats them.
        let id = wire.response_id.as_deref();
        let has_parts = wire
            .candidates
            .as_ref()
            .is_some_and(|candidates| candidates.iter().any(|c| c.content.is_some()));
        let next = match &self.response {
            Some(current) => match (&current.id, id) {
                (Some(current), Some(id)) => current != id,
                _ => current.finished && has_parts,
            },
            None => false,
        };
        if next {
            self.end_response("the next response started", items, diagnostics);
        }
        if self.response.is_none() {
            self.begin(id.map(str::to_owned));
        }
        if let Some(model) = wire.model_version.as_deref().filter(|m| !m.is_empty())
            && self.meta.model.as_deref() != Some(model)
        {
            self.meta.model = Some(model.to_owned());
        }
        if let Some(time) = &wire.create_time {
            self.meta.saw_time(time);
        }
        let line = record.span.line;
        let response = self.response.as_mut().expect("begun above");
        if response.id.is_none() {
            response.id = id.map(str::to_owned);
        }
        if let Some(Slot::Read(usage)) = wire.usage {
            response.usage = usage.counts();
            usage.keep_in(&mut self.meta.raw_usage, &mut self.usage_members);
        }
        let mut blocked = None;
        for (name, value) in [
            ("promptFeedback", wire.prompt_feedback),
            ("modelStatus", wire.model_status),
        ] {
            let Some(value) = value.filter(|v| !v.is_null()) else {
                continue;
            };
            if name == "promptFeedback" {
                blocked = value
                    .get("blockReason")
                    .or_else(|| value.get("block_reason"))
                    .map(|reason| match reason {
                        Value::String(text) => text.clone(),
                        other => other.to_string(),
                    });
            }
            if response.kept.get(name) != Some(&value) {
                response.kept.insert(name.to_owned(), value.clone());
                self.meta.keep(line, name, || value);
            }
        }
        for (position, candidate) in wire.candidates.into_iter().flatten().enumerate() {
            let index = candidate.index.unwrap_or(position as u64);
            let mut out = Out::default();
            let mut kept = Vec::new();
            let response = self.response.as_mut().expect("begun above");
            let slot = match response.candidates.iter().position(|(i, _)| *i == index) {
                Some(slot) => slot,
                None => {
                    response.candidates.push((index, Candidate::default()));
                    response.candidates.len() - 1
                }
            };
            let state = &mut response.candidates[slot].1;
            let named_calls = &mut self.named_calls;
            for part in candidate.content.into_iter().flat_map(|c| c.parts) {
                state.part(
                    part,
                    record.span,
                    &mut |name| State::next_id(named_calls, name),
                    &mut out,
                );
            }
            for (field, value) in candidate.rest {
                if state.kept.get(&field) != Some(&value) {
                    state.kept.insert(field.clone(), value.clone());
                    kept.push((format!("candidate/{field}"), value));
                }
            }
            let finish = candidate.finish_reason.map(|reason| {
                state.close(&mut out);
                state.finished = true;
                let (kind, raw) = finish_reason(&reason);
                let kind = match kind {
                    StopKind::EndTurn if state.made_calls => StopKind::ToolUse,
                    kind => kind,
                };
                StopReason { kind, raw }
            });
            if !out.blocks.is_empty() {
                // The response's id, set above: copied only for the blocks that carry it.
                let message_id = self.response.as_ref().and_then(|r| r.id.clone());
                for made in out.blocks {
                    self.deliver(made, Role::Assistant, &message_id, items, diagnostics);
                }
            }
            self.unknown(out.unknown, "part/", record.span, diagnostics);
            for (kind, value) in kept {
                self.meta.keep(line, &kind, || value);
            }
            if let Some(stop) = finish {
                self.meta.stop_reason = Some(stop);
                if let Some(response) = &mut self.response {
                    response.finished = true;
                }
                self.completed();
            }
        }
        if let Some(reason) = blocked {
            self.meta.stop_reason = Some(StopReason {
                kind: StopKind::Refusal,
                raw: reason,
            });
            if let Some(response) = &mut self.response {
                response.finished = true;
            }
            self.completed();
        }
    }

    /// A response starts: a status that its end settles.
    fn begin(&mut self, id: Option<String>) {
        self.saw_response = true;
        if self.meta.status != crate::model::RunStatus::Failed {
            self.meta.status = crate::model::RunStatus::Incomplete;
        }
        self.response = Some(Response {
            id,
            usage: Counts::default(),
            candidates: Vec::new(),
            finished: false,
            kept: serde_json::Map::new(),
        });
    }
}
