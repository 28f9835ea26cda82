//! The crash soak's processes (`make soak`, `scripts/soak.sh`): something to kill, and the
//! check after each kill.
//!
//! ```text
//! soak write DIR RUN        record into DIR/RUN.jsonl until killed; print each acked seq
//! soak agent [--messages N]  a Claude stream-json agent that writes messages until killed
//!                           (or N of them, then its result, and exits 0)
//! soak verify DIR RUN [--acked N] [--state FILE] [--finished] [--whole]
//! ```
//!
//! `verify` reopens the run with a recorder (which moves a torn tail aside) and checks the
//! file: every line decodes, belongs to RUN and numbers `seq` from 1 by 1 in file order; at
//! least `--acked` lines are there (every `seq` a killed writer was told it got); the bytes
//! recorded in `--state` by the previous verify are still the file's first bytes, unchanged;
//! with `--finished`, the run's last event is `run.completed`; with `--whole`, there was no
//! torn tail left to move (the command line's `axt check --repair` reopened the run
//! first). Then it records one event,
//! which must get the next `seq`, and saves the new length and hash in `--state`. It prints
//! `ok LINES` and, when there was one, `torn BYTES`; anything wrong is an error (exit 1).

#![allow(clippy::print_stdout, clippy::print_stderr)] // The output is the protocol.

use std::error::Error;
use std::fs;
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::Path;
use std::time::Duration;

use axt::model::{
    ContentBlock, EventType, ExchangeEvent, Fidelity, MessagePayload, Payload, Role, decode_event,
};
use axt::record::{Recorder, RecorderOptions};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("write") if args.len() == 3 => write(Path::new(&args[1]), &args[2]),
        Some("agent") => match args.get(1).map(String::as_str) {
            None => agent(None),
            Some("--messages") => agent(Some(args.get(2).ok_or("--messages N")?.parse()?)),
            Some(other) => Err(format!("soak agent: unknown option {other}").into()),
        },
        Some("verify") if args.len() >= 3 => verify(Path::new(&args[1]), &args[2], &args[3..]),
        _ => Err("usage: soak write DIR RUN | soak agent | soak verify DIR RUN [...]".into()),
    }
}

fn message(run_id: &str, text: String) -> ExchangeEvent {
    let payload = Payload::Message(MessagePayload::new(
        Role::Assistant,
        vec![ContentBlock::text(Fidelity::AgentEmitted, text)],
    ));
    ExchangeEvent::new(run_id, EventType::MessageAssistant, "", payload)
}

/// Records from two threads until killed: mostly short lines, one in 32 of 256 KiB, so
/// that some kills land inside a large `write(2)`.
fn write(dir: &Path, run_id: &str) -> Result<()> {
    let rec = Recorder::create(dir, run_id, RecorderOptions::default())?;
    std::thread::scope(|scope| {
        for thread in 0..2 {
            let rec = &rec;
            scope.spawn(move || {
                for index in 0u64.. {
                    let text = if index % 32 == 31 {
                        "y".repeat(256 * 1024)
                    } else {
                        format!("thread {thread} event {index}")
                    };
                    let seq = rec.record(message(run_id, text)).expect("recorded");
                    let mut out = std::io::stdout().lock();
                    writeln!(out, "{seq}").expect("acked");
                }
            });
        }
    });
    Ok(())
}

/// A Claude Code stream: the init record, then one assistant message after another, until
/// killed, or `messages` of them and the result record.
fn agent(messages: Option<u64>) -> Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        r#"{{"type":"system","subtype":"init","session_id":"soak","model":"claude-sonnet-4-6","tools":["Bash"]}}"#
    )?;
    for index in 0..messages.unwrap_or(u64::MAX) {
        let text = "lorem ipsum ".repeat((index % 50) as usize + 1);
        writeln!(
            out,
            r#"{{"type":"assistant","session_id":"soak","message":{{"id":"msg_{index}","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[{{"type":"text","text":"{text}{index}"}}],"stop_reason":null,"usage":{{"input_tokens":1,"output_tokens":1}}}}}}"#
        )?;
        out.flush()?;
        if index % 8 == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    writeln!(
        out,
        r#"{{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"soak","num_turns":1}}"#
    )?;
    Ok(())
}

fn hash(bytes: &[u8]) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    bytes.hash(&mut hasher);
    hasher.finish()
}

fn verify(dir: &Path, run_id: &str, options: &[String]) -> Result<()> {
    let value = |name: &str| {
        options
            .iter()
            .position(|option| option == name)
            .and_then(|at| options.get(at + 1))
    };
    let acked: u64 = value("--acked").map_or(Ok(0), |n| n.parse())?;
    let state = value("--state");
    let finished = options.iter().any(|option| option == "--finished");
    let whole = options.iter().any(|option| option == "--whole");

    let rec = Recorder::create(dir, run_id, RecorderOptions::default())?;
    let bytes = fs::read(rec.path())?;
    if let Some(state) = state.filter(|state| Path::new(state).exists()) {
        let saved = fs::read_to_string(state)?;
        let (len, sum) = saved.trim().split_once(' ').ok_or("a bad state file")?;
        let len: usize = len.parse()?;
        if bytes.len() < len || hash(&bytes[..len]) != sum.parse::<u64>()? {
            return Err(format!("{run_id}: lines written before the kill changed or went").into());
        }
    }
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        return Err(format!("{run_id}: the reopened file ends torn").into());
    }
    let mut last = None;
    for (at, line) in bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .enumerate()
    {
        let event = decode_event(line).map_err(|e| format!("{run_id}: line {}: {e}", at + 1))?;
        if event.seq != at as u64 + 1 || event.run_id != run_id {
            return Err(format!("{run_id}: line {} has seq {}", at + 1, event.seq).into());
        }
        last = Some(event);
    }
    let lines = last.as_ref().map_or(0, |event| event.seq);
    if lines < acked {
        return Err(
            format!("{run_id}: seq {acked} was acknowledged, the file ends at {lines}").into(),
        );
    }
    if finished && last.as_ref().map(|e| &e.event_type) != Some(&EventType::RunCompleted) {
        return Err(format!("{run_id}: the run has no run.completed").into());
    }
    if let Some(torn) = rec.torn_tail() {
        if whole {
            return Err(format!(
                "{run_id}: a torn line ({} bytes) was left after axt check --repair",
                torn.len
            )
            .into());
        }
        println!("torn {}", torn.len);
    }
    let seq = rec.record(message(run_id, format!("verified after {lines}")))?;
    if seq != lines + 1 {
        return Err(format!("{run_id}: seq went on at {seq}, not {}", lines + 1).into());
    }
    rec.close()?;
    if let Some(state) = state {
        let bytes = fs::read(rec.path())?;
        fs::write(state, format!("{} {}\n", bytes.len(), hash(&bytes)))?;
    }
    println!("ok {lines}");
    Ok(())
}
