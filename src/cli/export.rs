//! `axt export`: a canonical transcript out to another format.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::export::otlp::send::{
    Destination, Protocol, SPANS_PER_REQUEST, Sent, parse_header, send,
};
use crate::export::otlp::{self, CAPTURE_VARIABLE, Capture, Span, encode};
use crate::export::parquet::DatasetReport;
use crate::export::{ExportError, Misuse, Options, Output, Setting, Target, check, export};
use crate::read::tree::{LinkKind, TreeProblem, forest, may_invoke_runs, unlinked_roots};
use crate::read::{ProblemKind, transcript_files};
use crate::record::Redactor;

use super::check::print_link;
use super::console::{self, Problem, plural};
use super::{Outcome, display_name, with_path, write_indented};
use crate::batch;

/// Export runs to another format: a document, spans, or a dataset.
///
/// AgentLog (the default): reads FILE and every child run it links (child_run_id, in the
/// same directory; with `-`, the root run is read from stdin and its children looked up in
/// the current directory) and writes one AgentLog 0.2.0 JSON document to stdout, or to the
/// file named by -o. Paths are made relative to the project root: the run's recorded cwd,
/// or --root.
///
/// OTLP (--to otlp): reads every FILE and every run file in each DIR, with their linked
/// runs, and writes OpenTelemetry spans in the GenAI semantic conventions (one trace per
/// run tree) as OTLP/JSON to stdout or -o FILE, or sends them to a collector with
/// --endpoint (OTLP/HTTP to URL/v1/traces; OTEL_EXPORTER_OTLP_ENDPOINT,
/// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS and
/// OTEL_EXPORTER_OTLP_PROTOCOL are read). Message text, tool arguments and results are
/// exported only with --content, or as OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT
/// says (SPAN_ONLY, EVENT_ONLY, SPAN_AND_EVENT), credentials masked.
///
/// Parquet (--to parquet): reads every FILE and every `*.jsonl` under each DIR (walked) and
/// writes the runs into the dataset at --out DIR: tables runs, steps, llm_calls,
/// tool_calls, diagnostics, and content with --content (credentials masked with
/// --redact), Hive-partitioned by date. Incremental: a run already in the dataset with the
/// same content is skipped, one whose transcript changed is replaced; exports into one
/// directory take turns on its lock. The schema is in docs/parquet.md.
///
/// Several runs are exported on every core (--jobs; AgentLog, OTLP, Parquet): what is
/// written and printed is what one worker gives, each AgentLog document written as soon as
/// it and those before it are done.
///
/// What could not be exported cleanly (lines that are not events, missing children, results
/// without their call) is reported on stderr as FILE:LINE: byte OFFSET: KIND: MESSAGE (and
/// listed in an AgentLog document, and in the dataset's diagnostics table).
///
/// Exit status: 0 clean, 1 problems reported (the output is still written when a run has
/// an event), 2 usage error, a file that cannot be read or written, or a collector that
/// refused the spans.
///
/// Examples: axt export transcripts/<session-id>.jsonl -o session.agentlog.json;
/// axt export --to otlp transcripts/ --endpoint http://localhost:6006;
/// axt export --to parquet transcripts/ --out dataset/
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The target format.
    #[arg(long, value_name = "TARGET", value_parser = target_parser(), default_value = "agentlog")]
    to: Target,
    /// Write the document to FILE instead of stdout.
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Parquet: the dataset's directory (created if missing).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Mask credentials (API keys, tokens, private keys) with the recorder's redactor.
    #[arg(long)]
    redact: bool,
    /// The project root paths are made relative to, when the run does not record one.
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Print problems on stderr as JSON lines.
    #[arg(long)]
    json: bool,
    /// OTLP and Parquet: export message text, system prompts, tool arguments and results
    /// (OTLP masks credentials in them; Parquet with --redact); without it only names, ids,
    /// counts and times.
    #[arg(long)]
    content: bool,
    /// Worker threads (default: one per core), for several runs (AgentLog, OTLP) and
    /// Parquet; the output is the same whatever their number.
    #[arg(long, value_name = "N", default_value_t = 0, hide_default_value = true)]
    jobs: usize,
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
    /// The root run's transcript file, or `-` for stdin; run files and directories of them
    /// (AgentLog: one document per root run, in an array; OTLP: one trace per run tree;
    /// Parquet).
    #[arg(value_name = "FILE|DIR", required = true)]
    files: Vec<PathBuf>,
}

/// `--to`: the library's target list, each with its description.
fn target_parser() -> impl clap::builder::TypedValueParser<Value = Target> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let values = Target::ALL.map(|target| PossibleValue::new(target.as_str()).help(target.about()));
    PossibleValuesParser::new(values).map(|name| name.parse::<Target>().expect("a listed name"))
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

/// A misuse in the command line's words.
fn misuse(misuse: &Misuse) -> io::Error {
    let flag = |setting: Setting| format!("--{}", setting.as_str());
    let message = match misuse {
        Misuse::Setting { setting, .. } => {
            let targets: Vec<String> = setting
                .targets()
                .iter()
                .map(|target| format!("--to {target}"))
                .collect();
            format!("{} is for {}", flag(*setting), targets.join(" and "))
        }
        Misuse::Missing { setting, target } => {
            format!("--to {target} needs {} DIR", flag(*setting))
        }
        Misuse::OneInput { target } => format!("--to {target} exports one root run: give one FILE"),
        Misuse::NoStdin { target } => {
            format!("--to {target} reads run files and directories, not stdin: give FILE or DIR")
        }
        other => other.to_string(),
    };
    usage(&message)
}

pub(crate) fn run(args: Args) -> io::Result<Outcome> {
    console::set_json(args.json);
    let target = args.to;
    let delivery = args.endpoint.is_some() || !args.header.is_empty() || args.protocol.is_some();
    if delivery && target != Target::Otlp {
        return Err(usage(
            "--endpoint, --header and --protocol are for --to otlp",
        ));
    }
    if args.output.is_some() && target == Target::Parquet {
        return Err(usage(
            "--to parquet writes a dataset: give --out DIR, not -o FILE",
        ));
    }
    // OTLP without --content: the conventions' content capture setting decides.
    let capture = match (target, args.content) {
        (Target::Otlp, false) => capture_setting(),
        (_, true) => Capture::SpanOnly,
        _ => Capture::NoContent,
    };
    let options = Options {
        root: args.root.clone(),
        redact: args.redact,
        content: args.content || capture.spans(),
        content_events: capture.events(),
        out: args.out.clone(),
        jobs: args.jobs,
        // The estimated costs: the price table `axt stats` uses, so the two agree.
        prices: (target == Target::Parquet).then(super::common::prices),
    };
    // AgentLog over several runs (FILEs, or each root run of a DIR): one document each, in
    // a JSON array.
    if target == Target::AgentLog && (args.files.len() > 1 || args.files[0].is_dir()) {
        return agentlog_documents(&args, &options);
    }
    check(target, &args.files, &options).map_err(|e| misuse(&e))?;
    let destination = match &args.endpoint {
        None => None,
        Some(base) => Some(destination(base, &args.header, args.protocol)?),
    };
    if destination.is_some() && args.output.is_some() {
        return Err(usage("give either --endpoint or -o FILE, not both"));
    }
    if target == Target::Otlp {
        return otlp_spans(&args, &options, destination.as_ref());
    }
    let exported = match export(target, &args.files, &options) {
        Ok(exported) => exported,
        Err(ExportError::Misuse(e)) => return Err(misuse(&e)),
        Err(ExportError::Io { path, source }) => return Err(with_path(&path, source)),
        Err(ExportError::Empty { paths, problems }) if !target.takes_many() => {
            return Ok(no_event(&paths[0], &problems, options.redact));
        }
        Err(ExportError::Empty { paths, .. }) => {
            let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
            console::error(&format!(
                "no transcript with an event in {}",
                names.join(", ")
            ));
            return Ok(Outcome::InputProblems);
        }
        Err(error) => return Err(io::Error::other(error)),
    };
    let mut failed = false;
    match exported.output {
        Output::Document(document) => {
            let mut text = serde_json::to_vec_pretty(&document)?;
            text.push(b'\n');
            write_output(args.output.as_deref(), &text)?;
        }
        Output::Spans(_) => unreachable!("OTLP is streamed by otlp_spans"),
        Output::Dataset(report) => failed = !dataset_report(&report, &options),
    }
    Ok(outcome_of(&exported.problems, failed, options.redact))
}

/// The outcome of an export whose link problems are `problems`, printed here; `failed`
/// when its output could not be delivered.
fn outcome_of(problems: &[TreeProblem], failed: bool, redact: bool) -> Outcome {
    problems.iter().for_each(|p| print_problem(p, redact));
    let unreadable = problems
        .iter()
        .any(|p| p.kind == LinkKind::Read(ProblemKind::Io));
    if unreadable || failed {
        Outcome::Failed
    } else if problems.is_empty() {
        Outcome::Clean
    } else {
        Outcome::InputProblems
    }
}

/// A problem on stderr. It can quote the file (a value of the wrong type): with --redact
/// it is masked as the output is.
fn print_problem(problem: &TreeProblem, redact: bool) {
    if redact {
        let mut masked = problem.clone();
        Redactor::credentials().redact_string(&mut masked.message);
        print_link(&masked);
    } else {
        print_link(problem);
    }
}

/// A run file with no event: its problems and why nothing is exported.
fn no_event(path: &Path, problems: &[TreeProblem], redact: bool) -> Outcome {
    problems.iter().for_each(|p| print_problem(p, redact));
    let unreadable = problems
        .iter()
        .any(|p| p.kind == LinkKind::Read(ProblemKind::Io));
    let name = display_name(path);
    let message = match problems.len() {
        0 => "the file holds no event: nothing to export".to_owned(),
        n => format!("no event to export: {} above", plural(n as u64, "problem")),
    };
    console::problem(&Problem::error(&name, 1, 0, "no-event", &message));
    if unreadable {
        Outcome::Failed
    } else {
        Outcome::InputProblems
    }
}

/// AgentLog over several runs (FILEs, or each root run of a DIR): one document per root
/// run, in a JSON array.
fn agentlog_documents(args: &Args, options: &Options) -> io::Result<Outcome> {
    let mut roots = Vec::new();
    let mut outcome = Outcome::Clean;
    for file in &args.files {
        if file.as_os_str() == "-" {
            return Err(usage("stdin is one run: give - alone"));
        }
        if file.is_dir() {
            let (found, listed) = root_files(file, options.jobs);
            roots.extend(found);
            outcome = outcome.worse(listed);
        } else {
            roots.push(file.clone());
        }
    }
    let workers = batch::workers(options.jobs, roots.len());
    let written = write_output_with(args.output.as_deref(), &mut |out| {
        agentlog_array(&roots, options, workers, out)
    })?;
    Ok(outcome.worse(written))
}

/// The AgentLog documents of `roots`, exported on `workers` threads ([`batch`]), written to
/// `out` as one pretty-printed JSON array, one document at a time as it and those before it
/// are done: what one worker writes, in the roots' order, without holding every document.
/// Each worker prints its own document into the array's text (pretty-printing is most of
/// an export's time: done on the one thread that writes, it would keep the workers
/// waiting), and what waits to be written is that text, not the document's tree.
/// The first error (a file that cannot be read) ends the export, as with one worker.
fn agentlog_array(
    roots: &[PathBuf],
    options: &Options,
    workers: usize,
    out: &mut dyn Write,
) -> io::Result<Outcome> {
    let mut outcome = Outcome::Clean;
    let mut failed: Option<io::Error> = None;
    let mut documents = 0usize;
    batch::in_order(
        roots,
        workers,
        |_, root, send| {
            let exported = export(Target::AgentLog, std::slice::from_ref(root), options);
            send(exported.map(|exported| {
                let text = match &exported.output {
                    Output::Document(document) => Some(array_element(document)),
                    _ => None,
                };
                (exported.problems, text)
            }));
        },
        |_, exported| {
            if failed.is_some() {
                return;
            }
            let (problems, text) = match exported {
                Ok(exported) => exported,
                Err(ExportError::Misuse(e)) => return failed = Some(misuse(&e)),
                Err(ExportError::Io { path, source }) => {
                    return failed = Some(with_path(&path, source));
                }
                Err(ExportError::Empty { paths, problems }) => {
                    outcome = outcome.worse(no_event(&paths[0], &problems, options.redact));
                    return;
                }
                Err(error) => return failed = Some(io::Error::other(error)),
            };
            outcome = outcome.worse(outcome_of(&problems, false, options.redact));
            let Some(text) = text else {
                return;
            };
            documents += 1;
            let opening: &[u8] = if documents == 1 { b"[\n" } else { b",\n" };
            failed = text
                .and_then(|text| {
                    out.write_all(opening)?;
                    out.write_all(&text)
                })
                .err();
        },
    );
    if let Some(error) = failed {
        return Err(error);
    }
    out.write_all(if documents == 0 { b"[]\n" } else { b"\n]\n" })?;
    Ok(outcome)
}

/// `document` pretty-printed as an element of the array [`agentlog_array`] writes: every
/// line indented by two spaces, no line end after the last.
fn array_element(document: &serde_json::Value) -> io::Result<Vec<u8>> {
    let text = serde_json::to_string_pretty(document)?;
    let mut element = Vec::with_capacity(text.len() + text.len() / 8);
    write_indented(&mut element, &text, "  ", true)?;
    Ok(element)
}

/// The files of a directory's root runs (those [`forest`] puts at the top: each run
/// file once, under the run that invokes it, or as a root), in file order; every other
/// run is in a root's document. What cannot be listed is reported, and makes the outcome
/// [`Outcome::Failed`]. The forest is built only when a file may invoke another run
/// (looked for on `jobs` workers): without links every file is a root, and reading every
/// run whole on this one thread, before the documents are shared out, would be the
/// batch's serial part.
fn root_files(dir: &Path, jobs: usize) -> (Vec<PathBuf>, Outcome) {
    let (files, unlisted) = transcript_files(std::slice::from_ref(&dir.to_path_buf()));
    let mut outcome = Outcome::Clean;
    for (path, error) in unlisted {
        super::report_error(&with_path(&path, error));
        outcome = Outcome::Failed;
    }
    let mut linked = false;
    batch::in_order(
        &files,
        batch::workers(jobs, files.len()),
        |_, file, send| send(may_invoke_runs(file)),
        |_, may| linked |= may,
    );
    let roots = if linked {
        forest(&files)
            .roots
            .into_iter()
            .map(|run| run.file)
            .collect()
    } else {
        unlinked_roots(&files)
    };
    (roots, outcome)
}

/// `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`: a value the conventions do not
/// define is no content, with a warning, as they ask.
fn capture_setting() -> Capture {
    let Ok(value) = std::env::var(CAPTURE_VARIABLE) else {
        return Capture::NoContent;
    };
    Capture::parse(&value).unwrap_or_else(|| {
        console::warning(&format!(
            "{CAPTURE_VARIABLE}={value:?} is none of NO_CONTENT, SPAN_ONLY, EVENT_ONLY, \
             SPAN_AND_EVENT: no content is exported"
        ));
        Capture::NoContent
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

/// OTLP: the inputs' spans, tree by tree as they are exported on every core
/// ([`otlp::export_each`]), written as OTLP/JSON as they come, or sent
/// [`SPANS_PER_REQUEST`] at a time: what one request of every span would write or send,
/// without holding every span. The problems are printed at the end, as for the others.
fn otlp_spans(
    args: &Args,
    options: &Options,
    destination: Option<&Destination>,
) -> io::Result<Outcome> {
    let batch_options = otlp::BatchOptions {
        content: options.content,
        content_events: options.content_events,
    };
    let plan = match otlp::Plan::new(&args.files, options.jobs) {
        Ok(plan) => plan,
        Err(otlp::BatchError::Io { path, source }) => return Err(with_path(&path, source)),
        Err(otlp::BatchError::Empty { paths }) => {
            let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
            console::error(&format!(
                "no transcript with an event in {}",
                names.join(", ")
            ));
            return Ok(Outcome::InputProblems);
        }
    };
    let mut problems = Vec::new();
    let mut failed = false;
    match destination {
        None => write_output_with(args.output.as_deref(), &mut |out| {
            let text = encode::SpanText::new();
            let mut spans = encode::JsonSpans::with_text(out, text.clone());
            // The first write that fails ends the writing (the export still ends).
            let mut unwritten: Option<io::Error> = None;
            // Each tree's spans are encoded by the worker that exported it: the one writing
            // thread only writes them.
            let encode = |tree: &[Span]| text.spans(tree);
            plan.export_prepared(&batch_options, options.jobs, &encode, &mut |tree, text| {
                if unwritten.is_none() {
                    let count = tree.spans.len() as u64;
                    unwritten = text.and_then(|text| spans.encoded(&text, count)).err();
                }
                problems.extend(tree.problems);
            });
            match unwritten {
                Some(error) => Err(error),
                None => spans.finish().map(drop),
            }
        })?,
        Some(destination) => {
            let (mut pending, mut sent, mut runs) = (Vec::new(), Sent::default(), 0);
            let mut refused = None;
            // After a request that failed, nothing more is sent (the export still ends).
            let mut send_some = |spans: &[Span], sent: &mut Sent| {
                if refused.is_none() {
                    match send(destination, spans) {
                        Ok(more) => add_sent(sent, more),
                        Err(error) => refused = Some(error),
                    }
                }
            };
            plan.export_each(&batch_options, options.jobs, &mut |tree| {
                runs += tree.runs;
                problems.extend(tree.problems);
                pending.extend(tree.spans);
                while pending.len() >= SPANS_PER_REQUEST {
                    let rest = pending.split_off(SPANS_PER_REQUEST);
                    send_some(&std::mem::replace(&mut pending, rest), &mut sent);
                }
            });
            if !pending.is_empty() {
                send_some(&pending, &mut sent);
            }
            if let Some(error) = refused {
                return Err(io::Error::other(error));
            }
            failed = !said_sent(destination, &sent, runs);
        }
    }
    Ok(outcome_of(&problems, failed, options.redact))
}

/// Adds what a request sent to what the requests before it sent.
fn add_sent(sent: &mut Sent, more: Sent) {
    sent.requests += more.requests;
    sent.spans += more.spans;
    sent.rejected += more.rejected;
    sent.messages.extend(more.messages);
    sent.retries += more.retries;
}

/// Says what was sent of `runs` runs; `false` when the collector rejected some spans.
fn said_sent(destination: &Destination, sent: &Sent, runs: u64) -> bool {
    if !console::quiet() {
        console::notice(&format!(
            "sent {} of {} to {}{}",
            plural(sent.spans, "span"),
            plural(runs, "run"),
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
        return false;
    }
    true
}

/// Says what an export into a dataset did; `false` when some file could not be read.
fn dataset_report(report: &DatasetReport, options: &Options) -> bool {
    for (path, error) in &report.unreadable {
        console::unreadable(&display_name(path), error);
    }
    if !console::quiet() {
        let out = options.out.as_deref().unwrap_or(Path::new("."));
        console::notice(&format!(
            "exported {} into {}: {} added, {} replaced, {} unchanged; {} written",
            plural(report.files, "file"),
            out.display(),
            report.added,
            report.replaced,
            report.unchanged,
            match report.batches {
                1 => "1 batch".to_owned(),
                n => format!("{n} batches"),
            },
        ));
    }
    report.unreadable.is_empty()
}
