//! `axt normalize`: provider output in, canonical transcript out.

use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};

use crate::Timestamp;
use crate::normalize::{
    DEFAULT_MAX_RECORD_BYTES, Detection, Diagnostic, DiagnosticKind, Options, Provider, Severity,
    detect_head,
};
use crate::read::transcript_files;
use crate::record::RecorderOptions;
use crate::transcribe::{EventOptions, EventSink, IfExists, JsonlSink, RecordingSink, Transcriber};

use super::batch;
use super::common::{ProviderChoice, provider_or_auto_parser};
use super::console::{self, Counting, Problem, Progress, plural};
use super::{Outcome, display_name, open, report_error, with_path};

/// Turn an agent's raw output into a canonical transcript (JSONL events, seq from 1).
///
/// Input is read as it arrives, so `agent ... | axt normalize` works live. Problems in the
/// input are printed to stderr as FILE:LINE: byte OFFSET: KIND: MESSAGE; the valid data
/// around them is still transcribed. Exit status: 0 when there was no error (warnings such
/// as a tool call without a result are printed, their message starting with `warning:`,
/// but do not count), 1 when the input had errors, 2 on usage errors or an input that
/// cannot be read.
///
/// Example: axt normalize corpus/normalize/claude/ok/plain-session-thinking-text-bash.jsonl
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The provider whose output this is; `auto` recognizes it from the first record.
    #[arg(long, short, value_parser = provider_or_auto_parser(), default_value = "auto")]
    provider: ProviderChoice,

    /// The transcript's run id (default: the provider's session id, else a new UUID).
    #[arg(long)]
    run_id: Option<String>,

    /// The largest record accepted, in bytes; longer ones are skipped and reported.
    #[arg(long, default_value_t = DEFAULT_MAX_RECORD_BYTES)]
    max_record_bytes: usize,

    /// The time of events the input does not date: `now` (when each is made), or
    /// `fixed:RFC3339` for reproducible batch output. Events the provider dated (Gemini,
    /// Copilot, OpenAI `created`, Claude Code session logs) carry its time either way.
    #[arg(long, value_name = "now|fixed:TIME", default_value = "now", value_parser = clock)]
    clock: Clock,

    /// Also print the input report on stderr: records by type and what became of them
    /// (mapped, passthrough, ignored, skipped), unreadable records, fields the adapter does
    /// not know. The run's metadata (`run.completed`) carries it either way.
    #[arg(long)]
    report: bool,

    /// Write the transcript through the recorder to DIR/<run-id>.jsonl (mode 0600) instead
    /// of stdout; the path is printed on stderr. A run DIR already has is refused.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,

    /// With --out: overwrite the run's file when DIR already has it.
    #[arg(long, requires = "out")]
    replace: bool,

    /// Print problems on stderr as JSON lines.
    #[arg(long)]
    json: bool,

    /// With several inputs: worker threads [default: one per core].
    #[arg(long, value_name = "N")]
    jobs: Option<NonZeroUsize>,

    /// Provider output file, or `-` for stdin; several files, or directories (their
    /// `*.jsonl` files), need --out: each input is a run of its own, transcribed on every
    /// core, reported in the order given.
    #[arg(default_value = "-", value_name = "FILE|DIR")]
    file: Vec<PathBuf>,
}

/// Where the times of undated events come from.
#[derive(Clone)]
enum Clock {
    Now,
    Fixed(Timestamp),
}

fn clock(text: &str) -> Result<Clock, String> {
    if text == "now" {
        return Ok(Clock::Now);
    }
    let time = text
        .strip_prefix("fixed:")
        .ok_or_else(|| format!("{text:?} is neither `now` nor `fixed:<RFC 3339 time>`"))?;
    Timestamp::parse(time)
        .map(Clock::Fixed)
        .map_err(|error| error.to_string())
}

pub(crate) fn run(args: Args) -> io::Result<Outcome> {
    console::set_json(args.json);
    if args.file.len() > 1 || args.file.iter().any(|path| path.is_dir()) {
        return batch(args);
    }
    let file = args
        .file
        .first()
        .map_or_else(|| PathBuf::from("-"), Clone::clone);
    let name = display_name(&file);
    let progress = batch_progress(&file, args.out.is_some());
    let limit = (args.max_record_bytes, Some("--max-record-bytes"));
    let done = transcribe(&file, &args, progress.as_ref(), &mut |diagnostic| {
        print_diagnostic(&name, &diagnostic, limit);
    })?;
    if let Some(path) = &done.wrote {
        console::notice(&format!("wrote {}", path.display()));
    }
    if let Some(report) = &done.report {
        writeln!(io::stderr().lock(), "{report}")?;
    }
    Ok(if done.errors > 0 {
        Outcome::InputProblems
    } else {
        Outcome::Clean
    })
}

/// What transcribing one input came to.
struct Done {
    /// Diagnostics of error severity.
    errors: usize,
    /// The run file written (with `--out`).
    wrote: Option<PathBuf>,
    /// The input report (with `--report`), its heading line first.
    report: Option<String>,
}

/// Transcribes the input at `path` (a file, or `-`) to stdout or, with `--out`, through the
/// recorder; each diagnostic is told to `tell` as it is found.
fn transcribe(
    path: &Path,
    args: &Args,
    progress: Option<&Progress>,
    tell: &mut dyn FnMut(Diagnostic),
) -> io::Result<Done> {
    let name = display_name(path);
    let mut input = Chunks::read(open(path)?, path)?;

    // Auto-detection needs the first record; keep what it reads to feed it afterwards.
    let mut head = Vec::new();
    let provider = match args.provider {
        ProviderChoice::Named(provider) => provider,
        ProviderChoice::Auto => loop {
            let chunk = input.next(&mut || Ok(()))?;
            let at_end = chunk.is_none();
            if let Some(chunk) = chunk {
                head.extend_from_slice(chunk.bytes());
                input.give_back(chunk);
            }
            let seen = match detect_head(&head, at_end, args.max_record_bytes) {
                Detection::Found(provider) => break provider,
                Detection::NeedMore => continue,
                Detection::Empty => "the input is empty",
                Detection::RecordTooLong => "its first record is longer than --max-record-bytes",
                Detection::Undetected(why) => why,
            };
            let choices: Vec<_> = Provider::ALL.iter().map(|p| p.as_str()).collect();
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{name}: cannot detect the provider ({seen}); pass --provider ({})",
                    choices.join("|")
                ),
            ));
        },
    };

    let options = Options {
        max_record_bytes: args.max_record_bytes,
    };
    let events = EventOptions {
        run_id: args.run_id.clone(),
        clock: match args.clock.clone() {
            Clock::Now => Box::new(Timestamp::now),
            Clock::Fixed(time) => Box::new(move || time.clone()),
        },
    };
    let mut transcriber = Transcriber::new(provider, options, events);
    let mut errors = 0usize;
    let on_diagnostic = |diagnostic: Diagnostic| {
        if diagnostic.severity() == Severity::Error {
            errors += 1;
        }
        tell(diagnostic);
        Ok(())
    };
    // A sink's own error becomes the command's I/O error (of the same text).
    let mut feed = |sink: &mut dyn EventSink<Error = io::Error>| -> io::Result<()> {
        transcriber.push(&head, sink)?;
        // Whatever the input's pace: when it pauses, the events so far go out (grep
        // --line-buffered's promise, without its write per line while data keeps coming).
        while let Some(chunk) = input.next(&mut || sink.flush())? {
            transcriber.push(chunk.bytes(), sink)?;
            if let Some(progress) = progress {
                progress.add(chunk.len as u64);
            }
            input.give_back(chunk);
        }
        transcriber.finish(sink)
    };
    let mut wrote = None;
    match &args.out {
        None => {
            let stdout = BufWriter::with_capacity(1 << 20, io::stdout().lock());
            let mut sink = JsonlSink::new(stdout, on_diagnostic);
            feed(&mut sink)?;
            sink.into_inner().flush()?;
        }
        Some(dir) => {
            let if_exists = if args.replace {
                IfExists::Replace
            } else {
                IfExists::Refuse
            };
            let sink = RecordingSink::new(dir, RecorderOptions::default(), on_diagnostic)
                .if_exists(if_exists);
            let mut sink = IoErrors(sink);
            feed(&mut sink).map_err(|error| match error.kind() {
                io::ErrorKind::AlreadyExists => io::Error::new(
                    error.kind(),
                    format!("{error}; pass --replace to overwrite it"),
                ),
                _ => error,
            })?;
            if let Some(recorder) = sink.0.recorder() {
                recorder.close().map_err(io::Error::other)?;
                wrote = Some(recorder.path().to_owned());
            }
        }
    }
    let report = args.report.then(|| {
        format!(
            "{name}: {provider} input report\n{}",
            transcriber.meta().report
        )
    });
    Ok(Done {
        errors,
        wrote,
        report,
    })
}

/// What a batch worker hands the printing thread about its input, in order.
enum Message {
    Diagnostic(Diagnostic),
    Done(io::Result<Done>),
}

/// Several inputs (files, and the `*.jsonl` files of directories), each its own run in
/// `--out`, transcribed on every core (`--jobs`); what is printed, and the runs written, are
/// what one worker would print and write, in the order the inputs were named.
fn batch(args: Args) -> io::Result<Outcome> {
    let usage = |message: &str| Err(io::Error::new(io::ErrorKind::InvalidInput, message));
    if args.out.is_none() {
        return usage("several inputs (or a directory) need --out DIR: each is a run of its own");
    }
    if args.run_id.is_some() {
        return usage("--run-id names one run; with several inputs each run is named by its input");
    }
    if args.file.iter().any(|path| path.as_os_str() == "-") {
        return usage("stdin (`-`) cannot be one of several inputs");
    }
    let (files, unlisted) = transcript_files(&args.file);
    let mut failed = !unlisted.is_empty();
    for (path, error) in unlisted {
        report_error(&with_path(&path, error));
    }
    let (mut errors, mut written) = (0usize, 0usize);
    let limit = (args.max_record_bytes, Some("--max-record-bytes"));
    let workers = batch::workers(args.jobs.map_or(0, NonZeroUsize::get), files.len());
    batch::in_order(
        &files,
        workers,
        |path, send| {
            let done = transcribe(path, &args, None, &mut |diagnostic| {
                send(Message::Diagnostic(diagnostic));
            });
            send(Message::Done(done));
        },
        |index, message| match message {
            Message::Diagnostic(diagnostic) => {
                print_diagnostic(&display_name(&files[index]), &diagnostic, limit);
            }
            Message::Done(Ok(done)) => {
                errors += done.errors;
                written += usize::from(done.wrote.is_some());
                if let Some(path) = &done.wrote {
                    console::notice(&format!("wrote {}", path.display()));
                }
                if let Some(report) = &done.report {
                    let _ = writeln!(io::stderr().lock(), "{report}");
                }
            }
            Message::Done(Err(error)) => {
                failed = true;
                report_error(&error);
            }
        },
    );
    console::notice(&format!(
        "{} of {} written",
        plural(written as u64, "run"),
        plural(files.len() as u64, "input")
    ));
    Ok(if failed {
        Outcome::Failed
    } else if errors > 0 || files.is_empty() {
        Outcome::InputProblems
    } else {
        Outcome::Clean
    })
}

/// A sink whose errors are turned into I/O errors of the same text, so that one loop feeds
/// both sinks.
struct IoErrors<S>(S);

impl<S: EventSink> EventSink for IoErrors<S>
where
    io::Error: From<S::Error>,
{
    type Error = io::Error;

    fn event(&mut self, event: crate::model::ExchangeEvent) -> io::Result<()> {
        Ok(self.0.event(event)?)
    }
    fn diagnostic(&mut self, diagnostic: Diagnostic) -> io::Result<()> {
        Ok(self.0.diagnostic(diagnostic)?)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(self.0.flush()?)
    }
}

/// Inputs at least this large get a progress bar.
const PROGRESS_BYTES: u64 = 64 << 20;

/// A progress bar for a long run over one input: a file of known size, at least
/// [`PROGRESS_BYTES`], whose transcript does not go to the terminal the bar would be drawn
/// on.
fn batch_progress(file: &Path, out: bool) -> Option<Progress> {
    if file.as_os_str() == "-" || (!out && io::stdout().is_terminal()) {
        return None;
    }
    let size = std::fs::metadata(file).ok()?.len();
    if size < PROGRESS_BYTES {
        return None;
    }
    console::progress(size, Counting::Bytes)
}

/// Prints a diagnostic of the input named `name`. `limit` is the record size limit and the
/// option that sets it, if the command has one: a diagnostic that hit it names both.
pub(crate) fn print_diagnostic(
    name: &str,
    diagnostic: &Diagnostic,
    (limit, option): (usize, Option<&str>),
) {
    let limited;
    let message = if diagnostic.kind == DiagnosticKind::RecordTooLarge {
        let option = option.map(|o| format!(": {o}")).unwrap_or_default();
        limited = format!(
            "{} (the limit is {limit} bytes{option})",
            diagnostic.message
        );
        &limited
    } else {
        &diagnostic.message
    };
    console::problem(&Problem {
        file: name,
        line: diagnostic.line,
        offset: diagnostic.offset,
        kind: diagnostic.kind.as_str(),
        severity: diagnostic.severity().into(),
        message,
    });
}

/// The input, read on a thread of its own so that the main thread can tell when it pauses:
/// when no chunk is waiting, the reader is blocked on input that has not come yet.
struct Chunks {
    full: Receiver<io::Result<Chunk>>,
    /// Buffers handed back to the reader, so that a long input is read without allocating.
    empty: Sender<Vec<u8>>,
    /// The input's name, for a read error.
    path: PathBuf,
}

/// Bytes read in one `read(2)`: a file gives a whole buffer, a pipe what was written so far.
struct Chunk {
    buffer: Vec<u8>,
    len: usize,
}

impl Chunk {
    fn bytes(&self) -> &[u8] {
        &self.buffer[..self.len]
    }
}

/// The reader's buffer size, and how many chunks it may read ahead of the transcriber:
/// small enough that the chunk being transcribed was read a moment ago and is still in the
/// CPU's cache (with 4 chunks of 1 MiB ahead, the CPU time of a batch run grew by 4-6%).
const CHUNK_BYTES: usize = 256 << 10;
const READ_AHEAD: usize = 1;

impl Chunks {
    fn read(mut input: Box<dyn Read + Send>, path: &Path) -> io::Result<Chunks> {
        let (send_full, full) = mpsc::sync_channel(READ_AHEAD);
        let (empty, receive_empty) = mpsc::channel::<Vec<u8>>();
        std::thread::Builder::new()
            .name("axt-input".into())
            .spawn(move || {
                loop {
                    let mut buffer = receive_empty
                        .try_recv()
                        .unwrap_or_else(|_| vec![0; CHUNK_BYTES]);
                    let read = loop {
                        match input.read(&mut buffer) {
                            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                            other => break other,
                        }
                    };
                    let chunk = match read {
                        Ok(0) => return,
                        Ok(len) => Ok(Chunk { buffer, len }),
                        Err(error) => Err(error),
                    };
                    let failed = chunk.is_err();
                    // The main thread has gone (stdout closed, say): stop reading.
                    if send_full.send(chunk).is_err() || failed {
                        return;
                    }
                }
            })?;
        Ok(Chunks {
            full,
            empty,
            path: path.to_owned(),
        })
    }

    /// The next chunk, `None` at the end of the input; `paused` runs first when the next
    /// chunk has not been read yet.
    fn next(&mut self, paused: &mut dyn FnMut() -> io::Result<()>) -> io::Result<Option<Chunk>> {
        let received = match self.full.try_recv() {
            Ok(chunk) => Ok(chunk),
            Err(TryRecvError::Disconnected) => return Ok(None),
            Err(TryRecvError::Empty) => {
                paused()?;
                self.full.recv()
            }
        };
        match received {
            Ok(chunk) => chunk
                .map(Some)
                .map_err(|error| with_path(&self.path, error)),
            Err(_) => Ok(None),
        }
    }

    fn give_back(&self, chunk: Chunk) {
        let _ = self.empty.send(chunk.buffer);
    }
}
