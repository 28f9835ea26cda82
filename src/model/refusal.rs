//! Why the strict writer refuses a value: one wording, whether the event is written by
//! `encode_event` (the direct writer) or through the model's `Serialize` impls.
//!
//! A leaf: it takes names and texts, not the model's types, so the files that refuse
//! (`block.rs`, `payload.rs`, `event.rs`, `write.rs`) can all import it without it importing
//! any of them back.

pub(super) fn event_type(name: &str) -> String {
    format!("event type {name:?} is not in the vocabulary")
}

pub(super) fn unknown_block_type(name: &str) -> String {
    format!("block type {name:?} is not in the vocabulary")
}

pub(super) fn malformed_block(reason: &str) -> String {
    format!("malformed block: {reason}")
}

pub(super) fn fidelity(value: &str) -> String {
    format!("fidelity {value:?} is not in the vocabulary (router, agent_emitted)")
}

pub(super) fn role(value: &str) -> String {
    format!("message role {value:?} is not in the vocabulary (user, assistant)")
}

/// `kind` is a [`PayloadKind`](super::PayloadKind)'s name.
pub(super) fn payload(kind: &str) -> String {
    format!(
        "a {kind} payload is not in the vocabulary; writers emit none, step, message or tool payloads"
    )
}

pub(super) fn empty_optional(field: &str) -> String {
    format!("optional field `{field}` is present but empty; use None")
}
