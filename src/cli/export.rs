//! `axt export`: a canonical transcript out to another format.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use axt::export::agentlog::{ExportError, ExportOptions, export_from};
use axt::read::ProblemKind;
use axt::read::tree::{LinkKind, dir_of};

use super::check::print_link;
use super::console::{self, Problem, plural};
use super::{Outcome, display_name, open, with_path};

/// Export a run and its linked child runs as one document.
///
/// Reads FILE and every child run it links (child_run_id, in the same directory; with `-`,
/// the root run is read from stdin and its children looked up in the current directory)
/// and writes one AgentLog 0.2.0 JSON document to stdout, or to the file named by -o.
/// Paths are made relative to the project root: the run's recorded cwd, or --root.
/// What could not be exported cleanly (lines that are not events, missing children, results
/// without their call) is listed in the document and reported on stderr as
/// FILE:LINE: byte OFFSET: KIND: MESSAGE.
///
/// Exit status: 0 clean, 1 problems reported (the document is still written when the root
/// run has an event), 2 usage error or a file that cannot be read or written.
///
/// Example: axt export transcripts/<session-id>.jsonl -o session.agentlog.json
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The target format.
    #[arg(long, value_enum, default_value_t = Target::Agentlog)]
    to: Target,
    /// Write the document to FILE instead of stdout.
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Mask credentials (API keys, tokens, private keys) with the recorder's redactor.
    #[arg(long)]
    redact: bool,
    /// The project root paths are made relative to, when the run does not record one.
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Print problems on stderr as JSON lines.
    #[arg(long)]
    json: bool,
    /// The root run's transcript file, or `-` for stdin.
    file: PathBuf,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Target {
    /// AgentLog 0.2.0 session documents.
    Agentlog,
}

pub(crate) fn run(args: Args) -> io::Result<Outcome> {
    console::set_json(args.json);
    let Target::Agentlog = args.to;
    let options = ExportOptions {
        root: args.root,
        redact: args.redact,
    };
    let input = open(&args.file)?;
    // For stdin, the current directory; `-` has no directory of its own.
    let dir = dir_of(&args.file);
    let exported = match export_from(input, &args.file, dir, &options) {
        Ok(exported) => exported,
        Err(ExportError::Empty { path, problems }) => {
            problems.iter().for_each(print_link);
            let unreadable = problems
                .iter()
                .any(|p| p.kind == LinkKind::Read(ProblemKind::Io));
            let name = display_name(&path);
            let message = match problems.len() {
                0 => "the file holds no event: nothing to export".to_owned(),
                n => format!("no event to export: {} above", plural(n as u64, "problem")),
            };
            console::problem(&Problem::error(&name, 1, 0, "no-event", &message));
            return Ok(if unreadable {
                Outcome::Failed
            } else {
                Outcome::InputProblems
            });
        }
        Err(error) => return Err(io::Error::other(error)),
    };
    let mut text = serde_json::to_vec_pretty(&exported.document)?;
    text.push(b'\n');
    match &args.output {
        Some(path) => std::fs::write(path, &text).map_err(|e| with_path(path, e))?,
        None => {
            let mut out = BufWriter::new(io::stdout().lock());
            out.write_all(&text)?;
            out.flush()?;
        }
    }
    exported.problems.iter().for_each(print_link);
    let unreadable = exported
        .problems
        .iter()
        .any(|p| p.kind == LinkKind::Read(ProblemKind::Io));
    Ok(if unreadable {
        Outcome::Failed
    } else if exported.problems.is_empty() {
        Outcome::Clean
    } else {
        Outcome::InputProblems
    })
}
