//! `axt normalize`: provider output in, canonical transcript out.

use std::cell::{Cell, RefCell};
use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};

use crate::Timestamp;
use crate::model::ExchangeEvent;
use crate::model::files::RAW_EXTENSION;
use crate::normalize::{
    DEFAULT_MAX_RECORD_BYTES, Detection, Diagnostic, DiagnosticKind, Options, Provider, Severity,
    detect_head,
};
use crate::read::files_with_extensions;
use crate::record::{Batch, RecorderOptions};
use crate::transcribe::{
    EventOptions, EventSink, IfExists, JsonlSink, RecordingError, RecordingSink, Transcriber,
};

use super::common::{ProviderChoice, provider_or_auto_parser};
use super::console::{self, Counting, Problem, Progress};
use super::hints::{self, Hints, Verdict};
use super::{Outcome, display_name, open, report_error, with_path};
use crate::batch;

/// Turn an agent's raw output into a canonical transcript (JSONL events, seq from 1).
///
/// Input is read as it arrives, so `agent ... | axt normalize` works live. Problems in the
/// input are printed to stderr as FILE:LINE: byte OFFSET: KIND: MESSAGE; the valid data
/// around them is still transcribed. An input that ends before the run's terminal record
/// (cut short, or empty) is an error: the run is incomplete. Pretty-printed JSON gets one
/// hint (`jq -c`) instead of a problem per line, and a Claude Code session log a pointer to
/// `axt import claude-code`. Several inputs, or a directory, are a batch: each file its
/// own run in --out, normalized on every core (--jobs), what is printed and written the
/// same as one worker's, in the order the inputs were named. Exit status: 0 when there was no error (warnings such as a tool call without a
/// result are printed, their message starting with `warning:`, but do not count), 1 when
/// the input had errors, 2 on usage errors or an input that cannot be read.
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

    /// With --out: overwrite the run's file when DIR already has it (never while another
    /// process is recording it).
    #[arg(long, requires = "out")]
    replace: bool,

    /// Print problems on stderr as JSON lines.
    #[arg(long)]
    json: bool,

    /// With several inputs or a directory: worker threads [default: one per core].
    #[arg(long, value_name = "N")]
    jobs: Option<NonZeroUsize>,

    /// Provider output file, or `-` for stdin; or several files, or directories of them
    /// (*.jsonl, *.json, *.sse, *.raw, walked), each normalized to its own run in --out.
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
    if let [file] = &args.file[..]
        && !file.is_dir()
    {
        // One input: its messages printed as they come, with a progress bar when long.
        let progress = one_input_progress(&args, file);
        let name = display_name(file);
        let tell = &mut |said: Told| said.print(&name, args.max_record_bytes);
        let input = Chunks::read(open(file)?, file)?;
        let claim = &mut Unclaimed;
        return normalize_file(&args, file, input, progress.as_ref(), claim, tell);
    }
    batch_run(&args)
}

/// Several inputs, or a directory's: each file its own run in `--out`, on `--jobs` workers
/// ([`batch`]); what is printed and what is written are what one worker gives, in the
/// order the inputs were named (directories walked sorted).
fn batch_run(args: &Args) -> io::Result<Outcome> {
    let usage = |message: &str| {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            message.to_owned(),
        ))
    };
    let a_directory = args.file.iter().any(|path| path.is_dir());
    if args.out.is_none() {
        return usage(if a_directory {
            "a directory holds one run per file: give --out DIR for the transcripts \
             (stdout would mix the runs)"
        } else {
            "several inputs are a run each: give --out DIR for the transcripts \
             (stdout would mix the runs)"
        });
    }
    if args.run_id.is_some() {
        return usage(if a_directory {
            "--run-id names one run: a directory's files each get their own"
        } else {
            "--run-id names one run: several inputs each get their own"
        });
    }
    if args.file.iter().any(|path| path.as_os_str() == "-") {
        return usage("stdin (`-`) is one input: give it alone");
    }
    let (files, failed) = files_with_extensions(&args.file, AGENT_OUTPUT);
    let mut outcome = if failed.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Failed
    };
    for (path, error) in failed {
        report_error(&with_path(&path, error));
    }
    for dir in args.file.iter().filter(|path| path.is_dir()) {
        if !files.iter().any(|file| file.starts_with(dir)) {
            console::error(&format!(
                "{}: no agent output there (*.jsonl, *.json, *.sse, *.raw); nothing normalized",
                display_name(dir)
            ));
            outcome = outcome.worse(Outcome::InputProblems);
        }
    }
    let workers = batch::workers(args.jobs.map_or(0, NonZeroUsize::get), files.len());
    // Two inputs may be one run (a session normalized twice): its file goes to the
    // earlier input, as with one worker.
    let claims = batch::Claims::new(files.len());
    batch::in_order(
        &files,
        workers,
        |index, file, send| {
            let _ending = claims.ending(index);
            let claim = &mut BatchClaim {
                claims: &claims,
                index,
            };
            let done = Chunks::alongside(file).and_then(|input| {
                normalize_file(args, file, input, None, claim, &mut |said| {
                    send(Said::Told(said));
                })
            });
            send(Said::Done(done));
        },
        |index, said| {
            let name = display_name(&files[index]);
            match said {
                Said::Told(told) => told.print(&name, args.max_record_bytes),
                Said::Done(Ok(this)) => outcome = outcome.worse(this),
                Said::Done(Err(error)) => {
                    report_error(&error);
                    outcome = outcome.worse(Outcome::Failed);
                }
            }
        },
    );
    Ok(outcome)
}

/// What a batch worker hands the printing thread about its input, in order.
enum Said {
    Told(Told),
    Done(io::Result<Outcome>),
}

/// Something normalizing one input has to say on stderr, said by whoever prints: at
/// once for one input, by the printing thread, in the inputs' order, for a batch.
enum Told {
    /// A diagnostic of the input; `cut` prints it as an error whatever its severity.
    Diagnostic {
        diagnostic: Diagnostic,
        cut: bool,
    },
    Error(String),
    Warning(String),
    Notice(String),
    /// The input report (`--report`), its heading first.
    Report(String),
}

impl Told {
    /// Prints it, of the input named `name`; `limit` is `--max-record-bytes`.
    fn print(&self, name: &str, limit: usize) {
        match self {
            Told::Diagnostic {
                diagnostic,
                cut: true,
            } => print_error(name, diagnostic),
            Told::Diagnostic { diagnostic, .. } => {
                print_diagnostic(name, diagnostic, (limit, Some("--max-record-bytes")));
            }
            Told::Error(message) => console::error(message),
            Told::Warning(message) => console::warning(message),
            Told::Notice(message) => console::notice(message),
            Told::Report(report) => {
                let _ = writeln!(io::stderr().lock(), "{report}");
            }
        }
    }
}

/// The files `axt normalize DIR` reads as agent output: JSONL streams, JSON bodies, SSE,
/// and the raw captures `axt exec` keeps ([`RAW_EXTENSION`]).
const AGENT_OUTPUT: &[&str] = &["jsonl", "json", "sse", RAW_EXTENSION];

/// Normalizes one input, `file`, read through `input`, with the options of `args`; with
/// `--out`, the run id is claimed from `claim` before the run's file is made (while it may
/// not be, the run's events are held: [`IoErrors`]); what it has to say on stderr goes to
/// `tell` (the input's I/O and detection errors are its error).
fn normalize_file(
    args: &Args,
    file: &Path,
    mut input: Chunks,
    progress: Option<&Progress>,
    claim: &mut dyn RunClaim,
    tell: &mut dyn FnMut(Told),
) -> io::Result<Outcome> {
    let name = display_name(file);

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
            let mut looked = Hints::default();
            looked.saw(&head);
            looked.ended();
            // A single document (an API's response or error body) is read pretty-printed
            // as it is; a stream of records written over many lines (`jq .` of JSONL) is not.
            let one_document = serde_json::from_slice::<serde::de::IgnoredAny>(&head).is_ok();
            let hint = if looked.pretty_printed() && !one_document {
                hints::pretty_detection_hint(&name)
            } else {
                String::new()
            };
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{name}: cannot detect the provider ({seen}); pass --provider ({}){hint}",
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
    let telling = RefCell::new(Telling { tell, held: None });
    // Input bytes read so far, for the bound on the events held ([`IoErrors`]).
    let read = Cell::new(0u64);
    // What the input looks like, for hints; shared by the feed (bytes) and the sink
    // (diagnostics), which take turns.
    let hints = RefCell::new(Hints::default());
    let on_diagnostic = |diagnostic: Diagnostic| {
        // A stream that ended before its terminal record was cut short, or is empty: the
        // run is incomplete, and the input is at fault (the library says so as a warning,
        // since a live stream may end later; here the input has ended).
        let cut = diagnostic.kind == DiagnosticKind::MissingTerminal;
        if diagnostic.severity() == Severity::Error || cut {
            errors += 1;
        }
        let shown = match hints.borrow_mut().judge(&diagnostic, &name) {
            Verdict::Fold => return Ok(()),
            Verdict::Print => diagnostic,
            Verdict::Replace(hint) => hint,
        };
        telling.borrow_mut().say(Told::Diagnostic {
            diagnostic: shown,
            cut,
        });
        Ok(())
    };
    // A sink's own error becomes the command's I/O error (of the same text).
    let mut feed = |sink: &mut dyn EventSink<Error = io::Error>| -> io::Result<()> {
        hints.borrow_mut().saw(&head);
        read.set(head.len() as u64);
        transcriber.push(&head, sink)?;
        // Whatever the input's pace: when it pauses, the events so far go out (grep
        // --line-buffered's promise, without its write per line while data keeps coming).
        while let Some(chunk) = input.next(&mut || sink.flush())? {
            hints.borrow_mut().saw(chunk.bytes());
            read.set(read.get() + chunk.len as u64);
            transcriber.push(chunk.bytes(), sink)?;
            if let Some(progress) = progress {
                progress.add(chunk.len as u64);
            }
            input.give_back(chunk);
        }
        hints.borrow_mut().ended();
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
            let sink = Batched {
                sink: RecordingSink::new(dir, RecorderOptions::default(), on_diagnostic)
                    .if_exists(if_exists),
                batch: Batch::default(),
            };
            let mut sink = IoErrors {
                sink,
                claim: Some(claim),
                held: Vec::new(),
                telling: &telling,
                read: &read,
                held_from: 0,
            };
            let fed = feed(&mut sink);
            // An error of the events held comes first: one worker would have met it first;
            // then one of the events batched, which came before anything the feed met.
            let settled = sink.settle();
            let written = sink.sink.write().map_err(io::Error::from);
            settled
                .and(written)
                .and(fed)
                .map_err(|error| match error.kind() {
                    io::ErrorKind::AlreadyExists => io::Error::new(
                        error.kind(),
                        format!("{error}; pass --replace to overwrite it"),
                    ),
                    _ => error,
                })?;
            if let Some(recorder) = sink.sink.sink.recorder() {
                recorder.close().map_err(io::Error::other)?;
                wrote = Some(format!("wrote {}", recorder.path().display()));
            }
        }
    }
    let tell = telling.into_inner().tell;
    if let Some(wrote) = wrote {
        tell(Told::Notice(wrote));
    }
    let hints = hints.into_inner();
    if hints.folded > 0 {
        tell(Told::Error(format!(
            "{name}: {} of the pretty-printed JSON not listed (each is a problem: no line \
             is a record of its own)",
            console::plural(hints.folded, "more line")
        )));
    }
    if provider == Provider::Claude && hints.claude_session_log() {
        tell(Told::Warning(hints::session_log_hint(&name)));
    }
    if args.report {
        tell(Told::Report(format!(
            "{name}: {provider} input report\n{}",
            transcriber.meta().report
        )));
    }
    Ok(if errors > 0 {
        Outcome::InputProblems
    } else {
        Outcome::Clean
    })
}

/// How an input's run id is claimed before its file is made: a batch's inputs claim theirs
/// from [`batch::Claims`], so that a run two inputs share is written as one worker would
/// write it; one input has nothing to wait for.
trait RunClaim {
    /// Claims `run_id` if the input may have it now: whether it has it.
    fn try_claim(&mut self, run_id: &str) -> bool;
    /// Claims `run_id`, once the input may have it.
    fn claim(&mut self, run_id: &str);
}

/// One input alone: its run id is its own.
struct Unclaimed;

impl RunClaim for Unclaimed {
    fn try_claim(&mut self, _: &str) -> bool {
        true
    }
    fn claim(&mut self, _: &str) {}
}

/// Input `index` of a batch.
struct BatchClaim<'a> {
    claims: &'a batch::Claims,
    index: usize,
}

impl RunClaim for BatchClaim<'_> {
    fn try_claim(&mut self, run_id: &str) -> bool {
        self.claims.try_claim(self.index, run_id)
    }
    fn claim(&mut self, run_id: &str) {
        self.claims.claim(self.index, run_id);
    }
}

/// Where an input's messages go: to `tell`, or, while its events are held ([`IoErrors`]),
/// into `held`, to be told with them.
struct Telling<'a> {
    tell: &'a mut dyn FnMut(Told),
    held: Option<Vec<Told>>,
}

impl Telling<'_> {
    fn say(&mut self, told: Told) {
        match &mut self.held {
            Some(held) => held.push(told),
            None => (self.tell)(told),
        }
    }
}

/// The most input read while an input's events are held: what a worker holds is bounded
/// (the events of 8 MiB of input, a few times that in memory), not by the input's size.
const HOLD_BYTES: u64 = 8 << 20;

/// A recording sink whose errors are turned into I/O errors of the same text, so that one
/// loop feeds both sinks; the run id is claimed before the first event makes the run's
/// file. While a batch's earlier input that writes the same run is still running (a
/// session's output cut in two, say), the run id may not be claimed yet: rather than wait
/// doing nothing (with two workers, the batch's serial part: a sixth of `make bench-batch`'s
/// normalize row), the worker goes on transcribing and holds the events, and the messages
/// said meanwhile, each event with the number of messages said before it. They are written
/// and told once the run is claimed ([`IoErrors::settle`]): when it may be claimed (asked
/// again as the held events double), when the input ends, or when [`HOLD_BYTES`] of input
/// were read meanwhile. What is written and told is what one
/// worker writes and tells, up to the same error.
struct IoErrors<'a, 't, S> {
    sink: S,
    /// Until the run id is claimed.
    claim: Option<&'a mut dyn RunClaim>,
    held: Vec<(ExchangeEvent, usize)>,
    telling: &'a RefCell<Telling<'t>>,
    /// Input bytes read so far, and when the first event was held.
    read: &'a Cell<u64>,
    held_from: u64,
}

impl<S: EventSink> IoErrors<'_, '_, S>
where
    io::Error: From<S::Error>,
{
    /// Claims the run id (waiting for the earlier input that writes the same run), then
    /// writes the events held, each after the messages said before it; the first event
    /// that cannot be written ends it, and what came after is dropped, as one worker would
    /// never have said it.
    fn settle(&mut self) -> io::Result<()> {
        let Some((first, _)) = self.held.first() else {
            return Ok(());
        };
        if let Some(claim) = self.claim.take() {
            claim.claim(&first.run_id);
        }
        let held = self.telling.borrow_mut().held.take();
        let mut said = held.unwrap_or_default().into_iter();
        let mut told = 0;
        for (event, before) in std::mem::take(&mut self.held) {
            for message in said.by_ref().take(before - told) {
                (self.telling.borrow_mut().tell)(message);
            }
            told = before;
            self.sink.event(event)?;
        }
        said.for_each(|message| (self.telling.borrow_mut().tell)(message));
        Ok(())
    }
}

impl<S: EventSink> EventSink for IoErrors<'_, '_, S>
where
    io::Error: From<S::Error>,
{
    type Error = io::Error;

    fn event(&mut self, event: ExchangeEvent) -> io::Result<()> {
        match &mut self.claim {
            None => return Ok(self.sink.event(event)?),
            Some(claim) if self.held.is_empty() => {
                if claim.try_claim(&event.run_id) {
                    self.claim = None;
                    return Ok(self.sink.event(event)?);
                }
                self.telling.borrow_mut().held = Some(Vec::new());
                self.held_from = self.read.get();
            }
            Some(_) => {}
        }
        let before = (self.telling.borrow().held.as_ref()).map_or(0, Vec::len);
        self.held.push((event, before));
        // The earlier input usually claims its own run at its first event, a moment after
        // this one began holding: asked again as the held events double (a lock each
        // time, a few times an input), the run is claimed then, not at the input's end.
        // Held to the end, a whole input's events grew one vector on this worker (its
        // pages faulted in anew, then copied as it doubled) and were written in one go.
        let held = self.held.len();
        let claimed = held >= 2
            && held.is_power_of_two()
            && match (&mut self.claim, self.held.first()) {
                (Some(claim), Some((first, _))) => claim.try_claim(&first.run_id),
                _ => false,
            };
        if claimed {
            self.claim = None;
        }
        if claimed || self.read.get() - self.held_from >= HOLD_BYTES {
            self.settle()?;
        }
        Ok(())
    }
    fn diagnostic(&mut self, diagnostic: Diagnostic) -> io::Result<()> {
        Ok(self.sink.diagnostic(diagnostic)?)
    }
    fn flush(&mut self) -> io::Result<()> {
        // Held events are not written yet: nothing of theirs to flush.
        Ok(self.sink.flush()?)
    }
}

/// A run's events on their way into its file, written in batches ([`Batch`]: one append,
/// one `write(2)`, per batch instead of one per event; the system calls were a third of a
/// batch's CPU time, and two workers appending side by side paid more of it than one:
/// 0.08-0.10 s of 0.30 s with one worker, 0.11-0.15 s with two). What is written is what
/// the recorder writes event by event, up to the same error: the first event creates the
/// run's file (and is refused there, as it was), events held are written before a
/// diagnostic is handed on, when the input pauses ([`EventSink::flush`]) and at its end
/// ([`Batched::write`]), and a batch the recorder refuses (all or nothing: it leaves the
/// file as it was) is written again event by event, which writes the events before the one
/// at fault and fails on it, as one event at a time would have.
struct Batched<D: FnMut(Diagnostic) -> io::Result<()>> {
    sink: RecordingSink<D>,
    batch: Batch,
}

impl<D: FnMut(Diagnostic) -> io::Result<()>> Batched<D> {
    /// Writes the events held, in one append.
    fn write(&mut self) -> Result<(), RecordingError> {
        let Some(recorder) = self.sink.recorder() else {
            // No event held: the first one makes the recorder.
            return Ok(());
        };
        if let Err((_, events)) = self.batch.record(recorder) {
            // Nothing of the batch was written: one at a time, to fail where one would.
            for event in events {
                self.sink.event(event)?;
            }
        }
        Ok(())
    }
}

impl<D: FnMut(Diagnostic) -> io::Result<()>> EventSink for Batched<D> {
    type Error = RecordingError;

    fn event(&mut self, event: ExchangeEvent) -> Result<(), RecordingError> {
        if self.sink.recorder().is_none() {
            return self.sink.event(event);
        }
        if self.batch.push(event) {
            self.write()?;
        }
        Ok(())
    }
    fn diagnostic(&mut self, diagnostic: Diagnostic) -> Result<(), RecordingError> {
        // After the events before it, as when each was written as it came.
        self.write()?;
        self.sink.diagnostic(diagnostic)
    }
    fn flush(&mut self) -> Result<(), RecordingError> {
        self.write()?;
        self.sink.flush()
    }
}

/// Inputs at least this large get a progress bar.
const PROGRESS_BYTES: u64 = 64 << 20;

/// A progress bar for a long run over one input: a file of known size, at least
/// [`PROGRESS_BYTES`], whose transcript does not go to the terminal the bar would be drawn
/// on. (A batch's inputs are transcribed side by side: none gets a bar.)
fn one_input_progress(args: &Args, file: &Path) -> Option<Progress> {
    if file.as_os_str() == "-" || (args.out.is_none() && io::stdout().is_terminal()) {
        return None;
    }
    let size = std::fs::metadata(file).ok()?.len();
    if size < PROGRESS_BYTES {
        return None;
    }
    console::progress(size, Counting::Bytes)
}

/// Prints a diagnostic as an error whatever its kind's severity (a stream cut short, once
/// the input has ended).
fn print_error(name: &str, diagnostic: &Diagnostic) {
    console::problem(&Problem::error(
        name,
        diagnostic.line,
        diagnostic.offset,
        diagnostic.kind.as_str(),
        &diagnostic.message,
    ));
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

/// The input, read in chunks. Read on a thread of its own ([`Chunks::read`]), so that the
/// transcribing thread can tell when it pauses: when no chunk is waiting, the reader is
/// blocked on input that has not come yet. A batch's regular files are read by the worker
/// itself ([`Chunks::alongside`]).
struct Chunks {
    source: Source,
    /// The input's name, for a read error.
    path: PathBuf,
}

enum Source {
    Thread {
        full: Receiver<io::Result<Chunk>>,
        /// Buffers handed back to the reader, so that a long input is read without
        /// allocating.
        empty: Sender<Vec<u8>>,
    },
    /// A regular file, whose reads never wait for input to come: nothing to tell apart.
    Inline {
        input: Box<dyn Read + Send>,
        /// The buffer handed back, read into next.
        spare: Option<Vec<u8>>,
    },
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
                    let buffer = receive_empty
                        .try_recv()
                        .unwrap_or_else(|_| vec![0; CHUNK_BYTES]);
                    let chunk = match read_chunk(&mut input, buffer) {
                        Ok(None) => return,
                        Ok(Some(chunk)) => Ok(chunk),
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
            source: Source::Thread { full, empty },
            path: path.to_owned(),
        })
    }

    /// `file`, one of a batch's inputs: a regular file is read by the worker that
    /// transcribes it, since the batch's other workers keep the other cores busy, and a
    /// reader thread would only add a hand-over per chunk (a worker waiting on its reader
    /// while the reader waits for a core: under load, a third of a worker's time); a pipe
    /// or a device is read on a thread of its own ([`Chunks::read`]), as one input is.
    fn alongside(file: &Path) -> io::Result<Chunks> {
        let input = open(file)?;
        if !std::fs::metadata(file).is_ok_and(|meta| meta.is_file()) {
            return Chunks::read(input, file);
        }
        Ok(Chunks {
            source: Source::Inline { input, spare: None },
            path: file.to_owned(),
        })
    }

    /// The next chunk, `None` at the end of the input; `paused` runs first when the next
    /// chunk has not been read yet.
    fn next(&mut self, paused: &mut dyn FnMut() -> io::Result<()>) -> io::Result<Option<Chunk>> {
        let received = match &mut self.source {
            Source::Inline { input, spare } => {
                let buffer = spare.take().unwrap_or_else(|| vec![0; CHUNK_BYTES]);
                read_chunk(input, buffer)
            }
            Source::Thread { full, .. } => match full.try_recv() {
                Ok(chunk) => chunk.map(Some),
                Err(TryRecvError::Disconnected) => return Ok(None),
                Err(TryRecvError::Empty) => {
                    paused()?;
                    match full.recv() {
                        Ok(chunk) => chunk.map(Some),
                        Err(_) => return Ok(None),
                    }
                }
            },
        };
        received.map_err(|error| with_path(&self.path, error))
    }

    fn give_back(&mut self, chunk: Chunk) {
        match &mut self.source {
            Source::Inline { spare, .. } => *spare = Some(chunk.buffer),
            Source::Thread { empty, .. } => {
                let _ = empty.send(chunk.buffer);
            }
        }
    }
}

/// One `read(2)` of `input` into `buffer` (again when interrupted): `None` at its end.
fn read_chunk(input: &mut dyn Read, mut buffer: Vec<u8>) -> io::Result<Option<Chunk>> {
    loop {
        match input.read(&mut buffer) {
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
            Ok(0) => return Ok(None),
            Ok(len) => return Ok(Some(Chunk { buffer, len })),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{EventType, Payload};

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("axt-batched-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// `count` events of one run, the `refused`th (if any) one no writer takes.
    fn events(count: usize, refused: Option<usize>) -> Vec<ExchangeEvent> {
        (0..count)
            .map(|n| {
                let payload = if Some(n) == refused {
                    Payload::Raw(serde_json::json!({ "unknown": n }))
                } else {
                    Payload::None
                };
                ExchangeEvent::new("run-batched", EventType::RunStarted, "", payload)
            })
            .collect()
    }

    fn run_file(dir: &Path) -> Vec<u8> {
        std::fs::read(dir.join("run-batched.jsonl")).unwrap()
    }

    /// Events written in batches make the file the recorder makes event by event; what is
    /// held is in the file once the input pauses (`flush`) and before a diagnostic is
    /// handed on; a batch with an event the recorder refuses writes the events before it
    /// and fails on it, as one at a time does.
    #[test]
    fn batched_events_make_the_file_one_at_a_time_makes() {
        for refused in [None, Some(0), Some(1), Some(500)] {
            let (one, batched) = (temp_dir("one"), temp_dir("batched"));
            let mut each = RecordingSink::new(&one, RecorderOptions::default(), |_| Ok(()));
            let mut held = Batched {
                sink: RecordingSink::new(&batched, RecorderOptions::default(), |_| Ok(())),
                batch: Batch::default(),
            };
            let (mut failed_each, mut failed_held) = (None, None);
            for (n, event) in events(700, refused).into_iter().enumerate() {
                if failed_each.is_none() {
                    failed_each = each.event(event.clone()).err().map(|e| (n, e.to_string()));
                }
                if failed_held.is_none() {
                    failed_held = held.event(event).err().map(|e| (n, e.to_string()));
                }
                if n == 300 && failed_held.is_none() {
                    held.flush().unwrap();
                    assert_eq!(run_file(&one), run_file(&batched), "flushed at {n}");
                }
                if n == 400 && failed_held.is_none() {
                    let diagnostic =
                        Diagnostic::new(DiagnosticKind::UnexpectedShape, 1, 0, "shape");
                    held.diagnostic(diagnostic).unwrap();
                    assert_eq!(run_file(&one), run_file(&batched), "diagnostic at {n}");
                }
            }
            if failed_held.is_none() {
                failed_held = held.write().err().map(|e| (700, e.to_string()));
            }
            assert_eq!(run_file(&one), run_file(&batched), "refused: {refused:?}");
            let lines = run_file(&one).iter().filter(|&&b| b == b'\n').count();
            assert_eq!(lines, refused.unwrap_or(700));
            assert_eq!(failed_each.is_some(), refused.is_some());
            // The error is the same, met at the event or at the batch's end.
            assert_eq!(failed_each.map(|f| f.1), failed_held.map(|f| f.1));
            std::fs::remove_dir_all(&one).unwrap();
            std::fs::remove_dir_all(&batched).unwrap();
        }
    }
}
