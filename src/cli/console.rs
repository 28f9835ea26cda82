//! Everything axt prints on stderr: problems in the input, errors, notices, progress bars.
//!
//! One format for every command, `FILE:LINE: byte OFFSET: KIND: MESSAGE` (a warning's message
//! starts with `warning: `), or with `--json` one JSON object per line; errors that are not
//! at a place in an input (a file that cannot be opened, a refused output) are
//! `axt: MESSAGE`. Text taken from the input is escaped before it reaches a terminal.
//!
//! Nothing here panics or fails: a closed or broken stderr must not stop a command from
//! finishing its output (`axt exec` its transcript), so write errors are dropped. What the
//! command found still decides its exit code.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{self, IsTerminal, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

static COLOUR: AtomicBool = AtomicBool::new(false);
static COLOUR_STDOUT: AtomicBool = AtomicBool::new(false);
static QUIET: AtomicBool = AtomicBool::new(false);
static JSON: AtomicBool = AtomicBool::new(false);

/// Sets how axt writes for the rest of the process: colour on stderr and on stdout (each
/// already decided from `--color`, `NO_COLOR` and whether it is a terminal) and `--quiet`.
pub(crate) fn init(colour: bool, colour_stdout: bool, quiet: bool) {
    COLOUR.store(colour, Ordering::Relaxed);
    COLOUR_STDOUT.store(colour_stdout, Ordering::Relaxed);
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether what axt prints for people on stdout (`axt exec --follow`) is coloured.
pub(crate) fn colour_stdout() -> bool {
    COLOUR_STDOUT.load(Ordering::Relaxed)
}

/// `--json`: problems, errors and notices as JSON lines from here on.
pub(crate) fn set_json(json: bool) {
    JSON.store(json, Ordering::Relaxed);
}

pub(crate) fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

fn json() -> bool {
    JSON.load(Ordering::Relaxed)
}

fn colour() -> bool {
    COLOUR.load(Ordering::Relaxed)
}

/// How much a problem counts: errors make the exit code 1, warnings are only reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Severity {
    Error,
    Warning,
}

impl From<crate::normalize::Severity> for Severity {
    fn from(severity: crate::normalize::Severity) -> Self {
        match severity {
            crate::normalize::Severity::Error => Severity::Error,
            crate::normalize::Severity::Warning => Severity::Warning,
        }
    }
}

/// One problem at a place in an input.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Problem<'a> {
    /// The input as the user named it (`-` for stdin).
    pub(crate) file: &'a str,
    /// 1-based line.
    pub(crate) line: u64,
    /// Byte offset in the input.
    pub(crate) offset: u64,
    pub(crate) kind: &'a str,
    pub(crate) severity: Severity,
    pub(crate) message: &'a str,
}

impl Problem<'_> {
    /// An error (a problem that makes the exit code 1).
    pub(crate) fn error<'a>(
        file: &'a str,
        line: u64,
        offset: u64,
        kind: &'a str,
        message: &'a str,
    ) -> Problem<'a> {
        Problem {
            file,
            line,
            offset,
            kind,
            severity: Severity::Error,
            message,
        }
    }
}

/// Prints a problem.
pub(crate) fn problem(problem: &Problem<'_>) {
    if json() {
        let severity = match problem.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let line = JsonLine {
            file: Some(problem.file),
            line: Some(problem.line),
            offset: Some(problem.offset),
            kind: Some(problem.kind),
            severity,
            message: problem.message,
        };
        return emit_json(&line);
    }
    emit(&problem_text(problem, colour()));
}

/// Prints a problem the reader found in the transcript named `file`.
pub(crate) fn read_problem(file: &str, found: &crate::read::Problem) {
    problem(&Problem::error(
        file,
        found.line,
        found.offset,
        found.kind.as_str(),
        &found.message,
    ));
}

/// A problem as one line of text, without its LF.
pub(crate) fn problem_text(problem: &Problem<'_>, colour: bool) -> String {
    let (style, warning) = match problem.severity {
        Severity::Error => (RED, ""),
        Severity::Warning => (YELLOW, "warning: "),
    };
    let place = format!(
        "{}:{}: byte {}:",
        escape(problem.file),
        problem.line,
        problem.offset
    );
    format!(
        "{} {}: {warning}{}",
        paint(colour, BOLD, &place),
        paint(colour, style, &escape(problem.kind)),
        escape(problem.message)
    )
}

/// An input that cannot be opened or read: `axt: FILE: why` (exit code 2).
pub(crate) fn unreadable(file: &str, error: &dyn std::fmt::Display) {
    let message = error.to_string();
    if json() {
        let line = JsonLine {
            file: Some(file),
            kind: Some("io-error"),
            ..JsonLine::new("error", &message)
        };
        return emit_json(&line);
    }
    let text = format!("{}: {}", escape(file), escape(&message));
    emit(&format!("{} {text}", paint(colour(), BOLD_RED, "axt:")));
}

/// An error that is not at a place in an input: `axt: MESSAGE`.
pub(crate) fn error(message: &dyn std::fmt::Display) {
    let message = message.to_string();
    if json() {
        return emit_json(&JsonLine::new("error", &message));
    }
    emit(&format!(
        "{} {}",
        paint(colour(), BOLD_RED, "axt:"),
        escape(&message)
    ));
}

/// A warning that is not at a place in an input: `axt: warning: MESSAGE`; shown even with
/// `--quiet`.
pub(crate) fn warning(message: &dyn std::fmt::Display) {
    let message = message.to_string();
    if json() {
        return emit_json(&JsonLine::new("warning", &message));
    }
    emit(&format!("axt: warning: {}", escape(&message)));
}

/// What axt did or is doing (`wrote ...`); `--quiet` drops it.
pub(crate) fn notice(message: &dyn std::fmt::Display) {
    if quiet() {
        return;
    }
    let message = message.to_string();
    if json() {
        return emit_json(&JsonLine::new("note", &message));
    }
    emit(&format!("axt: {}", escape(&message)));
}

/// One line of `--json` output on stderr. `file`, `line`, `offset` and `kind` are there for
/// a problem in an input (`file` and `kind` alone for an input that cannot be read);
/// `severity` is `error`, `warning` or `note` (what axt did, such as `wrote ...`).
#[derive(serde::Serialize)]
struct JsonLine<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    offset: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'a str>,
    severity: &'a str,
    message: &'a str,
}

impl<'a> JsonLine<'a> {
    fn new(severity: &'a str, message: &'a str) -> Self {
        JsonLine {
            file: None,
            line: None,
            offset: None,
            kind: None,
            severity,
            message,
        }
    }
}

fn emit_json(line: &JsonLine<'_>) {
    // Serializing borrowed strings and integers cannot fail.
    if let Ok(text) = serde_json::to_string(line) {
        emit(&text);
    }
}

/// Writes one line to stderr in one `write(2)` (stderr is unbuffered), so lines from
/// several threads do not mix; above the progress bar when one is shown. Failures are
/// dropped: see the module documentation.
fn emit(line: &str) {
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    let write = || {
        let _ = io::stderr().lock().write_all(&bytes);
    };
    match &*BAR.lock().unwrap_or_else(|e| e.into_inner()) {
        Some(bar) => bar.suspend(write),
        None => write(),
    }
}

/// The progress bar shown, if any: lines printed meanwhile go above it.
static BAR: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// A progress bar on stderr for long work; it goes away when dropped.
pub(crate) struct Progress(ProgressBar);

/// What a progress bar counts.
#[derive(Clone, Copy)]
pub(crate) enum Counting {
    /// Bytes of input.
    Bytes,
    /// Sessions (`axt import`).
    Sessions,
}

/// Whether [`progress`] draws a bar: not when stderr is not a terminal, nor with `--quiet`
/// or `--json` (so that a command sizes its input for one only when it is drawn).
pub(crate) fn progress_drawn() -> bool {
    !(quiet() || json() || !io::stderr().is_terminal())
}

/// A progress bar to `total`, or `None` where it must not be drawn: stderr is not a
/// terminal (a log file would fill with redraws), `--quiet`, or `--json` (stderr is for
/// machines then).
pub(crate) fn progress(total: u64, counting: Counting) -> Option<Progress> {
    if !progress_drawn() {
        return None;
    }
    let template = match counting {
        Counting::Bytes => "{bar:40} {bytes}/{total_bytes} ({eta} left) {msg}",
        Counting::Sessions => "{bar:40} {pos}/{len} sessions ({eta} left) {msg}",
    };
    let style = ProgressStyle::with_template(template).ok()?;
    let bar =
        ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr()).with_style(style);
    *BAR.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar.clone());
    Some(Progress(bar))
}

impl Progress {
    /// Sets how far the work is.
    pub(crate) fn set(&self, done: u64) {
        self.0.set_position(done);
    }

    /// Adds to how far the work is.
    pub(crate) fn add(&self, done: u64) {
        self.0.inc(done);
    }

    /// The text after the counts (`3/10 files`).
    pub(crate) fn message(&self, message: String) {
        self.0.set_message(message);
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.0.finish_and_clear();
        *BAR.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

/// `text` safe to print on a terminal: control characters (C0, DEL, C1: the escape
/// sequences that set a window title or move the cursor) and the bidirectional overrides
/// that reorder what is shown are written as `\u{..}` (`\t`, `\n`, `\r` as such). Text from
/// the input (records quoted in diagnostics, tool and file names) goes through here.
pub(crate) fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(unsafe_on_a_terminal) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if unsafe_on_a_terminal(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn unsafe_on_a_terminal(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        )
}

/// `count` and the noun, plural unless the count is one: `1 problem`, `2 problems`.
pub(crate) fn plural(count: impl Into<u64>, noun: &str) -> String {
    let count = count.into();
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

pub(crate) const BOLD: &str = "1";
pub(crate) const BOLD_RED: &str = "1;31";
pub(crate) const RED: &str = "31";
pub(crate) const YELLOW: &str = "33";

/// `text` in an SGR style when colour is on.
pub(crate) fn paint<'a>(colour: bool, style: &str, text: &'a str) -> Cow<'a, str> {
    if colour && !style.is_empty() {
        Cow::Owned(format!("\x1b[{style}m{text}\x1b[0m"))
    } else {
        Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_a_terminal_would_act_on() {
        assert_eq!(escape("plain text, ünïcode"), "plain text, ünïcode");
        assert_eq!(
            escape("a\x1b]0;PWNED\x07b\tc\r\n\u{9b}31m\u{7f}"),
            "a\\u{1b}]0;PWNED\\u{7}b\\tc\\r\\n\\u{9b}31m\\u{7f}"
        );
        assert_eq!(escape("abc\u{202E}fed"), "abc\\u{202e}fed");
    }

    #[test]
    fn plurals() {
        assert_eq!(plural(0u64, "problem"), "0 problems");
        assert_eq!(plural(1u64, "problem"), "1 problem");
        assert_eq!(plural(2u64, "file"), "2 files");
    }

    #[test]
    fn one_format_with_and_without_colour() {
        let mut problem = Problem::error("-", 3, 120, "not-json", "skipped: \"\x1b[2J\"");
        assert_eq!(
            problem_text(&problem, false),
            "-:3: byte 120: not-json: skipped: \"\\u{1b}[2J\""
        );
        problem.severity = Severity::Warning;
        assert_eq!(
            problem_text(&problem, true),
            "\x1b[1m-:3: byte 120:\x1b[0m \x1b[33mnot-json\x1b[0m: warning: skipped: \"\\u{1b}[2J\""
        );
    }
}
