//! Problems found in provider input: [`Diagnostic`], its [`DiagnosticKind`] and
//! [`Severity`].
//!
//! This file owns the vocabulary of problems and their wire names. It must not decide when a
//! problem is reported (the adapters and the driver do) nor how it is printed (the CLI does).

use std::fmt;

use serde::Serialize;

use crate::model::Block;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; everything in the record was still read.
    Warning,
    /// Part of the input could not be read, or is inconsistent.
    Error,
}

/// What kind of problem a diagnostic reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum DiagnosticKind {
    /// A record that is not JSON (a banner, debug output); skipped.
    NotJson,
    /// A record that starts like JSON but does not parse; skipped.
    InvalidJson,
    /// A record with bytes that are not UTF-8; read with U+FFFD in their place.
    InvalidUtf8,
    /// A record with raw control characters inside JSON strings; read with them kept.
    ControlCharacters,
    /// A record longer than the limit; skipped.
    RecordTooLarge,
    /// The input ended inside a record (a torn or truncated last line).
    Truncated,
    /// Valid JSON that does not have the shape the provider documents; skipped.
    UnexpectedShape,
    /// A content block type this adapter does not know; kept in the run metadata.
    UnknownBlockType,
    /// A block still open when the input ended (its deltas never finished).
    IncompleteBlock,
    /// A tool call that never received a result.
    DanglingToolUse,
    /// A tool result whose call was never seen.
    OrphanToolResult,
    /// The stream ended without the provider's terminal record.
    MissingTerminal,
    /// A block assembled from partial-message deltas differs from the consolidated copy.
    StreamMismatch,
    /// A tool call's final arguments are not valid JSON; kept as the raw string.
    InvalidToolInput,
    /// A record of another provider's output (its detection claims it): kept as
    /// passthrough when it could be, but not read.
    ForeignRecord,
    /// The input had records and the adapter recognized none of them: the wrong provider,
    /// or not provider output at all.
    UnrecognizedInput,
    /// The provider withdrew output it had delivered (Claude's refusal fallback); the
    /// withdrawn blocks stay in the transcript and are listed in [`RunMeta::retracted`](super::RunMeta::retracted).
    Retracted,
    /// An event made from the input was over the transcript's limits (a line of
    /// [`MAX_LINE_BYTES`](crate::model::MAX_LINE_BYTES), [`MAX_DEPTH`](crate::model::MAX_DEPTH)
    /// levels of nesting): what did not fit was cut, and a marker in the event says where
    /// ([`fit_event`](crate::model::fit_event)).
    OversizeCut,
    /// A binary frame (an AWS event-stream message) whose checksum does not match its
    /// bytes; skipped, and the frames after it read.
    BadChecksum,
    /// A binary frame whose prelude or headers cannot be read; skipped, and the frames after
    /// it read.
    MalformedFrame,
}

impl DiagnosticKind {
    /// Every kind, for documentation checks and help texts.
    pub const ALL: [DiagnosticKind; 20] = [
        DiagnosticKind::NotJson,
        DiagnosticKind::InvalidJson,
        DiagnosticKind::InvalidUtf8,
        DiagnosticKind::ControlCharacters,
        DiagnosticKind::RecordTooLarge,
        DiagnosticKind::Truncated,
        DiagnosticKind::UnexpectedShape,
        DiagnosticKind::UnknownBlockType,
        DiagnosticKind::IncompleteBlock,
        DiagnosticKind::DanglingToolUse,
        DiagnosticKind::OrphanToolResult,
        DiagnosticKind::MissingTerminal,
        DiagnosticKind::StreamMismatch,
        DiagnosticKind::InvalidToolInput,
        DiagnosticKind::ForeignRecord,
        DiagnosticKind::UnrecognizedInput,
        DiagnosticKind::Retracted,
        DiagnosticKind::OversizeCut,
        DiagnosticKind::BadChecksum,
        DiagnosticKind::MalformedFrame,
    ];

    /// The kebab-case name, as in JSON reports.
    pub fn as_str(self) -> &'static str {
        match self {
            DiagnosticKind::NotJson => "not-json",
            DiagnosticKind::InvalidJson => "invalid-json",
            DiagnosticKind::InvalidUtf8 => "invalid-utf8",
            DiagnosticKind::ControlCharacters => "control-characters",
            DiagnosticKind::RecordTooLarge => "record-too-large",
            DiagnosticKind::Truncated => "truncated",
            DiagnosticKind::UnexpectedShape => "unexpected-shape",
            DiagnosticKind::UnknownBlockType => "unknown-block-type",
            DiagnosticKind::IncompleteBlock => "incomplete-block",
            DiagnosticKind::DanglingToolUse => "dangling-tool-use",
            DiagnosticKind::OrphanToolResult => "orphan-tool-result",
            DiagnosticKind::MissingTerminal => "missing-terminal",
            DiagnosticKind::StreamMismatch => "stream-mismatch",
            DiagnosticKind::InvalidToolInput => "invalid-tool-input",
            DiagnosticKind::ForeignRecord => "foreign-record",
            DiagnosticKind::UnrecognizedInput => "unrecognized-input",
            DiagnosticKind::Retracted => "retracted",
            DiagnosticKind::OversizeCut => "oversize-cut",
            DiagnosticKind::BadChecksum => "bad-checksum",
            DiagnosticKind::MalformedFrame => "malformed-frame",
        }
    }

    /// How bad this kind is.
    pub fn severity(self) -> Severity {
        match self {
            DiagnosticKind::ControlCharacters
            | DiagnosticKind::UnknownBlockType
            | DiagnosticKind::IncompleteBlock
            | DiagnosticKind::DanglingToolUse
            | DiagnosticKind::MissingTerminal
            | DiagnosticKind::StreamMismatch
            | DiagnosticKind::InvalidToolInput
            | DiagnosticKind::Retracted => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

/// A problem in the input, with where it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// 1-based line of the record. What never came (a terminal record) is reported at the
    /// last line read, its offset the end of the input (line 1, byte 0 for an empty input).
    pub line: u64,
    /// Byte offset in the input: the record's first byte, or the exact byte where known.
    pub offset: u64,
    /// What kind of problem.
    pub kind: DiagnosticKind,
    /// What was wrong, for a person.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic of `kind` at `line` / `offset`.
    pub fn new(kind: DiagnosticKind, line: u64, offset: u64, message: impl Into<String>) -> Self {
        Diagnostic {
            line,
            offset,
            kind,
            message: message.into(),
        }
    }

    /// How bad it is.
    pub fn severity(&self) -> Severity {
        self.kind.severity()
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let severity = match self.severity() {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        write!(
            f,
            "line {} (byte {}): {severity}[{}]: {}",
            self.line,
            self.offset,
            self.kind.as_str(),
            self.message
        )
    }
}

/// Short description of a block for diagnostics and summaries: its type and identity.
pub(crate) fn describe(block: &Block) -> String {
    match block {
        Block::ToolUse {
            tool_name, tool_id, ..
        } => format!("tool_use {tool_name} ({tool_id})"),
        Block::ToolResult { tool_id, .. } => format!("tool_result ({tool_id})"),
        other => other.type_name().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_diagnostic_kind_is_listed_once_under_its_wire_name() {
        use DiagnosticKind::*;
        // No wildcard: a new kind does not compile here until it is in `ALL` too.
        let listed = |kind: DiagnosticKind| match kind {
            NotJson | InvalidJson | InvalidUtf8 | ControlCharacters | RecordTooLarge
            | Truncated | UnexpectedShape | UnknownBlockType | IncompleteBlock
            | DanglingToolUse | OrphanToolResult | MissingTerminal | StreamMismatch
            | InvalidToolInput | ForeignRecord | UnrecognizedInput | Retracted | OversizeCut
            | BadChecksum | MalformedFrame => {
                DiagnosticKind::ALL.iter().filter(|k| **k == kind).count()
            }
        };
        for kind in DiagnosticKind::ALL {
            assert_eq!(listed(kind), 1, "{kind:?}");
            assert_eq!(
                serde_json::to_value(kind).unwrap(),
                serde_json::Value::from(kind.as_str())
            );
        }
    }
}
