//! The seed's simplified event format: each line rewritten into the stream-json line it
//! stands for, so the Claude adapter reads it like any session log.
//!
//! This file owns that rewriting and nothing of the session graph (the format has none).

use serde_json::{Value, json};

use super::log::{Log, tasks, text_hash};
use super::thread::{Thread, made};
use crate::import::entries::EntryReader;
use crate::import::session::ImportError;

/// The seed's simplified format, rewritten line by line into stream-json lines.
pub(super) fn simplified_thread(log: &Log, run_id: &str) -> Result<Thread, ImportError> {
    let mut reader = EntryReader::open(&log.path)?;
    let mut feed = Vec::new();
    let mut calls = Vec::new();
    let mut pending: std::collections::VecDeque<String> = Default::default();
    let mut terminal: Option<(Option<Value>, Option<Value>, bool)> = None;
    let mut prompt = None;
    let mut generated = 0u64;
    for entry in &log.entries {
        let value = reader.value(&entry.range)?;
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        let line = if let Some(role) = value.get("role").and_then(Value::as_str) {
            let content = value.get("content").cloned().unwrap_or(Value::Null);
            if role == "user" && prompt.is_none() {
                prompt = content.as_str().map(text_hash);
            }
            if let Value::Array(blocks) = &content {
                for block in blocks {
                    if block.get("type").and_then(Value::as_str) == Some("tool_use")
                        && let Some(id) = block.get("id").and_then(Value::as_str)
                    {
                        pending.push_back(id.to_owned());
                    }
                }
            }
            let kind = if role == "assistant" {
                "assistant"
            } else {
                "user"
            };
            json!({"type": kind, "message": {"role": role, "content": content}})
        } else {
            match kind {
                "text" => json!({"type": "assistant", "message": {"role": "assistant",
                    "content": [{"type": "text", "text": value.get("text")}]}}),
                "tool_use" => {
                    let id = match value.get("id").and_then(Value::as_str) {
                        Some(id) => id.to_owned(),
                        None => {
                            generated += 1;
                            format!("axt-tool-{generated}")
                        }
                    };
                    pending.push_back(id.clone());
                    json!({"type": "assistant", "message": {"role": "assistant",
                        "content": [{"type": "tool_use", "id": id, "name": value.get("name"),
                            "input": value.get("input").cloned().unwrap_or(json!({}))}]}})
                }
                "tool_result" => {
                    let id = match value.get("tool_use_id").and_then(Value::as_str) {
                        Some(id) => {
                            pending.retain(|p| p != id);
                            id.to_owned()
                        }
                        None => pending.pop_front().unwrap_or_default(),
                    };
                    let content = value
                        .get("output")
                        .or(value.get("content"))
                        .cloned()
                        .unwrap_or(Value::Null);
                    json!({"type": "user", "message": {"role": "user",
                        "content": [{"type": "tool_result", "tool_use_id": id,
                            "content": content, "is_error": value.get("is_error")}]}})
                }
                "error" => {
                    let error = value.get("error").cloned().unwrap_or(Value::Null);
                    let message = match &error {
                        Value::Object(fields) => format!(
                            "{}: {}",
                            fields
                                .get("type")
                                .and_then(Value::as_str)
                                .unwrap_or("error"),
                            fields.get("message").and_then(Value::as_str).unwrap_or("")
                        ),
                        Value::String(text) => text.clone(),
                        other => other.to_string(),
                    };
                    json!({"type": "assistant", "error": message,
                        "message": {"role": "assistant", "content": []}})
                }
                "stop" | "result" => {
                    let slot = terminal.get_or_insert((None, None, true));
                    if kind == "stop" {
                        slot.0 = value.get("stop_reason").cloned();
                    } else {
                        slot.1 = value.get("result").cloned();
                    }
                    if value.get("success") == Some(&Value::Bool(false)) {
                        slot.2 = false;
                    }
                    continue;
                }
                _ => value.clone(),
            }
        };
        if line["type"] == "assistant"
            && let Some(Value::Array(blocks)) = line.pointer("/message/content")
        {
            calls.extend(tasks(blocks));
        }
        feed.push(made(&line, entry));
    }
    let mut thread = Thread::new(run_id.to_owned(), log.path.clone());
    *thread.run.feed_mut() = feed;
    thread.prompt = prompt;
    thread.calls = calls;
    thread
        .run
        .import
        .insert("format".into(), "claude-code-simplified".into());
    thread.run.import.insert(
        "source".into(),
        log.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .into(),
    );
    if let Some((stop, result, success)) = terminal {
        let last = log.entries.last().cloned().unwrap_or_default();
        let mut record = json!({"type": "result", "subtype": if success { "success" } else { "error_during_execution" },
            "is_error": !success});
        if let Some(stop) = stop {
            record["stop_reason"] = stop;
        }
        if let Some(result) = result {
            record["result"] = result;
        }
        thread.run.feed_mut().push(made(&record, &last));
        // Said in the run's account too, as it always was.
        thread.run.import.insert("terminal".into(), true.into());
        thread.run.terminal = true;
    }
    Ok(thread)
}
