//! `axt exec`: run an agent CLI and record its transcript live.
//!
//! The child's stdout is read on its own thread and handed over a bounded channel to the
//! main thread, which feeds the capture and watches the child; so a child that closes its
//! stdout but keeps running, and a child that exits while something it started keeps its
//! stdout open, are both noticed and end after `--grace-secs`.

use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use crate::capture::{Capture, CaptureError, CaptureOptions};
use crate::export::otlp::live::{LiveExport, LiveOptions, LiveReport};
use crate::export::otlp::{RunContext, TraceId};
use crate::model::{ProcessEnd, Provider, RunMeta, RunStatus};
use crate::normalize::{DEFAULT_MAX_RECORD_BYTES, Diagnostic, Severity};
use crate::record::{Delivery, RecorderOptions, Redactor, Subscription};
use crate::workflow::WriteRetry;
use crate::{Block, EventType, ExchangeEvent, Payload};

use super::Outcome;
use super::common::{ProviderChoice, provider_or_auto_parser};
use super::console::{self, escape, paint};
use super::exec_acp::{self, Permission, Said};
use super::export::WireProtocol;
use super::supervise::{Agent, Signals, Watch, supervise};

/// Run an agent CLI, recording its transcript live to DIR/<run-id>.jsonl.
///
/// stdin is passed through to the agent and its stderr forwarded; its stdout, the provider
/// output, is normalized as it arrives and also kept verbatim in DIR/<run-id>.raw.
/// Problems in that output are printed on stderr as FILE:LINE: byte OFFSET: KIND: MESSAGE,
/// FILE being the raw copy. The agent runs in a process group of its own: SIGINT, SIGTERM
/// and SIGHUP sent to axt are passed on to it, and the group is killed when it still runs
/// --grace-secs later, or when axt itself dies. A disk that refuses writes delays the
/// transcript (what waits is kept and retried); what it never takes is named on stderr.
/// A run whose agent failed, was killed or stopped mid-output is recorded as failed with
/// the reason in run.completed; a DIR that already has the run is refused.
///
/// Exit status: the agent's code when it is not 0 (128+N when a signal N ended it; 127
/// when it could not be started). When the agent exits 0: 2 when the transcript or the
/// raw copy could not be written whole, 1 when the output had errors or the run did not
/// complete (cut off, empty, another provider's output; --agent-exit-code keeps 0), else 0.
///
/// With --acp, axt is the agent's ACP client instead: it sends initialize, session/new and
/// one session/prompt (--prompt, else stdin) over the agent's stdin, answers its permission
/// requests by --permission, serves its file and terminal requests confined to --workdir,
/// records every message both ways (the raw file is the exchange), and closes the agent's
/// stdin when the turn ends; an agent still serving --grace-secs later is stopped, which ends
/// its session cleanly when its turn had ended.
///
/// Example: axt exec --provider claude --out runs --follow -- claude -p "fix it"
/// --output-format stream-json --verbose
///
/// Example: axt exec --acp --prompt "fix it" --permission allow --out runs -- gemini
/// --experimental-acp
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The provider whose output the agent writes; `auto` recognizes it from the first
    /// records (nothing is recorded until then; an output that is no provider's is kept in
    /// the raw copy and the run recorded as failed, exit 1). With --acp: acp, the default.
    #[arg(long, short, value_parser = provider_or_auto_parser(), required_unless_present = "acp")]
    provider: Option<ProviderChoice>,

    /// Be the agent's ACP client (see above).
    #[arg(long)]
    acp: bool,

    /// With --acp: how the agent's permission requests are answered: allow (the first
    /// allow-once option), deny (the first reject option), or ask on the terminal.
    #[arg(long, value_enum, default_value_t = Permission::Deny, requires = "acp")]
    permission: Permission,

    /// With --acp: the directory the agent works in (its session's cwd, and where it is
    /// started); its file and terminal requests are served only inside it.
    #[arg(long, value_name = "DIR", requires = "acp")]
    workdir: Option<PathBuf>,

    /// Where the transcript and the raw output go (created, mode 0700, when missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,

    /// The run id (default: a new UUID v4).
    #[arg(long)]
    run_id: Option<String>,

    /// The resolved prompt, recorded as the run's message.user.
    #[arg(long)]
    prompt: Option<String>,

    /// The composed system prompt, recorded in the message.user after the prompt.
    #[arg(long, conflicts_with = "acp")]
    system_prompt: Option<String>,

    /// Print one line per message, tool call and tool result on stdout as they happen.
    #[arg(long)]
    follow: bool,

    /// How long the agent may keep running after closing its stdout (or keep its stdout
    /// open after exiting) before axt kills it (or stops reading).
    #[arg(long, default_value_t = 10, value_name = "SECS")]
    grace_secs: u64,

    /// The largest record accepted, in bytes; longer ones are skipped and reported.
    #[arg(long, default_value_t = DEFAULT_MAX_RECORD_BYTES)]
    max_record_bytes: usize,

    /// Print problems on stderr as JSON lines.
    #[arg(long)]
    json: bool,

    /// Mask credentials (API keys, tokens, private keys, passwords) in everything written:
    /// the transcript, the raw output (a key streamed in pieces or hidden by JSON escapes
    /// too), and the problems printed on stderr.
    #[arg(long)]
    redact: bool,

    /// Send the run's spans live to the OpenTelemetry collector at URL (its base: spans go
    /// to URL/v1/traces) as each step and tool call completes; with no URL,
    /// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT. A slow or dead
    /// collector never slows the agent: spans that cannot be sent are dropped and counted.
    #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "")]
    otlp_endpoint: Option<String>,

    /// With --otlp-endpoint: a request header for the collector; repeatable.
    #[arg(long, value_name = "KEY=VALUE", requires = "otlp_endpoint")]
    otlp_header: Vec<String>,

    /// With --otlp-endpoint: the body encoding (default http/protobuf, or
    /// OTEL_EXPORTER_OTLP_PROTOCOL).
    #[arg(long, value_enum, value_name = "PROTOCOL", requires = "otlp_endpoint")]
    otlp_protocol: Option<WireProtocol>,

    /// With --otlp-endpoint: also send message text, system prompts, tool arguments and
    /// results (credentials masked); without it only names, ids, counts and times.
    #[arg(long, requires = "otlp_endpoint")]
    otlp_content: bool,

    /// Exit with the agent's code even when its output had problems (errors, an output
    /// cut off or empty, another provider's records). Without it, an agent that exits 0
    /// makes axt exit 1 for those, and 2 when the transcript could not be written whole.
    #[arg(long)]
    agent_exit_code: bool,

    /// The agent's command line.
    #[arg(required = true, last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

pub(crate) fn run(mut args: Args) -> io::Result<Outcome> {
    console::set_json(args.json);
    let program = args.command[0].clone();
    let choice = match (args.acp, args.provider) {
        (true, None | Some(ProviderChoice::Named(Provider::Acp))) => {
            ProviderChoice::Named(Provider::Acp)
        }
        (true, Some(other)) => {
            let other = match other {
                ProviderChoice::Named(provider) => provider.to_string(),
                ProviderChoice::Auto => "auto".to_owned(),
            };
            console::error(&format!(
                "--acp records an ACP exchange: --provider {other} does not go with it"
            ));
            return Ok(Outcome::Failed);
        }
        (false, Some(choice)) => choice,
        (false, None) => unreachable!("clap requires --provider without --acp"),
    };
    // With --acp the prompt is the session's, sent in the exchange (and so recorded there).
    let acp_prompt = match args.acp {
        true => Some(exec_acp::prompt(args.prompt.take())?),
        false => None,
    };
    let grace = Duration::from_secs(args.grace_secs);
    // Every message goes through one thread of its own, so that a stderr nobody reads
    // never blocks the loop that watches the agent and the signals.
    let messages = Messages::start()?;
    // Diagnostics name the raw copy of the output, where their lines and bytes are; its
    // name is known once the capture has made it.
    let raw_name: Arc<OnceLock<String>> = Arc::default();
    let limit = args.max_record_bytes;
    let errors = Arc::new(AtomicUsize::new(0));
    let redact = args.redact;
    let on_diagnostic = {
        let (name, errors, messages) = (
            Arc::clone(&raw_name),
            Arc::clone(&errors),
            messages.sender(),
        );
        move |diagnostic: &Diagnostic| {
            if diagnostic.severity() == Severity::Error {
                errors.fetch_add(1, Ordering::Relaxed);
            }
            let name = name
                .get()
                .cloned()
                .unwrap_or_else(|| "agent stdout".to_owned());
            // A diagnostic can quote the output (a line that is not JSON, a value of the
            // wrong type): masked as the files are.
            let mut diagnostic = diagnostic.clone();
            if redact {
                Redactor::credentials().redact_string(&mut diagnostic.message);
            }
            messages.send(Message::Diagnostic(name, diagnostic, limit));
        }
    };
    let recorder = if args.redact {
        RecorderOptions::default().redact_credentials()
    } else {
        RecorderOptions::default()
    };
    let options = CaptureOptions {
        recorder,
        run_id: args.run_id,
        prompt: args.prompt,
        system_prompt: args.system_prompt,
        max_record_bytes: args.max_record_bytes,
        on_diagnostic: Some(Box::new(on_diagnostic)),
        // After the agent ends, what the disk still refuses gets the same grace as the
        // agent did.
        write_retry: WriteRetry {
            at_end: grace,
            ..WriteRetry::default()
        },
        ..CaptureOptions::default()
    };
    // The collector is resolved before anything is recorded: a bad endpoint is a usage error.
    let otlp = match &args.otlp_endpoint {
        Some(base) => Some(super::export::destination(
            base,
            &args.otlp_header,
            args.otlp_protocol,
        )?),
        None => None,
    };
    let capture = match choice {
        ProviderChoice::Named(provider) => Capture::new(provider, &args.out, options),
        ProviderChoice::Auto => Capture::detect(&args.out, options),
    };
    let mut capture = capture.map_err(io::Error::other)?;
    let live = otlp.map(|destination| {
        let mut context = RunContext::new(TraceId::of_root(capture.run_id()), None);
        context.provider = capture.provider();
        context.content = args.otlp_content;
        // A buffer of its own, large enough that the mapper never misses events; it only
        // ever offers spans to the sender, so it keeps up with any agent.
        let subscription = capture
            .recorder()
            .subscribe_with_capacity(OTLP_EVENT_BUFFER);
        (
            LiveExport::start(
                subscription,
                context,
                destination.clone(),
                LiveOptions::default(),
            ),
            destination.shown_url(),
        )
    });
    let raw = capture.raw_path().map(|path| path.display().to_string());
    let _ = raw_name.set(raw.unwrap_or_else(|| "agent stdout".to_owned()));
    let follow = args
        .follow
        .then(|| {
            let subscription = capture.subscribe();
            thread::Builder::new()
                .name("axt-follow".into())
                .spawn(move || follow(subscription))
        })
        .transpose()?;

    // From here on a signal must not kill axt before the transcript is finished: it is
    // noted, passed on to the agent, which is given the grace period to end, and the run
    // is recorded as it ended.
    let signals = Signals::register()?;
    // The sender is moved into the warning callback, and so dropped with it: a sender kept
    // alive here would hold the messages' channel open, and `messages.finish` would wait
    // its whole DRAIN for a thread that cannot end (every exec took 5 s longer).
    let sender = messages.sender();
    let workdir = match &args.workdir {
        Some(dir) => dir.clone(),
        None => std::env::current_dir()?,
    };
    let acp = match acp_prompt {
        Some(prompt) => Some((
            exec_acp::spawn(&program, &args.command[1..], &workdir),
            prompt,
        )),
        None => None,
    };
    let spawned = match &acp {
        Some(_) => {
            drop(sender);
            Err(io::Error::other("the ACP agent is started on its own"))
        }
        None => Agent::spawn(&program, &args.command[1..], grace, move |warning| {
            sender.send(Message::Warning(warning));
        }),
    };
    let (end, code) = match (acp, spawned) {
        (Some((Ok(mut child), prompt)), _) => {
            let options =
                exec_acp::options(prompt, workdir, args.permission, grace, signals.flag());
            let mut say = |said: Said| {
                messages.send(match said {
                    Said::Error(text) => Message::Error(text),
                    Said::Warning(text) => Message::Warning(text),
                    Said::Notice(text) => Message::Notice(text),
                })
            };
            let (end, interrupted) =
                exec_acp::session(&mut child, &mut capture, options, &mut say)?;
            let code = match interrupted {
                Some(signal) if end.note.is_some() => u8::try_from(128 + signal).unwrap_or(1),
                _ => exit_code(&end),
            };
            (end, code)
        }
        (Some((Err(error), _)), _) | (None, Err(error)) => {
            let code = if error.kind() == io::ErrorKind::NotFound {
                127
            } else {
                126
            };
            messages.send(Message::Error(format!("cannot run {program}: {error}")));
            let end = ProcessEnd {
                note: Some(format!("axt could not start {program}: {error}")),
                ..ProcessEnd::default()
            };
            (end, code)
        }
        (None, Ok(mut agent)) => {
            let mut watch = WriteWatch::new(messages.sender());
            let supervised = supervise(&mut agent, &mut capture, grace, &signals, &mut watch);
            agent.release();
            let (end, interrupted) = supervised?;
            let code = match interrupted {
                // axt itself was told to stop, and stopped the agent: exit as a shell would.
                Some(signal) if end.note.is_some() => u8::try_from(128 + signal).unwrap_or(1),
                _ => exit_code(&end),
            };
            (end, code)
        }
    };
    let path = capture.path().to_owned();
    let finished = capture.finish(end);
    match &finished {
        Ok(_) => messages.send(Message::Notice(format!("wrote {}", path.display()))),
        Err(error) => messages.send(Message::Error(error.to_string())),
    }
    if let Some((live, url)) = live {
        report_otlp(&live.finish(), &url, &messages);
    }
    // The agent's code wins when it is not 0: a caller scripting around the agent needs
    // it. Else a transcript that lacks part of the run is an output that could not be
    // written (2), and an output with problems, or a run that did not complete, is 1.
    let code = match (code, &finished) {
        // No provider's output: a problem in the input, as normalize would say.
        (0, Err(CaptureError::Unrecognized(_))) if args.agent_exit_code => 0,
        (0, Err(CaptureError::Unrecognized(_))) => 1,
        (0, Err(_)) => 2,
        (0, Ok(meta)) if !args.agent_exit_code && !recorded_cleanly(meta, &errors) => 1,
        (code, _) => code,
    };
    // The follow thread ends with the subscription, which `finish` closed, and the
    // messages with their channel; neither may keep axt waiting on a reader that stopped
    // reading, so each gets a moment, cut short by another signal.
    if let Some(follow) = follow {
        wait_a_moment(&follow, &signals);
    }
    messages.finish(&signals);
    Ok(Outcome::Exited(code))
}

/// Whether the agent's output made a clean run: no error in it, and the run completed
/// (not cut off, not empty, not failed by the provider).
fn recorded_cleanly(meta: &RunMeta, errors: &AtomicUsize) -> bool {
    errors.load(Ordering::Relaxed) == 0 && meta.status == RunStatus::Completed
}

/// How long the follow view and the messages may take to drain once the run is recorded.
const DRAIN: Duration = Duration::from_secs(5);

/// Waits up to [`DRAIN`] for `thread`, less if a signal comes meanwhile.
fn wait_a_moment<T>(thread: &thread::JoinHandle<T>, signals: &Signals) {
    let before = signals.received();
    let deadline = Instant::now() + DRAIN;
    while !thread.is_finished() && Instant::now() < deadline && signals.received() == before {
        thread::sleep(Duration::from_millis(5));
    }
}

/// A line for stderr.
enum Message {
    Diagnostic(String, Diagnostic, usize),
    Error(String),
    Warning(String),
    Notice(String),
}

/// The thread that prints messages, and how many it had no room for.
struct Messages {
    sender: MessageSender,
    thread: thread::JoinHandle<()>,
}

/// A handle to send messages; one that finds the queue full counts the message instead of
/// waiting for a stderr nobody may be reading.
#[derive(Clone)]
struct MessageSender {
    queue: mpsc::SyncSender<Message>,
    dropped: Arc<AtomicUsize>,
}

impl MessageSender {
    fn send(&self, message: Message) {
        if self.queue.try_send(message).is_err() {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Messages queued for stderr before new ones are counted instead.
const MESSAGE_QUEUE: usize = 4_096;

impl Messages {
    fn start() -> io::Result<Messages> {
        let (queue, receive) = mpsc::sync_channel::<Message>(MESSAGE_QUEUE);
        let thread = thread::Builder::new()
            .name("axt-messages".into())
            .spawn(move || {
                for message in receive {
                    match message {
                        Message::Diagnostic(name, diagnostic, limit) => {
                            super::normalize::print_diagnostic(
                                &name,
                                &diagnostic,
                                (limit, Some("--max-record-bytes")),
                            );
                        }
                        Message::Error(text) => console::error(&text),
                        Message::Warning(text) => console::warning(&text),
                        Message::Notice(text) => console::notice(&text),
                    }
                }
            })?;
        let sender = MessageSender {
            queue,
            dropped: Arc::default(),
        };
        Ok(Messages { sender, thread })
    }

    fn sender(&self) -> MessageSender {
        self.sender.clone()
    }

    fn send(&self, message: Message) {
        self.sender.send(message);
    }

    /// Says how many messages found no room, closes the queue and waits a moment for the
    /// thread to print what is left.
    fn finish(self, signals: &Signals) {
        let Messages { sender, thread } = self;
        let dropped = sender.dropped.load(Ordering::Relaxed);
        if dropped > 0 {
            sender.send(Message::Warning(format!(
                "{} not shown: stderr was not read fast enough",
                console::plural(dropped as u64, "message")
            )));
        }
        drop(sender);
        wait_a_moment(&thread, signals);
    }
}

/// Says, once, when the disk starts refusing the run's writes, and when it catches up.
struct WriteWatch {
    messages: MessageSender,
    said_transcript: bool,
    said_raw: bool,
}

impl WriteWatch {
    fn new(messages: MessageSender) -> Self {
        WriteWatch {
            messages,
            said_transcript: false,
            said_raw: false,
        }
    }
}

impl Watch for WriteWatch {
    fn feed_failed(&mut self, error: String) {
        self.messages
            .send(Message::Error(format!("recording stopped: {error}")));
    }

    fn tick(&mut self, capture: &Capture) {
        let report = capture.write_report();
        match (&report.first_error, self.said_transcript) {
            (Some(error), false) if report.waiting > 0 => {
                self.said_transcript = true;
                self.messages.send(Message::Warning(format!(
                    "{error}; the transcript's events wait for the disk and are retried"
                )));
            }
            (Some(_), true) if report.waiting == 0 => {
                self.said_transcript = false;
                self.messages.send(Message::Notice(format!(
                    "{}: the disk took the waiting events ({} written late)",
                    capture.path().display(),
                    report.late
                )));
            }
            _ => {}
        }
        match (capture.raw_error(), self.said_raw) {
            (Some((error, true)), false) => {
                self.said_raw = true;
                self.messages.send(Message::Warning(format!(
                    "{error}; the agent's output is kept in memory and retried"
                )));
            }
            (Some((error, false)), true) => {
                self.said_raw = false;
                let path = error.split(": ").next().unwrap_or_default().to_owned();
                self.messages.send(Message::Notice(format!(
                    "{path}: the disk took the waiting output"
                )));
            }
            _ => {}
        }
    }
}

/// The events the live OTLP exporter's subscription buffers.
const OTLP_EVENT_BUFFER: usize = 8_192;

/// One line on what the live export did: a notice when every span was sent, a warning
/// naming what was lost otherwise. The agent's exit code is unaffected either way.
fn report_otlp(report: &LiveReport, url: &str, messages: &Messages) {
    let mut line = format!(
        "otlp: {} of {} spans sent to {url}",
        report.sent, report.spans
    );
    let lost = report.dropped + report.failed + report.rejected;
    if lost == 0 && report.events_missed == 0 {
        messages.send(Message::Notice(line));
        return;
    }
    let dropped = if report.unreachable {
        "not sent (the collector could not be reached: the connection was refused or the host is unknown)"
    } else {
        "dropped (the collector was too slow or did not answer in time)"
    };
    for (count, what) in [
        (report.dropped, dropped),
        (report.failed, "failed"),
        (report.rejected, "rejected by the collector"),
        (report.events_missed, "events missed by the exporter"),
    ] {
        if count > 0 {
            line += &format!("; {count} {what}");
        }
    }
    if let Some(error) = report.errors.first() {
        line += &format!("; {error}");
    }
    messages.send(Message::Warning(line));
}

/// axt's exit code for the agent's ending: its own, or 128 + the signal, as shells do.
fn exit_code(end: &ProcessEnd) -> u8 {
    match (end.exit_code, end.signal) {
        (Some(code), _) => u8::try_from(code & 0xff).unwrap_or(1),
        (None, Some(signal)) => u8::try_from((128 + signal) & 0xff).unwrap_or(1),
        (None, None) => 1,
    }
}

/// Prints the compact view of the run until the subscription ends. A closed stdout
/// (`| head`) stops the printing, not the recording.
fn follow(mut subscription: Subscription) {
    let colour = console::colour_stdout();
    let mut stdout = io::stdout().lock();
    while let Some(delivery) = subscription.recv() {
        let line = match delivery {
            Delivery::Event(event) => follow_line(&event, colour),
            Delivery::Missed { from_seq, count } => Some(
                paint(
                    colour,
                    DIM,
                    &format!(
                        "... {} from seq {from_seq} not shown (they are in the file)",
                        console::plural(count, "event")
                    ),
                )
                .into_owned(),
            ),
        };
        if let Some(line) = line
            && writeln!(stdout, "{line}")
                .and_then(|()| stdout.flush())
                .is_err()
        {
            return;
        }
    }
}

const DIM: &str = "2";
const CYAN: &str = "36";
const YELLOW: &str = "33";
const GREEN: &str = "32";
const RED: &str = "31";
const BOLD: &str = "1";

/// The longest a line of the follow view gets, in characters, before it is cut with `…`.
const FOLLOW_WIDTH: usize = 160;

/// One line for a message, tool call, tool result or the run's end; `None` for the rest.
fn follow_line(event: &ExchangeEvent, colour: bool) -> Option<String> {
    let (style, label, text) = match (&event.event_type, &event.payload) {
        (EventType::MessageUser | EventType::MessageAssistant, Payload::Message(message)) => {
            let user = event.event_type == EventType::MessageUser;
            // Tool calls get lines of their own; results and opaque blocks are not text.
            let text = message
                .blocks
                .iter()
                .filter_map(|block| match &block.block {
                    Block::Text { text, .. } => Some(text.clone()),
                    Block::Thinking { thinking, .. } => Some(format!("(thinking) {thinking}")),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join(" ");
            if text.is_empty() {
                return None;
            }
            let (style, label) = if user {
                (CYAN, "user")
            } else {
                ("", "assistant")
            };
            (style, label.to_owned(), text)
        }
        (EventType::ToolCall, Payload::Tool(tool)) => {
            (YELLOW, format!("-> {}", tool.name), tool.input.to_string())
        }
        (EventType::ToolResult, Payload::Tool(tool)) => {
            let output = match &*tool.output {
                serde_json::Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            match &tool.error {
                Some(error) => (RED, format!("<- {} failed", tool.name), error.to_string()),
                None => (GREEN, format!("<- {}", tool.name), output),
            }
        }
        (EventType::RunCompleted, Payload::Step(step)) => match &step.error {
            Some(error) => (RED, "run failed".to_owned(), error.clone()),
            None => (BOLD, "run completed".to_owned(), String::new()),
        },
        _ => return None,
    };
    let scope = event
        .path
        .strip_prefix("agent.")
        .map_or_else(String::new, |id| format!("[{id}] "));
    let line = format!("{scope}{label}: {}", one_line(&text));
    // Names and paths come from the agent's output as much as the text does.
    let line = escape(line.trim_end_matches([':', ' ']));
    Some(paint(colour, style, &line).into_owned())
}

/// `text` on one line, cut to fit the follow view.
fn one_line(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let flat = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= FOLLOW_WIDTH {
        return flat;
    }
    let mut cut: String = flat.chars().take(FOLLOW_WIDTH - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_follow_the_shell() {
        assert_eq!(exit_code(&ProcessEnd::exited(3)), 3);
        let killed = ProcessEnd {
            signal: Some(9),
            ..ProcessEnd::default()
        };
        assert_eq!(exit_code(&killed), 137);
    }

    #[test]
    fn long_text_is_cut_to_one_line() {
        assert_eq!(one_line("a\n b\tc"), "a b c");
        let long = "x".repeat(500);
        assert_eq!(one_line(&long).chars().count(), FOLLOW_WIDTH);
    }
}
