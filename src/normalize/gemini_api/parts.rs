//! A candidate's parts, as a stream delivers them or a body holds them, into canonical blocks.
//!
//! Text arrives in pieces (each chunk of a stream carries the next ones as new parts), so
//! consecutive text parts of one kind (thought or not) are one block, handed out when a part
//! of another kind, the candidate's `finishReason`, the response's end or the input's end
//! closes it; a body's parts, already whole, go the same way. A function call, code and its
//! result are whole in their part.
//!
//! **Thought signatures.** Gemini puts the signature a replay must send back on the part it
//! belongs to: a thought (its summary), a function call (Gemini 3 signs the first call of
//! each step), or a text part (sometimes empty, at the end of a stream). On a thought it is
//! that thinking block's signature; on any other part it is a thinking block of its own,
//! empty and `redacted` (the reasoning it stands for is withheld), placed just before the
//! part's block: where a replay must put it back. A signature is never merged into another,
//! so none is dropped.
//!
//! This file owns that assembly. It must not decide when a response begins or ends (the
//! state does) nor pair results with calls (the state's `deliver` does).

use std::borrow::Cow;

use crate::normalize::json::{Borrowed, Tree};

use serde_json::{Map, Value, json};

use super::wire::{Part, outcome_ok};
use crate::model::Block;
use crate::normalize::Source;
use crate::normalize::messages_api::tool_blocks;

/// A run of text parts of one kind, still open.
pub(super) struct Run {
    thought: bool,
    text: String,
    signature: Option<String>,
    source: Source,
}

/// What one candidate has open, and what it did, within a response.
#[derive(Default)]
pub(super) struct Candidate {
    run: Option<Run>,
    /// The id given to the last `executableCode`, which its `codeExecutionResult` answers.
    last_code: Option<String>,
    /// It called a function: its `STOP` is a stop for tool use.
    pub(super) made_calls: bool,
    /// Its `finishReason` came.
    pub(super) finished: bool,
    /// The last value kept of each of its other fields (`safetyRatings`, ...).
    pub(super) kept: Map<String, Value>,
}

/// A block made of parts, with the input it came from.
pub(super) struct Made {
    pub(super) block: Block,
    pub(super) source: Source,
}

/// What reading a part produced: blocks, and parts of a kind axt has no form for.
#[derive(Default)]
pub(super) struct Out {
    pub(super) blocks: Vec<Made>,
    /// `(kind, part)` of each part kept as it came (`inlineData`, `fileData`, ...).
    pub(super) unknown: Vec<(String, Value)>,
}

impl Candidate {
    /// One part of this candidate, from the record spanning `source`. `next_id` names a call
    /// that has no id of its own.
    pub(super) fn part(
        &mut self,
        part: Part<'_>,
        source: Source,
        next_id: &mut dyn FnMut(&str) -> String,
        out: &mut Out,
    ) {
        let signature = part
            .thought_signature
            .map(Borrowed::into_owned)
            .filter(|s| !s.is_empty());
        if let Some(text) = part.text {
            self.text(text.0, part.thought == Some(true), signature, source, out);
            return;
        }
        self.close(out);
        if let Some(signature) = signature {
            out.blocks.push(signed(signature, source));
        }
        if let Some(call) = part.function_call {
            let name = call.name.map(Borrowed::into_owned).unwrap_or_default();
            let id = match call
                .id
                .map(Borrowed::into_owned)
                .filter(|id| !id.is_empty())
            {
                Some(id) => id,
                None => next_id(&name),
            };
            let args = call.args.unwrap_or_else(|| json!({}));
            self.made_calls = true;
            for block in tool_blocks(name, id, args, false, false) {
                out.blocks.push(Made { block, source });
            }
        } else if let Some(code) = part.executable_code {
            let id = next_id("code_execution");
            let language = code.language.map(|l| l.text().into_owned());
            let input = json!({"language": language, "code": code.code.unwrap_or_default()});
            self.last_code = Some(id.clone());
            for block in tool_blocks("code_execution".to_owned(), id, input, true, false) {
                out.blocks.push(Made { block, source });
            }
        } else if let Some(result) = part.code_execution_result {
            let tool_id = self.last_code.take().unwrap_or_default();
            let block = Block::ToolResult {
                tool_id,
                tool_content: Value::from(result.output.unwrap_or_default().into_owned()).into(),
                is_error: !outcome_ok(result.outcome.as_ref()),
                exit_code: None,
            };
            out.blocks.push(Made { block, source });
        } else if !part.rest.is_empty() || part.function_response.is_some() {
            // (A function's response is the client's, in a request: `bodies.rs` reads it.)
            let kept = match part.function_response {
                Some(response) => (
                    "functionResponse".to_owned(),
                    json!({"id": response.id, "name": response.name,
                        "response": response.response.map(Tree::into_value)}),
                ),
                None => (
                    part.rest.keys().next().cloned().unwrap_or_default(),
                    Value::Object(part.rest),
                ),
            };
            out.unknown.push(kept);
        }
    }

    /// A text part: the run it continues, or a new one.
    fn text(
        &mut self,
        text: Cow<'_, str>,
        thought: bool,
        signature: Option<String>,
        source: Source,
        out: &mut Out,
    ) {
        if !thought && signature.is_some() {
            self.close(out);
            out.blocks
                .push(signed(signature.clone().unwrap_or_default(), source));
        }
        let continues = self.run.as_ref().is_some_and(|run| {
            run.thought == thought && !(thought && run.signature.is_some() && signature.is_some())
        });
        if continues {
            let run = self.run.as_mut().expect("checked above");
            run.text.push_str(&text);
            run.source.end_line = source.end_line;
            if thought && signature.is_some() {
                run.signature = signature;
            }
            return;
        }
        self.close(out);
        if text.is_empty() && !thought {
            return;
        }
        self.run = Some(Run {
            thought,
            text: text.into_owned(),
            signature: signature.filter(|_| thought),
            source,
        });
    }

    /// Hands out the open run, if any.
    pub(super) fn close(&mut self, out: &mut Out) {
        let Some(run) = self.run.take() else {
            return;
        };
        let block = if run.thought {
            Block::Thinking {
                thinking: run.text,
                signature: run.signature,
                redacted: false,
            }
        } else {
            Block::text(run.text)
        };
        out.blocks.push(Made {
            block,
            source: run.source,
        });
    }

    /// Whether a run is open (a block the input may end inside).
    pub(super) fn is_open(&self) -> bool {
        self.run.is_some()
    }
}

/// A signature of its own, standing for withheld reasoning.
fn signed(signature: String, source: Source) -> Made {
    Made {
        block: Block::Thinking {
            thinking: String::new(),
            signature: Some(signature),
            redacted: true,
        },
        source,
    }
}
