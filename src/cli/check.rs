//! `axt check`: validate transcripts, one summary per file.

use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::model::{ExchangeEvent, Payload};
use crate::read::tree::{Links, TreeProblem, check_links};
use crate::read::{Calls, ProblemKind, ReadItem, Reader, Verdict, no_event, transcript_files};
use crate::record::{RecordError, Recorder, RecorderOptions};
use serde_json::json;

use super::console::{self, Problem, Severity, plural};
use super::{Outcome, display_name, open, report_error, with_path};

/// Problems printed per file; beyond that they are only counted, so that a file of garbage
/// does not flood the terminal.
pub(crate) const LISTED: u64 = 1000;

/// Validate transcripts: every line, the seq series, the run ids, and each file's links.
///
/// Each file is read by the tolerant reader (invalid UTF-8 or JSON, torn or unterminated
/// final line, unknown event or block types, non-canonical events, seq gaps, repeats and
/// regressions, run_id mismatches, a second run appended after the first completed), then
/// its direct links are checked both ways: every child it names has a file in the same
/// directory that names it as parent, and the parent it names has a file that invokes it
/// (`axt tree` checks a whole tree). A file without a single event is a problem too.
///
/// Tool calls are counted by the rule for calls seen on both channels: a call id with a
/// `tool.call` captured by the router and one reported by the agent is one call (the
/// summary says how many there are); two `tool.call`s of the same channel for one call id
/// are a warning (repeated-call). Warnings are reported, but leave the file clean.
///
/// Each problem goes to stderr as FILE:LINE: byte OFFSET: KIND: MESSAGE (the first 1000 of
/// a file; the rest are counted), and a summary line per file to stdout.
///
/// With --repair, each run file is first reopened as a recorder reopens it: a final line
/// torn by a crash (axt killed mid-write) is moved, byte for byte, to
/// <run-id>.jsonl.torn-<offset> beside it (said on stderr), so that the file reads whole
/// and can be continued. A run being recorded (locked) is left as it is.
///
/// Exit status: 0 every file clean, 1 a problem found, 2 usage error or a file that cannot
/// be read.
///
/// Example: axt check storage/transcripts/
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Transcript files or directories (walked for *.jsonl, as `axt stats` walks them), or
    /// `-` for stdin.
    #[arg(required = true, value_name = "FILE|DIR")]
    files: Vec<PathBuf>,
    /// Print the summary as one JSON document, and problems on stderr as JSON lines.
    #[arg(long)]
    json: bool,
    /// First move a torn final line aside (to <run-id>.jsonl.torn-<offset>), as the
    /// recorder does when it reopens a run; then check.
    #[arg(long)]
    repair: bool,
}

struct Report {
    file: String,
    events: u64,
    by_kind: BTreeMap<&'static str, u64>,
    total: u64,
    /// A read failed part-way: the file could not be read whole.
    unreadable: bool,
    /// Warnings by kind (they leave the file clean).
    warnings: BTreeMap<&'static str, u64>,
    /// Calls captured by the router that the agent reported too.
    both_channels: u64,
}

pub(crate) fn run(args: Args) -> io::Result<Outcome> {
    console::set_json(args.json);
    let mut out = BufWriter::new(io::stdout().lock());
    let mut reports = Vec::new();
    let (files, failed) = transcript_files(&args.files);
    let mut unreadable = !failed.is_empty();
    for (path, error) in failed {
        report_error(&with_path(&path, error));
    }
    for path in &files {
        if args.repair && path.as_os_str() != "-" {
            repair(path);
        }
        match check(path) {
            Ok(report) => {
                unreadable |= report.unreadable;
                if !args.json {
                    print_text(&mut out, &report)?;
                    // Keeps this summary before the next file's problems on a terminal.
                    out.flush()?;
                }
                reports.push(report);
            }
            Err(error) => {
                unreadable = true;
                report_error(&error);
            }
        }
    }
    if args.json {
        let files: Vec<_> = reports.iter().map(to_json).collect();
        let clean = !unreadable && reports.iter().all(|r| r.total == 0);
        let report = json!({ "clean": clean, "files": files });
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else if reports.len() > 1 {
        let dirty = reports.iter().filter(|r| r.total > 0).count();
        let problems: u64 = reports.iter().map(|r| r.total).sum();
        writeln!(
            out,
            "{}: {} clean, {dirty} with problems ({})",
            plural(reports.len() as u64, "file"),
            reports.len() - dirty,
            plural(problems, "problem")
        )?;
    }
    out.flush()?;
    Ok(if unreadable {
        Outcome::Failed
    } else if reports.iter().any(|r| r.total > 0) {
        Outcome::InputProblems
    } else {
        Outcome::Clean
    })
}

/// Reopens run file `path` through the recorder, which moves a torn final line to a
/// sidecar; says what it did, or why it could not.
fn repair(path: &Path) {
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or("");
    let Some(run_id) = name.strip_suffix(".jsonl").filter(|id| !id.is_empty()) else {
        console::error(&format!(
            "{}: not repaired: a run file is named <run-id>.jsonl",
            path.display()
        ));
        return;
    };
    if !path.is_file() {
        // Checking it says what is wrong; the recorder would create it.
        return;
    }
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    match Recorder::create(dir, run_id, RecorderOptions::default()) {
        Ok(recorder) => {
            if let Some(torn) = recorder.torn_tail() {
                console::notice(&format!(
                    "{}: moved the torn final line ({} at byte {}) to {}",
                    path.display(),
                    plural(torn.len, "byte"),
                    torn.offset,
                    torn.sidecar.display()
                ));
            }
            if let Err(error) = recorder.close() {
                console::error(&error.to_string());
            }
        }
        Err(RecordError::Busy { .. }) => console::warning(&format!(
            "{}: not repaired: another process is recording this run",
            path.display()
        )),
        Err(error) => console::error(&format!("not repaired: {error}")),
    }
}

/// Reads one file, printing its problems as they are found.
fn check(path: &Path) -> io::Result<Report> {
    let mut report = Report {
        file: display_name(path),
        events: 0,
        by_kind: BTreeMap::new(),
        total: 0,
        unreadable: false,
        warnings: BTreeMap::new(),
        both_channels: 0,
    };
    let mut links = Links::default();
    let mut calls = Calls::default();
    let mut reader = Reader::new(open(path)?);
    for item in reader.by_ref() {
        match item {
            ReadItem::Event {
                line,
                offset,
                event,
            } => {
                report.events += 1;
                links.add(line, offset, &event);
                if calls
                    .see(&event)
                    .is_some_and(|seen| seen.verdict == Verdict::Repeated)
                {
                    report.warn(REPEATED, line, offset, &repeated(&event));
                }
            }
            ReadItem::Problem(problem) => {
                report.unreadable |= problem.kind == ProblemKind::Io;
                report.count(problem.kind.as_str());
                if report.total <= LISTED {
                    console::read_problem(&report.file, &problem);
                }
            }
        }
    }
    report.both_channels = calls.on_both_channels();
    if report.events == 0 && report.total == 0 {
        // Nothing is wrong with any line, and yet there is no transcript: say so rather
        // than call the file clean.
        let problem = no_event(reader.position());
        report.count(problem.kind.as_str());
        console::read_problem(&report.file, &problem);
    }
    if path.as_os_str() != "-" {
        for problem in check_links(path, &links) {
            report.count(problem.kind.as_str());
            if report.total <= LISTED {
                print_link(&problem);
            }
        }
    }
    if report.total > LISTED {
        console::error(&format!(
            "{}: {} not listed (only the first {LISTED} of a file are)",
            report.file,
            plural(report.total - LISTED, "more problem")
        ));
    }
    Ok(report)
}

/// The kind of the warning about a call id with two `tool.call`s of one channel.
const REPEATED: &str = "repeated-call";

/// The warning about a repeated `tool.call`.
fn repeated(event: &ExchangeEvent) -> String {
    let Payload::Tool(tool) = &event.payload else {
        return String::new();
    };
    format!(
        "call id {:?} has a second tool.call of fidelity {}; one is expected per channel, so it counts as another call",
        tool.call_id,
        tool.fidelity.as_str()
    )
}

impl Report {
    fn count(&mut self, kind: &'static str) {
        *self.by_kind.entry(kind).or_default() += 1;
        self.total += 1;
    }

    fn warn(&mut self, kind: &'static str, line: u64, offset: u64, message: &str) {
        let count = self.warnings.entry(kind).or_default();
        *count += 1;
        if *count <= LISTED {
            console::problem(&Problem {
                severity: Severity::Warning,
                ..Problem::error(&self.file, line, offset, kind, message)
            });
        }
    }

    /// What the summary adds after the counts: calls on both channels, warnings.
    fn notes(&self) -> String {
        let mut notes = String::new();
        if self.both_channels > 0 {
            let calls = plural(self.both_channels, "call");
            notes.push_str(&format!("; {calls} seen on both channels, counted once"));
        }
        let warnings: u64 = self.warnings.values().sum();
        if warnings > 0 {
            let kinds: Vec<String> = self
                .warnings
                .iter()
                .map(|(kind, count)| format!("{kind} {count}"))
                .collect();
            let warnings = plural(warnings, "warning");
            notes.push_str(&format!("; {warnings} ({})", kinds.join(", ")));
        }
        notes
    }
}

/// A problem of the tree, in the one format.
pub(crate) fn print_link(problem: &TreeProblem) {
    let file = display_name(&problem.file);
    console::problem(&Problem::error(
        &file,
        problem.line,
        problem.offset,
        problem.kind.as_str(),
        &problem.message,
    ));
}

fn print_text(out: &mut impl Write, report: &Report) -> io::Result<()> {
    let name = console::escape(&report.file);
    let notes = report.notes();
    if report.total == 0 {
        writeln!(out, "{name}: ok: {}{notes}", plural(report.events, "event"))
    } else {
        let kinds: Vec<String> = report
            .by_kind
            .iter()
            .map(|(kind, count)| format!("{kind} {count}"))
            .collect();
        writeln!(
            out,
            "{name}: {} in {} ({}){notes}",
            plural(report.total, "problem"),
            plural(report.events, "event"),
            kinds.join(", ")
        )
    }
}

fn to_json(report: &Report) -> serde_json::Value {
    json!({
        "file": report.file,
        "clean": report.total == 0,
        "events": report.events,
        "problem_count": report.total,
        "problems_by_kind": report.by_kind,
        "warning_count": report.warnings.values().sum::<u64>(),
        "warnings_by_kind": report.warnings,
        "calls_on_both_channels": report.both_channels,
    })
}
