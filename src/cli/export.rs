//! `axt export`: a canonical transcript out to another format.

use std::io::{self, BufWriter, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use crate::export::agentlog::{ExportError, ExportOptions, export_from};
use crate::export::otlp::batch::Plan;
use crate::export::otlp::send::{Destination, Protocol, parse_header, send};
use crate::export::otlp::{BatchError, BatchOptions, encode};
use crate::read::tree::{LinkKind, TreeProblem, dir_of, forest};
use crate::read::{ProblemKind, transcript_files};
use crate::record::Redactor;

use super::batch;
use super::check::print_link;
use super::console::{self, Problem, plural};
use super::{Outcome, display_name, open, with_path, write_indented};

/// Export a run and its linked child runs as one document.
///
/// AgentLog (the default): reads FILE and every child run it links (child_run_id, in the
/// same directory; with `-`, the root run is read from stdin and its children looked up in
/// the current directory) and writes one AgentLog 0.2.0 JSON document to stdout, or to the
/// file named by -o. Paths are made relative to the project root: the run's recorded cwd,
/// or --root. Several FILEs, or a DIR (each of its root runs: runs that name no parent the
/// directory holds), give a JSON array of documents, one per run.
///
/// OTLP (--to otlp): reads every FILE and every run file in each DIR, with their linked
/// runs, and writes OpenTelemetry spans in the GenAI semantic conventions (one trace per
/// run tree) as OTLP/JSON to stdout or -o FILE, or sends them to a collector with
/// --endpoint (OTLP/HTTP to URL/v1/traces; OTEL_EXPORTER_OTLP_ENDPOINT,
/// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS and
/// OTEL_EXPORTER_OTLP_PROTOCOL are read). Message text, tool arguments and results are
/// exported only with --content, credentials masked.
///
/// Several runs are exported on every core (--jobs): what is written and printed is what
/// one worker gives, each AgentLog document written as soon as it and those before it are
/// done.
///
/// What could not be exported cleanly (lines that are not events, missing children, results
/// without their call) is reported on stderr as FILE:LINE: byte OFFSET: KIND: MESSAGE (and
/// listed in an AgentLog document).
///
/// Exit status: 0 clean, 1 problems reported (the output is still written when a run has
/// an event), 2 usage error, a file that cannot be read or written, or a collector that
/// refused the spans.
///
/// Examples: axt export transcripts/<session-id>.jsonl -o session.agentlog.json;
/// axt export --to otlp transcripts/ --endpoint http://localhost:6006
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
    /// OTLP: export message text, system prompts, tool arguments and results (credentials
    /// masked by the recorder's redactor); without it only names, ids, counts and times.
    #[arg(long)]
    content: bool,
    /// OTLP: send to the collector at URL (its base: spans go to URL/v1/traces) instead of
    /// writing OTLP/JSON; with no URL, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
    /// OTEL_EXPORTER_OTLP_ENDPOINT.
    #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "")]
    endpoint: Option<String>,
    /// OTLP: a request header for the collector (authentication, say); repeatable.
    #[arg(long, value_name = "KEY=VALUE")]
    header: Vec<String>,
    /// OTLP: the body encoding sent to the collector (default http/protobuf, or
    /// OTEL_EXPORTER_OTLP_PROTOCOL).
    #[arg(long, value_enum, value_name = "PROTOCOL")]
    protocol: Option<WireProtocol>,
    /// With several runs: worker threads [default: one per core]; the output is the same
    /// whatever their number.
    #[arg(long, value_name = "N")]
    jobs: Option<NonZeroUsize>,
    /// The root run's transcript file, or `-` for stdin; run files and directories of them
    /// (AgentLog: one document per root run, in an array; OTLP: one trace per run tree).
    #[arg(value_name = "FILE|DIR", required = true)]
    files: Vec<PathBuf>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Target {
    /// AgentLog 0.2.0 session documents.
    Agentlog,
    /// OpenTelemetry traces (OTLP/JSON, or OTLP/HTTP with --endpoint).
    Otlp,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum WireProtocol {
    /// Protobuf bodies (application/x-protobuf).
    #[value(name = "http/protobuf")]
    HttpProtobuf,
    /// OTLP/JSON bodies (application/json).
    #[value(name = "http/json")]
    HttpJson,
}

/// The collector an `--endpoint [URL]` (empty: the environment's), `--header`s and
/// `--protocol` name, with the `OTEL_EXPORTER_OTLP_*` variables; a usage error otherwise.
pub(crate) fn destination(
    base: &str,
    headers: &[String],
    protocol: Option<WireProtocol>,
) -> io::Result<Destination> {
    let headers = headers
        .iter()
        .map(|h| parse_header(h))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| usage(&e.to_string()))?;
    let protocol = protocol.map(|p| match p {
        WireProtocol::HttpProtobuf => Protocol::HttpProtobuf,
        WireProtocol::HttpJson => Protocol::HttpJson,
    });
    let base = Some(base).filter(|b| !b.is_empty());
    let env = |name: &str| std::env::var(name).ok();
    Destination::resolve(base, &headers, protocol, &env).map_err(|e| usage(&e.to_string()))
}

fn usage(message: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message.to_owned())
}

pub(crate) fn run(args: Args) -> io::Result<Outcome> {
    console::set_json(args.json);
    let otlp_only = args.content || args.endpoint.is_some() || !args.header.is_empty();
    match args.to {
        Target::Otlp => return run_otlp(args),
        Target::Agentlog if otlp_only || args.protocol.is_some() => {
            return Err(usage(
                "--content, --endpoint, --header and --protocol are for --to otlp",
            ));
        }
        Target::Agentlog => {}
    }
    let options = ExportOptions {
        root: args.root.clone(),
        redact: args.redact,
    };
    let one = args.files.len() == 1 && !args.files[0].is_dir();
    if one {
        let exported = export_one(&args.files[0], &options)?;
        exported.print();
        if let Some(document) = exported.document {
            let mut text = serde_json::to_vec_pretty(&document)?;
            text.push(b'\n');
            write_output(args.output.as_deref(), &text)?;
        }
        return Ok(exported.outcome);
    }
    // Several runs (FILEs, or each root run of a DIR): one document each, in a JSON array.
    let mut roots = Vec::new();
    let mut outcome = Outcome::Clean;
    for file in &args.files {
        if file.as_os_str() == "-" {
            return Err(usage("stdin is one run: give - alone"));
        }
        if file.is_dir() {
            let (found, listed) = root_files(file);
            roots.extend(found);
            outcome = outcome.worse(listed);
        } else {
            roots.push(file.clone());
        }
    }
    let workers = batch::workers(args.jobs.map_or(0, NonZeroUsize::get), roots.len());
    let outcome = write_output_with(args.output.as_deref(), &mut |out| {
        export_all(&roots, &options, workers, out).map(|o| outcome.worse(o))
    })?;
    Ok(outcome)
}

/// The AgentLog documents of `roots`, exported on `workers` threads ([`batch`]), written to
/// `out` as one pretty-printed JSON array, one document at a time as it and those before it
/// are done: what one worker writes, in the roots' order, without holding every document.
/// The first error (a file that cannot be read) ends the export, as with one worker.
fn export_all(
    roots: &[PathBuf],
    options: &ExportOptions,
    workers: usize,
    out: &mut dyn Write,
) -> io::Result<Outcome> {
    let mut outcome = Outcome::Clean;
    let mut failed: Option<io::Error> = None;
    let mut documents = 0usize;
    batch::in_order(
        roots,
        workers,
        |_, root, send| send(export_one(root, options)),
        |_, exported| {
            if failed.is_some() {
                return;
            }
            let written = exported.and_then(|exported| {
                exported.print();
                outcome = outcome.worse(exported.outcome);
                let Some(document) = exported.document else {
                    return Ok(());
                };
                documents += 1;
                out.write_all(if documents == 1 { b"[\n" } else { b",\n" })?;
                write_indented(out, &serde_json::to_string_pretty(&document)?, "  ", true)
            });
            failed = written.err();
        },
    );
    if let Some(error) = failed {
        return Err(error);
    }
    out.write_all(if documents == 0 { b"[]\n" } else { b"\n]\n" })?;
    Ok(outcome)
}

/// The files of a directory's root runs (those [`forest`] puts at the top: each run
/// file once, under the run that invokes it, or as a root), in file order; every other
/// run is in a root's document. What cannot be listed is reported, and makes the outcome
/// [`Outcome::Failed`].
fn root_files(dir: &Path) -> (Vec<PathBuf>, Outcome) {
    let (files, unlisted) = transcript_files(std::slice::from_ref(&dir.to_path_buf()));
    let mut outcome = Outcome::Clean;
    for (path, error) in unlisted {
        super::report_error(&with_path(&path, error));
        outcome = Outcome::Failed;
    }
    let roots = forest(&files).roots.into_iter().map(|run| run.file);
    (roots.collect(), outcome)
}

/// What exporting one run gave: its document, none when the file holds no event; the
/// problems met, to print; and the outcome.
struct Exported {
    document: Option<serde_json::Value>,
    problems: Vec<TreeProblem>,
    /// The file holds no event: its name and what to say.
    no_event: Option<(String, String)>,
    outcome: Outcome,
}

impl Exported {
    fn print(&self) {
        self.problems.iter().for_each(print_link);
        if let Some((name, message)) = &self.no_event {
            console::problem(&Problem::error(name, 1, 0, "no-event", message));
        }
    }
}

/// The AgentLog document of the run in `file` (stdin for `-`) and its linked runs, and
/// its problems; no document when the file holds no event.
fn export_one(file: &Path, options: &ExportOptions) -> io::Result<Exported> {
    let input = open(file)?;
    // A problem can quote the file (a value of the wrong type): with --redact it is masked
    // as the document is.
    let masked = |mut problems: Vec<TreeProblem>| {
        if options.redact {
            for problem in &mut problems {
                Redactor::credentials().redact_string(&mut problem.message);
            }
        }
        problems
    };
    // For stdin, the current directory; `-` has no directory of its own.
    let dir = dir_of(file);
    let exported = match export_from(input, file, dir, options) {
        Ok(exported) => exported,
        Err(ExportError::Empty { path, problems }) => {
            let unreadable = problems
                .iter()
                .any(|p| p.kind == LinkKind::Read(ProblemKind::Io));
            let name = display_name(&path);
            let message = match problems.len() {
                0 => "the file holds no event: nothing to export".to_owned(),
                n => format!("no event to export: {} above", plural(n as u64, "problem")),
            };
            let outcome = if unreadable {
                Outcome::Failed
            } else {
                Outcome::InputProblems
            };
            return Ok(Exported {
                document: None,
                problems: masked(problems),
                no_event: Some((name, message)),
                outcome,
            });
        }
        Err(error) => return Err(io::Error::other(error)),
    };
    let unreadable = exported
        .problems
        .iter()
        .any(|p| p.kind == LinkKind::Read(ProblemKind::Io));
    let outcome = if unreadable {
        Outcome::Failed
    } else if exported.problems.is_empty() {
        Outcome::Clean
    } else {
        Outcome::InputProblems
    };
    Ok(Exported {
        document: Some(exported.document),
        problems: masked(exported.problems),
        no_event: None,
        outcome,
    })
}

fn write_output(output: Option<&Path>, text: &[u8]) -> io::Result<()> {
    write_output_with(output, &mut |out| out.write_all(text))
}

/// What `write` writes, to the file named (whole or not at all: [`write_file_with`]) or to
/// stdout; an error writing the file names it.
///
/// [`write_file_with`]: crate::export::write_file_with
fn write_output_with<T>(
    output: Option<&Path>,
    write: &mut dyn FnMut(&mut dyn Write) -> io::Result<T>,
) -> io::Result<T> {
    match output {
        Some(path) => {
            let buffered = |file: &mut dyn Write| {
                let mut file = BufWriter::new(file);
                let written = write(&mut file)?;
                file.flush().map(|()| written)
            };
            crate::export::write_file_with(path, buffered).map_err(|e| with_path(path, e))
        }
        None => {
            let mut out = BufWriter::new(io::stdout().lock());
            let written = write(&mut out)?;
            out.flush().map(|()| written)
        }
    }
}

/// `--to otlp`: spans of every run given, written as OTLP/JSON or sent.
fn run_otlp(args: Args) -> io::Result<Outcome> {
    if args.redact || args.root.is_some() {
        return Err(usage(
            "--redact and --root are for --to agentlog (OTLP masks credentials always)",
        ));
    }
    if args.files.iter().any(|f| f.as_os_str() == "-") {
        return Err(usage(
            "--to otlp reads run files and directories, not stdin: give FILE or DIR",
        ));
    }
    let destination = match &args.endpoint {
        None => None,
        Some(base) => Some(destination(base, &args.header, args.protocol)?),
    };
    if destination.is_some() && args.output.is_some() {
        return Err(usage("give either --endpoint or -o FILE, not both"));
    }
    let options = BatchOptions {
        content: args.content,
    };
    let plan = match Plan::new(&args.files) {
        Ok(plan) => plan,
        Err(BatchError::Io { path, source }) => return Err(with_path(&path, source)),
        Err(error @ BatchError::Empty { .. }) => {
            console::error(&error);
            return Ok(Outcome::InputProblems);
        }
    };
    // Each root's tree read and mapped on a worker, merged in order: the spans are what
    // one worker gives.
    let roots: Vec<usize> = (0..plan.roots()).collect();
    let workers = batch::workers(args.jobs.map_or(0, NonZeroUsize::get), roots.len());
    let mut merged = plan.merge(&options);
    batch::in_order(
        &roots,
        workers,
        |_, &root, send| send(plan.export_root(root, &options)),
        |_, tree| merged.add(tree),
    );
    let batch = merged.finish();
    match &destination {
        None => {
            let text = encode::to_json(&encode::request(&batch.spans));
            write_output(args.output.as_deref(), &text)?;
        }
        Some(destination) => {
            let sent = send(destination, &batch.spans).map_err(io::Error::other)?;
            if !console::quiet() {
                console::notice(&format!(
                    "sent {} of {} to {}{}",
                    plural(sent.spans, "span"),
                    plural(batch.runs, "run"),
                    destination.shown_url(),
                    match sent.retries {
                        0 => String::new(),
                        n => format!(" ({} retried)", plural(n, "request")),
                    }
                ));
            }
            if sent.rejected > 0 {
                let said = sent.messages.join("; ");
                console::error(&format!(
                    "the collector at {} rejected {}{}",
                    destination.shown_url(),
                    plural(sent.rejected, "span"),
                    if said.is_empty() {
                        String::new()
                    } else {
                        format!(": {said}")
                    }
                ));
                return Ok(Outcome::Failed);
            }
        }
    }
    batch.problems.iter().for_each(print_link);
    let unreadable = batch
        .problems
        .iter()
        .any(|p| p.kind == LinkKind::Read(ProblemKind::Io));
    Ok(if unreadable {
        Outcome::Failed
    } else if batch.problems.is_empty() {
        Outcome::Clean
    } else {
        Outcome::InputProblems
    })
}
