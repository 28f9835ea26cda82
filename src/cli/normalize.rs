//! `axt normalize`: provider output in, canonical transcript out.

use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;

use axt::normalize::events::{EventOptions, EventSink, JsonlSink, Transcriber};
use axt::normalize::{
    DEFAULT_MAX_RECORD_BYTES, Diagnostic, DiagnosticKind, Options, Provider, Severity,
};
use axt::record::{IfExists, RecorderOptions, RecordingSink};

use super::console::{self, Problem};
use super::{Outcome, display_name, open};

/// Turn an agent's raw output into a canonical transcript (JSONL events, seq from 1).
///
/// Input is read as it arrives, so `agent ... | axt normalize` works live. Problems in the
/// input are printed to stderr as FILE:LINE: byte OFFSET: KIND: MESSAGE; the valid data
/// around them is still transcribed. Exit status: 0 when there was no error (warnings such
/// as a tool call without a result are printed, their message starting with `warning:`,
/// but do not count), 1 when the input had errors, 2 on usage errors or an input that
/// cannot be read.
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

    /// Provider output file, or `-` for stdin.
    #[arg(default_value = "-")]
    file: PathBuf,
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

/// How much output auto-detection looks at before it decides.
const DETECT_BYTES: usize = 1 << 20;

pub(crate) fn run(args: Args) -> io::Result<Outcome> {
    console::set_json(args.json);
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
            let read = read_some(&mut input, &mut chunk)?;
            if read == 0 && !head.ends_with(b"\n") && !head.is_empty() {
                head.push(b'\n'); // let a last record without LF be looked at too
                if let Some(provider) = Provider::detect(&head) {
                    head.pop();
                    break provider;
                }
                head.pop();
            }
            if read == 0 || head.len() >= DETECT_BYTES {
                let seen = if head.is_empty() {
                    "the input is empty"
                } else if read == 0 {
                    "no provider's records recognized"
                } else {
                    "no provider's records recognized in its first 1 MiB"
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
        ..EventOptions::default()
    };
    let mut transcriber = Transcriber::new(provider, options, events);
    let mut errors = 0usize;
    let limit = args.max_record_bytes;
    let on_diagnostic = |diagnostic: Diagnostic| {
        if diagnostic.severity() == Severity::Error {
            errors += 1;
        }
        print_diagnostic(&name, &diagnostic, limit);
        Ok(())
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
            let if_exists = if args.replace {
                IfExists::Replace
            } else {
                IfExists::Refuse
            };
            let mut sink = RecordingSink::new(dir, RecorderOptions::default(), on_diagnostic)
                .if_exists(if_exists);
            feed(&mut sink).map_err(|error| match error.kind() {
                io::ErrorKind::AlreadyExists => io::Error::new(
                    error.kind(),
                    format!("{error}; pass --replace to overwrite it"),
                ),
                _ => error,
            })?;
            if let Some(recorder) = sink.recorder() {
                recorder.close().map_err(io::Error::other)?;
                console::notice(&format!("wrote {}", recorder.path().display()));
            }
        }
    }
    Ok(if errors > 0 {
        Outcome::InputProblems
    } else {
        Outcome::Clean
    })
}

/// Prints a diagnostic of the input named `name`; `limit` is `--max-record-bytes`, named in
/// the diagnostics that hit it.
pub(crate) fn print_diagnostic(name: &str, diagnostic: &Diagnostic, limit: usize) {
    let limited;
    let message = if diagnostic.kind == DiagnosticKind::RecordTooLarge {
        limited = format!(
            "{} (the limit is {limit} bytes: --max-record-bytes)",
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

fn read_some(input: &mut dyn Read, buffer: &mut [u8]) -> io::Result<usize> {
    loop {
        match input.read(buffer) {
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}
