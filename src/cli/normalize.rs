//! `axt normalize`: provider output in, canonical transcript out.

use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;

use axt::Timestamp;
use axt::normalize::events::{EventOptions, EventSink, JsonlSink, Transcriber};
use axt::normalize::{DEFAULT_MAX_RECORD_BYTES, Diagnostic, Options, Provider, Severity};
use axt::record::{RecorderOptions, RecordingSink};

use super::{Outcome, display_name, open};

/// Turn an agent's raw output into a canonical transcript (JSONL events, seq from 1).
///
/// Input is read as it arrives, so `agent ... | axt normalize` works live. Problems in the
/// input are printed to stderr as FILE:LINE: byte OFFSET: severity[kind]: message; the valid
/// data around them is still transcribed. Exit status: 0 when there was no error (warnings
/// such as a tool call without a result are printed but do not count), 1 when the input had
/// errors, 2 on usage or I/O errors.
///
/// Example: axt normalize corpus/claude/ok/plain-session-thinking-text-bash.jsonl
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The provider whose output this is; `auto` recognizes it from the first record.
    #[arg(long, short, value_enum, default_value_t = ProviderArg::Auto)]
    provider: ProviderArg,

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
    /// of stdout; the path is printed on stderr.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,

    /// Provider output file, or `-` for stdin.
    #[arg(default_value = "-")]
    file: PathBuf,
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

#[derive(Clone, Copy, clap::ValueEnum)]
enum ProviderArg {
    Auto,
    Claude,
    Codex,
    Gemini,
    Copilot,
    Openai,
}

/// How many bytes of complete records auto-detection looks at before it gives up; it reads
/// on past this while the first record is not complete (up to `--max-record-bytes`).
const DETECT_BYTES: usize = 1 << 20;

pub(crate) fn run(args: Args) -> io::Result<Outcome> {
    let name = display_name(&args.file);
    let mut input = open(&args.file)?;
    let mut chunk = vec![0u8; 1 << 20];

    // Auto-detection needs the first record; keep what it reads to feed it afterwards.
    let mut head = Vec::new();
    let provider = match args.provider {
        ProviderArg::Claude => Provider::Claude,
        ProviderArg::Codex => Provider::Codex,
        ProviderArg::Gemini => Provider::Gemini,
        ProviderArg::Copilot => Provider::Copilot,
        ProviderArg::Openai => Provider::OpenAi,
        ProviderArg::Auto => loop {
            if let Some(provider) = Provider::detect(&head) {
                break provider;
            }
            let complete = head
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |at| at + 1);
            let too_long = head.len() - complete > args.max_record_bytes;
            let read = match complete >= DETECT_BYTES || too_long {
                true => 0,
                false => read_some(&mut input, &mut chunk)?,
            };
            if read == 0 && !too_long && !head.ends_with(b"\n") && !head.is_empty() {
                head.push(b'\n'); // let a last record without LF be looked at too
                if let Some(provider) = Provider::detect(&head) {
                    head.pop();
                    break provider;
                }
                head.pop();
            }
            if read == 0 {
                let seen = if head.is_empty() {
                    "the input is empty"
                } else if too_long {
                    "its first record is longer than --max-record-bytes"
                } else {
                    Provider::why_undetected(&head).unwrap_or("no provider's records recognized")
                };
                let choices: Vec<_> = Provider::ALL.iter().map(|p| p.as_str()).collect();
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "{name}: cannot detect the provider ({seen}); pass --provider ({})",
                        choices.join("|")
                    ),
                ));
            }
            head.extend_from_slice(&chunk[..read]);
        },
    };

    let options = Options {
        max_record_bytes: args.max_record_bytes,
    };
    let events = EventOptions {
        run_id: args.run_id,
        clock: match args.clock {
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
        print_diagnostic(&name, &diagnostic)
    };
    let mut feed = |sink: &mut dyn EventSink| -> io::Result<()> {
        transcriber.push(&head, sink)?;
        loop {
            let read = read_some(&mut input, &mut chunk)?;
            if read == 0 {
                break;
            }
            transcriber.push(&chunk[..read], sink)?;
        }
        transcriber.finish(sink)
    };
    match &args.out {
        None => {
            let stdout = BufWriter::with_capacity(1 << 20, io::stdout().lock());
            let mut sink = JsonlSink::new(stdout, on_diagnostic);
            feed(&mut sink)?;
            sink.into_inner().flush()?;
        }
        Some(dir) => {
            let mut sink = RecordingSink::new(dir, RecorderOptions::default(), on_diagnostic);
            feed(&mut sink)?;
            if let Some(recorder) = sink.recorder() {
                recorder.close().map_err(io::Error::other)?;
                writeln!(io::stderr(), "axt: wrote {}", recorder.path().display())?;
            }
        }
    }
    if args.report {
        writeln!(
            io::stderr().lock(),
            "{name}: {provider} input report\n{}",
            transcriber.meta().report
        )?;
    }
    Ok(if errors > 0 {
        Outcome::InputProblems
    } else {
        Outcome::Clean
    })
}

fn print_diagnostic(name: &str, diagnostic: &Diagnostic) -> io::Result<()> {
    let severity = match diagnostic.severity() {
        Severity::Warning => "warning",
        Severity::Error => "error",
    };
    writeln!(
        io::stderr().lock(),
        "{name}:{}: byte {}: {severity}[{}]: {}",
        diagnostic.line,
        diagnostic.offset,
        diagnostic.kind.as_str(),
        diagnostic.message
    )
}

fn read_some(input: &mut dyn Read, buffer: &mut [u8]) -> io::Result<usize> {
    loop {
        match input.read(buffer) {
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}
