//! `axt check`: validate transcripts, one summary per file.

use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use axt::read::tree::{Links, TreeProblem, check_links};
use axt::read::{Problem, ReadItem, Reader};
use serde_json::json;

use super::{Outcome, display_name, open};

/// Problems listed per file; beyond that they are only counted, so memory stays bounded.
const LISTED: usize = 1000;

/// Validate transcripts: every line, the seq series, the run ids, and each file's links.
///
/// Each file is read by the tolerant reader (invalid UTF-8 or JSON, torn or unterminated
/// final line, unknown event or block types, non-canonical events, seq gaps, repeats and
/// regressions, run_id mismatches), then its direct links are checked both ways: every
/// child it names has a file in the same directory that names it as parent, and the parent
/// it names has a file that invokes it (`axt tree` checks a whole tree). Each problem is
/// printed as FILE:LINE: byte OFFSET: KIND: MESSAGE, then a summary line per file.
///
/// Exit status: 0 every file clean, 1 a problem found, 2 usage error or a file that cannot
/// be opened.
///
/// Example: axt check storage/transcripts/*.jsonl
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Transcript files, or `-` for stdin.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print one JSON report instead of text.
    #[arg(long)]
    json: bool,
}

struct Report {
    file: String,
    events: u64,
    problems: Vec<Problem>,
    links: Vec<TreeProblem>,
    by_kind: BTreeMap<&'static str, u64>,
    total: u64,
}

pub(crate) fn run(args: Args) -> io::Result<Outcome> {
    let mut out = BufWriter::new(io::stdout().lock());
    let mut reports = Vec::new();
    let mut unreadable = false;
    for path in &args.files {
        match check(path) {
            Ok(report) => {
                if !args.json {
                    print_text(&mut out, &report)?;
                }
                reports.push(report);
            }
            Err(error) => {
                unreadable = true;
                out.flush()?;
                eprintln!("axt: {error}");
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
            "{} files: {} clean, {dirty} with problems ({problems} problems)",
            reports.len(),
            reports.len() - dirty
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

fn check(path: &Path) -> io::Result<Report> {
    let mut report = Report {
        file: display_name(path),
        events: 0,
        problems: Vec::new(),
        links: Vec::new(),
        by_kind: BTreeMap::new(),
        total: 0,
    };
    let mut links = Links::default();
    for item in Reader::new(open(path)?) {
        match item {
            ReadItem::Event { line, event, .. } => {
                report.events += 1;
                links.add(line, &event);
            }
            ReadItem::Problem(problem) => {
                *report.by_kind.entry(problem.kind.as_str()).or_default() += 1;
                report.total += 1;
                if report.problems.len() < LISTED {
                    report.problems.push(problem);
                }
            }
        }
    }
    if path.as_os_str() != "-" {
        report.links = check_links(path, &links);
        for problem in &report.links {
            *report.by_kind.entry(problem.kind.as_str()).or_default() += 1;
            report.total += 1;
        }
    }
    Ok(report)
}

fn print_text(out: &mut impl Write, report: &Report) -> io::Result<()> {
    let name = &report.file;
    for problem in &report.problems {
        writeln!(out, "{name}:{problem}")?;
    }
    let listed = report.problems.len() as u64 + report.links.len() as u64;
    if listed < report.total {
        writeln!(out, "{name}: ... {} more not listed", report.total - listed)?;
    }
    for problem in &report.links {
        writeln!(out, "{problem}")?;
    }
    if report.total == 0 {
        writeln!(out, "{name}: ok: {} events", report.events)
    } else {
        let kinds: Vec<String> = report
            .by_kind
            .iter()
            .map(|(kind, count)| format!("{kind} {count}"))
            .collect();
        writeln!(
            out,
            "{name}: {} problems in {} events ({})",
            report.total,
            report.events,
            kinds.join(", ")
        )
    }
}

fn to_json(report: &Report) -> serde_json::Value {
    let problems: Vec<_> = report
        .problems
        .iter()
        .map(|p| json!({"line": p.line, "offset": p.offset, "kind": p.kind.as_str(), "message": p.message}))
        .collect();
    json!({
        "file": report.file,
        "clean": report.total == 0,
        "events": report.events,
        "problem_count": report.total,
        "problems_by_kind": report.by_kind,
        "problems": problems,
        "links": report.links,
    })
}
