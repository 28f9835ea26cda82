//! Why the strict writer refuses a value: one wording, whether the event is written by
//! `encode_event` (the direct writer) or through the model's `Serialize` impls.

use super::block::UnrecognizedReason;
use super::payload::PayloadKind;

pub(super) fn event_type(name: &str) -> String {
    format!("event type {name:?} is not in the vocabulary")
}

pub(super) fn block(reason: &UnrecognizedReason) -> String {
    match reason {
        UnrecognizedReason::UnknownType(name) => {
            format!("block type {name:?} is not in the vocabulary")
        }
        UnrecognizedReason::Malformed(reason) => format!("malformed block: {reason}"),
    }
}

pub(super) fn fidelity(value: &str) -> String {
    format!("fidelity {value:?} is not in the vocabulary (router, agent_emitted)")
}

pub(super) fn role(value: &str) -> String {
    format!("message role {value:?} is not in the vocabulary (user, assistant)")
}

pub(super) fn payload(kind: PayloadKind) -> String {
    format!(
        "a {} payload is not in the vocabulary; writers emit none, step, message or tool payloads",
        kind.as_str()
    )
}

pub(super) fn empty_optional(field: &str) -> String {
    format!("optional field `{field}` is present but empty; use None")
}
