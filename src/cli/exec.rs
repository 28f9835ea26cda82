//! `axt exec`: run an agent CLI and record its transcript live.
//!
//! The child's stdout is read on its own thread and handed over a bounded channel to the
//! main thread, which feeds the capture and watches the child; so a child that closes its
//! stdout but keeps running, and a child that exits while something it started keeps its
//! stdout open, are both noticed and end after `--grace-secs`.

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

use crate::capture::acp::{self, AcpOptions, PermissionPolicy};
use crate::capture::{Capture, CaptureOptions};
use crate::export::otlp::live::{LiveExport, LiveOptions, LiveReport};
use crate::export::otlp::{RunContext, TraceId};
use crate::model::{ProcessEnd, Provider};
use crate::normalize::DEFAULT_MAX_RECORD_BYTES;
use crate::record::{Delivery, RecorderOptions, Subscription};
use crate::{Block, EventType, ExchangeEvent, Payload};

use super::common::provider_parser;
use super::console::{self, escape, paint};
use super::export::WireProtocol;
use super::{Outcome, report_error};

/// Run an agent CLI, recording its transcript live to DIR/<run-id>.jsonl.
///
/// stdin is passed through to the agent and its stderr forwarded; its stdout, the provider
/// output, is normalized as it arrives and also kept verbatim in DIR/<run-id>.raw.jsonl.
/// Problems in that output are printed on stderr as FILE:LINE: byte OFFSET: KIND: MESSAGE,
/// FILE being the raw copy. axt exits with the agent's exit code (128+N when a signal N
/// ended it; 127 when it could not be started), and finishes the transcript whatever
/// happens to its own stdout or stderr. A run whose agent failed, was killed or stopped
/// mid-output is recorded as failed with the reason in run.completed; a DIR that already
/// has the run is refused.
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
    /// The provider whose output the agent writes (with --acp: acp, the default).
    #[arg(long, short, value_parser = provider_parser(), required_unless_present = "acp")]
    provider: Option<Provider>,

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

    /// Mask credentials (API keys, tokens, private keys, passwords) in every file written:
    /// the transcript and, line by line, the raw output.
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

    /// The agent's command line.
    #[arg(required = true, last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

/// `--permission`'s values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Permission {
    /// Allow every call.
    Allow,
    /// Reject every call.
    Deny,
    /// Ask on the terminal (/dev/tty) for each call.
    Ask,
}

pub(crate) fn run(mut args: Args) -> io::Result<Outcome> {
    console::set_json(args.json);
    let program = args.command[0].clone();
    let provider = match (args.acp, args.provider) {
        (true, None | Some(Provider::Acp)) => Provider::Acp,
        (true, Some(other)) => {
            console::error(&format!(
                "--acp records an ACP exchange: --provider {other} does not go with it"
            ));
            return Ok(Outcome::Failed);
        }
        (false, Some(provider)) => provider,
        (false, None) => unreachable!("clap requires --provider without --acp"),
    };
    // With --acp the prompt is the session's, sent in the exchange (and so recorded there).
    let acp_prompt = match (args.acp, args.prompt.take()) {
        (true, Some(prompt)) => Some(prompt),
        (true, None) => {
            let mut prompt = String::new();
            super::open(std::path::Path::new("-"))?.read_to_string(&mut prompt)?;
            Some(
                prompt
                    .strip_suffix('\n')
                    .map(str::to_owned)
                    .unwrap_or(prompt),
            )
        }
        (false, prompt) => {
            args.prompt = prompt;
            None
        }
    };
    // Diagnostics name the raw copy of the output, where their lines and bytes are; its
    // name is known once the capture has made it.
    let raw_name: Arc<OnceLock<String>> = Arc::default();
    let name = Arc::clone(&raw_name);
    let limit = args.max_record_bytes;
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
        on_diagnostic: Some(Box::new(move |diagnostic| {
            let name = name.get().map_or("agent stdout", String::as_str);
            super::normalize::print_diagnostic(
                name,
                diagnostic,
                (limit, Some("--max-record-bytes")),
            );
        })),
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
    let mut capture = Capture::new(provider, &args.out, options).map_err(io::Error::other)?;
    let live = otlp.map(|destination| {
        let mut context = RunContext::new(TraceId::of_root(capture.run_id()), None);
        context.provider = Some(provider);
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
            destination.url,
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
    // noted, the agent (which a terminal's Ctrl-C reaches too) is given the grace period to
    // end, and the run is recorded as it ended.
    let signals = Arc::new(AtomicUsize::new(0));
    for signal in [SIGINT, SIGTERM, SIGHUP] {
        signal_hook::flag::register_usize(signal, Arc::clone(&signals), signal as usize)?;
    }
    let workdir = match &args.workdir {
        Some(dir) => dir.clone(),
        None => std::env::current_dir()?,
    };
    let mut command = Command::new(&program);
    command
        .args(&args.command[1..])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    if args.acp {
        command.stdin(Stdio::piped()).current_dir(&workdir);
    } else {
        command.stdin(Stdio::inherit());
    }
    let spawned = command.spawn();
    let (end, code) = match spawned {
        Err(error) => {
            let code = if error.kind() == io::ErrorKind::NotFound {
                127
            } else {
                126
            };
            console::error(&format!("cannot run {program}: {error}"));
            let end = ProcessEnd {
                note: Some(format!("axt could not start {program}: {error}")),
                ..ProcessEnd::default()
            };
            (end, code)
        }
        Ok(mut child) if args.acp => {
            let grace = Duration::from_secs(args.grace_secs);
            let mut options = AcpOptions::new(acp_prompt.unwrap_or_default(), workdir);
            options.permission = match args.permission {
                Permission::Allow => PermissionPolicy::Allow,
                Permission::Deny => PermissionPolicy::Deny,
                Permission::Ask => PermissionPolicy::Ask(Box::new(ask_on_the_terminal)),
            };
            options.grace = grace;
            options.stop = Some(Arc::clone(&signals));
            let (end, interrupted) = acp_session(&mut child, &mut capture, options)?;
            let code = match interrupted {
                Some(signal) if end.note.is_some() => u8::try_from(128 + signal).unwrap_or(1),
                _ => exit_code(&end),
            };
            (end, code)
        }
        Ok(mut child) => {
            let grace = Duration::from_secs(args.grace_secs);
            let (end, interrupted) = supervise(&mut child, &mut capture, grace, &signals)?;
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
    if let Some(follow) = follow {
        // The follow thread ends with the subscription, which `finish` closed.
        let _ = follow.join();
    }
    if let Err(error) = finished {
        // The agent's code still wins: a caller scripting around the agent needs it.
        report_error(&io::Error::other(error));
    } else {
        console::notice(&format!("wrote {}", path.display()));
    }
    if let Some((live, url)) = live {
        report_otlp(&live.finish(), &url);
    }
    Ok(Outcome::Exited(code))
}

/// The events the live OTLP exporter's subscription buffers.
const OTLP_EVENT_BUFFER: usize = 8_192;

/// One line on what the live export did: a notice when every span was sent, a warning
/// naming what was lost otherwise. The agent's exit code is unaffected either way.
fn report_otlp(report: &LiveReport, url: &str) {
    let mut line = format!(
        "otlp: {} of {} spans sent to {url}",
        report.sent, report.spans
    );
    let lost = report.dropped + report.failed + report.rejected;
    if lost == 0 && report.events_missed == 0 {
        console::notice(&line);
        return;
    }
    for (count, what) in [
        (
            report.dropped,
            "dropped (the collector was too slow or did not answer in time)",
        ),
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
    console::warning(&line);
}

/// Feeds the child's stdout to the capture until it ends, then waits for the child, and
/// returns how it ended, and the signal axt received meanwhile, if any. A recording failure
/// is reported and the output still drained, so the agent is not stopped by axt's problem.
fn supervise(
    child: &mut Child,
    capture: &mut Capture,
    grace: Duration,
    signals: &AtomicUsize,
) -> io::Result<(ProcessEnd, Option<i32>)> {
    let stdout = child.stdout.take().expect("stdout is piped");
    let chunks = read_on_a_thread(stdout)?;
    let mut recording = true;
    let mut exited_at: Option<(Instant, ProcessEnd)> = None;
    let mut interrupted_at: Option<(Instant, i32)> = None;
    let tick = Duration::from_millis(50);
    let received = || {
        i32::try_from(signals.load(Ordering::Relaxed))
            .ok()
            .filter(|s| *s != 0)
    };
    loop {
        match chunks.recv_timeout(tick) {
            Ok(Ok(chunk)) => {
                if recording && let Err(error) = capture.feed(&chunk) {
                    console::error(&format!("recording stopped: {error}"));
                    recording = false;
                }
                continue;
            }
            Ok(Err(error)) => {
                console::error(&format!("reading the agent's stdout failed: {error}"));
                break;
            }
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {}
        }
        if let Some(signal) = received() {
            match interrupted_at {
                None => interrupted_at = Some((Instant::now(), signal)),
                Some((when, signal)) if when.elapsed() >= grace => {
                    let _ = child.kill();
                    let mut end = ProcessEnd::from_status(child.wait()?);
                    end.note = Some(format!(
                        "axt received {} and the agent was still running {} s later; axt killed it",
                        signal_name(signal),
                        grace.as_secs()
                    ));
                    return Ok((end, Some(signal)));
                }
                Some(_) => {}
            }
        }
        // Quiet for a tick: has the child exited while its stdout is still open?
        match &exited_at {
            None => {
                if let Some(status) = child.try_wait()? {
                    exited_at = Some((Instant::now(), ProcessEnd::from_status(status)));
                }
            }
            Some((when, end)) if when.elapsed() >= grace => {
                let mut end = end.clone();
                end.note = Some(format!(
                    "the agent exited but its stdout was still open {} s later (held by a \
                     process it started?); axt stopped reading",
                    grace.as_secs()
                ));
                return Ok((end, received()));
            }
            Some(_) => {}
        }
    }
    if let Some((_, end)) = exited_at {
        return Ok((end, received()));
    }
    Ok((wait_or_kill(child, grace)?, received()))
}

/// Runs the ACP conversation with the child, then closes its stdin and waits for it (killing
/// it after the grace period): how it ended, and the signal axt received, if any.
fn acp_session(
    child: &mut Child,
    capture: &mut Capture,
    options: AcpOptions,
) -> io::Result<(ProcessEnd, Option<i32>)> {
    let stdin = child.stdin.take().expect("stdin is piped");
    let stdout = child.stdout.take().expect("stdout is piped");
    let grace = options.grace;
    let stop = options.stop.clone();
    let mut recording = true;
    let mut record = |line: &[u8]| -> Result<(), std::convert::Infallible> {
        if recording && let Err(error) = capture.feed(line) {
            console::error(&format!("recording stopped: {error}"));
            recording = false;
        }
        Ok(())
    };
    let ended = acp::converse(stdin, stdout, &mut record, options);
    let received = stop
        .and_then(|s| i32::try_from(s.load(Ordering::Relaxed)).ok())
        .filter(|s| *s != 0);
    let turn_ended = match ended {
        Ok(end) => {
            if let Some(error) = &end.error {
                console::warning(error);
            }
            end.stop_reason.is_some() && end.stopped.is_none()
        }
        Err(error) => {
            console::error(&error.to_string());
            false
        }
    };
    // The agent's stdin is closed (the conversation took and dropped it): an ACP agent ends
    // with its connection.
    let deadline = Instant::now() + grace;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok((ProcessEnd::from_status(status), received));
        }
        if Instant::now() >= deadline {
            break;
        }
        thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let status = child.wait()?;
    if turn_ended {
        // An ACP agent serves until its client leaves (codex-acp does not exit when its stdin
        // closes): stopping it once its turn has ended is how a session ends, not a failure.
        console::notice(&format!(
            "the agent was still serving {} s after its turn ended and its stdin closed; axt stopped it",
            grace.as_secs()
        ));
        return Ok((ProcessEnd::exited(0), received));
    }
    let mut end = ProcessEnd::from_status(status);
    end.note = Some(format!(
        "the agent was still running {} s after axt closed its stdin (the ACP connection); axt killed it",
        grace.as_secs()
    ));
    Ok((end, received))
}

/// `--permission ask`: the request and its options on the terminal, the choice read from it.
fn ask_on_the_terminal(params: &serde_json::Value) -> Option<String> {
    use std::io::BufRead as _;
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .ok()?;
    let mut out = &tty;
    let title = (params.pointer("/toolCall/title"))
        .or_else(|| params.get("title"))
        .and_then(serde_json::Value::as_str)
        .unwrap_or("a tool call");
    let options: Vec<(&str, &str)> = params
        .get("options")
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|o| Some((o.get("optionId")?.as_str()?, o.get("name")?.as_str()?)))
        .collect();
    let _ = writeln!(out, "axt: the agent asks permission for: {}", escape(title));
    for (at, (_, name)) in options.iter().enumerate() {
        let _ = writeln!(out, "  {}) {}", at + 1, escape(name));
    }
    let _ = write!(out, "choose 1-{} (anything else cancels): ", options.len());
    let mut answer = String::new();
    std::io::BufReader::new(&tty).read_line(&mut answer).ok()?;
    let chosen: usize = answer.trim().parse().ok()?;
    options
        .get(chosen.checked_sub(1)?)
        .map(|(id, _)| (*id).to_owned())
}

fn signal_name(signal: i32) -> String {
    match signal {
        SIGINT => "SIGINT".to_owned(),
        SIGTERM => "SIGTERM".to_owned(),
        SIGHUP => "SIGHUP".to_owned(),
        other => format!("signal {other}"),
    }
}

/// Reads `stdout` on its own thread; the channel ends when stdout does.
fn read_on_a_thread(
    mut stdout: impl Read + Send + 'static,
) -> io::Result<Receiver<io::Result<Vec<u8>>>> {
    // Bounded: when recording falls behind, the reader (and then the agent) waits.
    let (send, receive) = mpsc::sync_channel(16);
    thread::Builder::new()
        .name("axt-stdout".into())
        .spawn(move || {
            let mut buffer = vec![0u8; 64 * 1024];
            loop {
                let chunk = match stdout.read(&mut buffer) {
                    Ok(0) => return,
                    Ok(read) => Ok(buffer[..read].to_vec()),
                    Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                    Err(error) => Err(error),
                };
                let failed = chunk.is_err();
                if send.send(chunk).is_err() || failed {
                    return;
                }
            }
        })?;
    Ok(receive)
}

/// Waits for a child whose stdout has closed; kills it when it is still running after
/// `grace`.
fn wait_or_kill(child: &mut Child, grace: Duration) -> io::Result<ProcessEnd> {
    let deadline = Instant::now() + grace;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(ProcessEnd::from_status(status));
        }
        if Instant::now() >= deadline {
            break;
        }
        thread::sleep(Duration::from_millis(10));
    }
    // It may exit between the check and the kill; the kill then fails harmlessly.
    let _ = child.kill();
    let mut end = ProcessEnd::from_status(child.wait()?);
    end.note = Some(format!(
        "the agent closed its stdout but was still running {} s later; axt killed it",
        grace.as_secs()
    ));
    Ok(end)
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
            let output = match &tool.output {
                serde_json::Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            match &tool.error {
                Some(error) => (RED, format!("<- {} failed", tool.name), error.clone()),
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
