//! A run's metadata as a reader sees it: which events carry an agent's metadata, and what
//! the readers make of the fields the typed [`RunMeta`] keeps as the writer gave them.
//!
//! The metadata itself is the model's ([`RunMeta`], read back with [`RunMeta::of`]);
//! [`Stats`](super::Stats), the run [`tree`](super::tree) and the run
//! [`summary`](super::summary) find it with [`agent_meta`] and read the rest here, so that
//! a reading is written once. This file decides nothing from the metadata (what a duration
//! or a cost is worth is the summary's and the cost rule's business).

use serde_json::Value;

use crate::model::{EventType, ExchangeEvent, Payload, RunMeta, StepKind};

/// The agent metadata `event` carries: the result of a `run.completed`, or of the
/// `step.completed` of an agent step, when that result is an agent's metadata (it names a
/// provider). A writer puts an agent's metadata in one place, never both, so summing over
/// every event this accepts counts each agent once.
pub fn agent_meta(event: &ExchangeEvent) -> Option<RunMeta> {
    let Payload::Step(step) = &event.payload else {
        return None;
    };
    let carries = match event.event_type {
        EventType::RunCompleted => true,
        EventType::StepCompleted => step.kind == StepKind::Agent,
        _ => false,
    };
    if !carries {
        return None;
    }
    RunMeta::of(step)
}

/// The first fatal error's message, else the first error's.
pub fn first_error(meta: &RunMeta) -> Option<&str> {
    let fatal = meta.errors.iter().find(|e| e.fatal);
    fatal
        .or(meta.errors.first())
        .map(|e| e.message.as_str())
        .filter(|m| !m.is_empty())
}

/// Whether the run was imported from a log (an importer's account in `import`), not
/// normalized from an agent's output: its `duration_ms` is then the span of the log's
/// stamps.
pub fn imported(meta: &RunMeta) -> bool {
    meta.import.is_some()
}

/// The working directory the run says it ran in: an import's (`import.cwd`, from the
/// session log), else Claude Code's `system/init` record's.
pub fn cwd(meta: &RunMeta) -> Option<&str> {
    if let Some(cwd) = meta
        .import
        .as_ref()
        .and_then(|import| import.get("cwd"))
        .and_then(Value::as_str)
    {
        return Some(cwd);
    }
    meta.passthrough
        .iter()
        .find(|p| p.kind == "system/init")
        .and_then(|p| p.raw.get("cwd")?.as_str())
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
        assert!(agent_meta(&run).is_some());
        assert!(agent_meta(&step).is_some());
        assert!(agent_meta(&command).is_none());
        assert!(agent_meta(&workflow).is_none());
        assert_eq!(agent_meta(&run).unwrap().usage.cache_read_tokens, 4);
    }

    #[test]
    fn the_working_directory_comes_from_an_import_or_claudes_init() {
        let init = json!({"provider": "claude", "passthrough": [
            {"kind": "system/init", "line": 1, "raw": {"cwd": "/src/app"}}]});
        let event = completed(StepKind::Agent, EventType::RunCompleted, init);
        assert_eq!(cwd(&agent_meta(&event).unwrap()), Some("/src/app"));
        let import = json!({"provider": "claude", "import": {"cwd": "/src/other"}});
        let event = completed(StepKind::Agent, EventType::RunCompleted, import);
        let meta = agent_meta(&event).unwrap();
        assert_eq!((cwd(&meta), imported(&meta)), (Some("/src/other"), true));
    }

    #[test]
    fn the_fatal_error_is_the_one_that_says_why() {
        let meta = json!({"provider": "codex", "errors": [
            {"message": "reconnecting", "fatal": false, "line": 2},
            {"message": "usage limit", "fatal": true, "line": 5}]});
        let event = completed(StepKind::Agent, EventType::RunCompleted, meta);
        assert_eq!(
            first_error(&agent_meta(&event).unwrap()),
            Some("usage limit")
        );
    }
}
