//! `axt view`: one self-contained HTML page to read runs in a browser.

use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use crate::export::html::{ViewReport, write_page, write_page_from};
use crate::export::write_file_with;
use crate::read::ProblemKind;
use crate::read::tree::{LinkKind, dir_of};

use super::check::print_link;
use super::console::{self, Problem, plural};
use super::{Outcome, display_name, open, with_path};

/// Write one HTML page to read runs in a browser.
///
/// Reads every FILE (a run's transcript; the runs it invokes are found in its directory, as
/// axt tree finds them) and every run file in each DIR, and writes one self-contained HTML
/// page: no network, no server; it opens from disk and can be attached to a bug report. A
/// directory's page opens on an index of its runs (sortable, filterable); a run shows its
/// execution tree, a timeline, its messages (assistant text as Markdown, thinking collapsed,
/// tool calls with inputs, outputs and edits as diffs, sub-agents and sub-runs nested where
/// they were spawned), usage and cost, and every problem where it occurred. Search with /,
/// keys with ?, links to an event as #run=ID&seq=N. With `-`, the root run is read from
/// stdin and its child runs looked up in the current directory.
///
/// The page holds the transcripts' text (prompts, tool output, secrets they may contain):
/// -o writes it private (0600). Problems (lines that are not events, missing children, ...)
/// are on the page and on stderr as FILE:LINE: byte OFFSET: KIND: MESSAGE.
///
/// Exit status: 0 clean, 1 problems reported (the page is written all the same), 2 usage
/// error, a file that cannot be read or an output that cannot be written.
///
/// Examples: axt view transcripts/ -o runs.html; axt view run.jsonl > run.html
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Write the page to FILE (private, replaced whole) instead of stdout.
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Print problems on stderr as JSON lines.
    #[arg(long)]
    json: bool,
    /// Run files and directories of them, or `-` for one run on stdin.
    #[arg(value_name = "FILE|DIR", required = true)]
    files: Vec<PathBuf>,
}

pub(crate) fn run(args: Args) -> io::Result<Outcome> {
    console::set_json(args.json);
    let stdin = args.files.iter().any(|f| f.as_os_str() == "-");
    if stdin && args.files.len() > 1 {
        return Err(usage("`-` (stdin) is one run: give it alone"));
    }
    if args.output.is_none() && io::stdout().is_terminal() {
        return Err(usage(
            "the page is HTML, not for a terminal: give -o FILE, or redirect stdout",
        ));
    }
    let input = if stdin {
        let mut bytes = Vec::new();
        open(Path::new("-"))?.read_to_end(&mut bytes)?;
        Some(bytes)
    } else {
        None
    };
    let write = |out: &mut dyn Write| -> io::Result<ViewReport> {
        let mut out = out;
        match &input {
            Some(bytes) => write_page_from(bytes, Path::new("-"), dir_of(Path::new("-")), &mut out),
            None => write_page(&args.files, &mut out),
        }
    };
    let report = match &args.output {
        Some(path) => write_file_with(path, write).map_err(|e| with_path(path, e))?,
        None => {
            let stdout = io::stdout();
            let mut out = stdout.lock();
            let report = write(&mut out)?;
            out.flush()?;
            report
        }
    };
    for (path, error) in &report.unlisted {
        console::unreadable(&display_name(path), error);
    }
    report.problems.iter().for_each(print_link);
    if let Some(path) = &args.output {
        console::notice(&format!(
            "wrote {}: {}, {}",
            display_name(path),
            plural(report.runs as u64, "run"),
            plural(report.events, "event")
        ));
    }
    let unreadable = !report.unlisted.is_empty()
        || report
            .problems
            .iter()
            .any(|p| p.kind == LinkKind::Read(ProblemKind::Io));
    if report.runs == 0 {
        let name = args
            .files
            .first()
            .map(|f| display_name(f))
            .unwrap_or_default();
        console::problem(&Problem::error(
            &name,
            1,
            0,
            "no-run",
            "no transcript (*.jsonl) found: the page shows no run",
        ));
        return Ok(if unreadable {
            Outcome::Failed
        } else {
            Outcome::InputProblems
        });
    }
    Ok(if unreadable {
        Outcome::Failed
    } else if report.problems.is_empty() {
        Outcome::Clean
    } else {
        Outcome::InputProblems
    })
}

fn usage(message: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message.to_owned())
}
