//! What `axt normalize` can tell a user about an input beyond its located problems: that
//! it is pretty-printed JSON (one message instead of one per line), that it is a Claude
//! Code session log (which `axt import claude-code` reads whole), that it was empty.
//!
//! This file looks at the input's first line and at the diagnostics as they come; it owns
//! the wording of the hints and decides which diagnostics a hint stands for. It must not
//! change what is transcribed, nor drop a problem without counting it: every diagnostic a
//! hint stands for is counted and the count reported.

use crate::normalize::{Diagnostic, DiagnosticKind};

/// The first line of the input kept, at most, to recognize it.
const FIRST_LINE_BYTES: usize = 64 << 10;

/// What is known of an input so far.
#[derive(Default)]
pub(crate) struct Hints {
    /// The input's first non-blank line (its first [`FIRST_LINE_BYTES`]), once it is known.
    first: Option<Vec<u8>>,
    /// Bytes seen so far.
    pending: Vec<u8>,
    seen: u64,
    /// The pretty-printed JSON hint was given: the diagnostics of the lines it stands for
    /// are counted, not printed one by one.
    pretty: bool,
    /// Those diagnostics.
    pub(crate) folded: u64,
}

/// What to do with a diagnostic.
pub(crate) enum Verdict {
    /// Print it as it is.
    Print,
    /// Print this instead: a hint that stands for it (and the like of it to come).
    Replace(Diagnostic),
    /// A hint stands for it: count it only.
    Fold,
}

impl Hints {
    /// Notes the input's next bytes.
    pub(crate) fn saw(&mut self, bytes: &[u8]) {
        self.seen += bytes.len() as u64;
        if self.first.is_some() {
            return;
        }
        let room = FIRST_LINE_BYTES.saturating_sub(self.pending.len());
        self.pending
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
        let text = self.pending.trim_ascii_start();
        if let Some(end) = text.iter().position(|b| *b == b'\n') {
            self.first = Some(text[..end].trim_ascii().to_vec());
        } else if self.pending.len() >= FIRST_LINE_BYTES {
            self.first = Some(text.to_vec());
        }
    }

    /// The input ended.
    pub(crate) fn ended(&mut self) {
        if self.first.is_none() {
            self.first = Some(self.pending.trim_ascii().to_vec());
        }
    }

    /// Whether the input's first line is a lone `{` or `[`: JSON written over many lines,
    /// as `jq .` and most API clients save it.
    pub(crate) fn pretty_printed(&self) -> bool {
        let first = self.first.as_deref().unwrap_or(self.pending.trim_ascii());
        first == b"{" || first == b"["
    }

    /// Whether the input's first record is an entry of a Claude Code session log
    /// (`~/.claude/projects/.../<session>.jsonl`): camel-case `sessionId` and `parentUuid`,
    /// or the log's own `summary` and `file-history-snapshot` entries.
    pub(crate) fn claude_session_log(&self) -> bool {
        let Some(first) = &self.first else {
            return false;
        };
        let Ok(record) = serde_json::from_slice::<serde_json::Value>(first) else {
            return false;
        };
        let kind = record.get("type").and_then(serde_json::Value::as_str);
        (record.get("sessionId").is_some() && record.get("parentUuid").is_some())
            || matches!(kind, Some("summary" | "file-history-snapshot"))
    }

    /// What to print for `diagnostic`, of the input named `name`.
    pub(crate) fn judge(&mut self, diagnostic: &Diagnostic, name: &str) -> Verdict {
        let per_line = matches!(
            diagnostic.kind,
            DiagnosticKind::InvalidJson | DiagnosticKind::NotJson | DiagnosticKind::UnexpectedShape
        );
        if per_line && self.pretty {
            self.folded += 1;
            return Verdict::Fold;
        }
        if per_line && self.pretty_printed() {
            self.pretty = true;
            let file = if name == "-" { "FILE" } else { name };
            let message = format!(
                "the input is JSON written over many lines (pretty-printed, as `jq .` writes \
                 it); axt reads one record per line: try `jq -c . {file} | axt normalize` \
                 (the lines after this one are counted, not listed)"
            );
            return Verdict::Replace(Diagnostic::new(
                diagnostic.kind,
                diagnostic.line,
                diagnostic.offset,
                message,
            ));
        }
        if diagnostic.kind == DiagnosticKind::MissingTerminal && self.seen == 0 {
            let message = "the input is empty: the agent wrote no output to transcribe";
            return Verdict::Replace(Diagnostic::new(
                diagnostic.kind,
                diagnostic.line,
                diagnostic.offset,
                message,
            ));
        }
        Verdict::Print
    }
}

/// The hint for a Claude Code session log given to `axt normalize`.
pub(crate) fn session_log_hint(name: &str) -> String {
    let file = if name == "-" { "FILE" } else { name };
    format!(
        "{name} is a Claude Code session log (~/.claude/projects/...), not `claude -p` \
         output: `axt import claude-code {file} --out DIR` reads it whole (sub-agents, \
         compactions, rewinds) and knows the session is complete without a result record"
    )
}

/// The hint added when auto-detection fails on pretty-printed JSON.
pub(crate) fn pretty_detection_hint(name: &str) -> String {
    let file = if name == "-" { "FILE" } else { name };
    format!(
        "; it is JSON written over many lines (pretty-printed): axt reads one record per \
         line, try `jq -c . {file} | axt normalize`"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hints(input: &str) -> Hints {
        let mut hints = Hints::default();
        for chunk in input.as_bytes().chunks(3) {
            hints.saw(chunk);
        }
        hints.ended();
        hints
    }

    #[test]
    fn pretty_printed_json_is_a_lone_brace_first() {
        assert!(hints("\n  {\n  \"type\": \"x\"\n}\n").pretty_printed());
        assert!(hints("[\n1]").pretty_printed());
        assert!(!hints("{\"type\": \"x\"}\n").pretty_printed());
        assert!(!hints("").pretty_printed());
    }

    #[test]
    fn a_session_log_is_known_by_its_first_entry() {
        let entry = r#"{"parentUuid":null,"sessionId":"s","type":"user","uuid":"u"}"#;
        assert!(hints(&format!("{entry}\n{{}}\n")).claude_session_log());
        assert!(hints("{\"type\":\"summary\",\"summary\":\"x\"}\n").claude_session_log());
        let stream = r#"{"type":"system","subtype":"init","session_id":"s","uuid":"u"}"#;
        assert!(!hints(&format!("{stream}\n")).claude_session_log());
    }
}
