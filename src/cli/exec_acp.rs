//! `axt exec --acp`: the agent's ACP session, axt its client (`capture::acp::converse`), and
//! how the agent ends after it.
//!
//! The agent is started with its stdin and stdout piped (the JSON-RPC connection) in the
//! workspace; when the conversation returns, its stdin is closed and it is given the grace
//! period to exit. An agent still running then is stopped: cleanly when its turn had ended
//! (ACP agents serve until their client leaves; codex-acp does not exit when its stdin
//! closes), else as a failure with the reason.

use std::io::{self, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crate::capture::Capture;
use crate::capture::acp::{self, AcpOptions, PermissionPolicy};
use crate::model::ProcessEnd;

use super::console::escape;

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

/// The prompt: `--prompt`, else all of stdin (its last line feed dropped).
pub(crate) fn prompt(given: Option<String>) -> io::Result<String> {
    if let Some(prompt) = given {
        return Ok(prompt);
    }
    let mut prompt = String::new();
    super::open(std::path::Path::new("-"))?.read_to_string(&mut prompt)?;
    Ok(prompt
        .strip_suffix('\n')
        .map(str::to_owned)
        .unwrap_or(prompt))
}

/// Starts the agent for a session in `workdir`.
pub(crate) fn spawn(program: &str, args: &[String], workdir: &PathBuf) -> io::Result<Child> {
    Command::new(program)
        .args(args)
        .current_dir(workdir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
}

/// The session's settings from the command line.
pub(crate) fn options(
    prompt: String,
    workdir: PathBuf,
    permission: Permission,
    grace: Duration,
    stop: Arc<AtomicUsize>,
) -> AcpOptions {
    let mut options = AcpOptions::new(prompt, workdir);
    options.permission = match permission {
        Permission::Allow => PermissionPolicy::Allow,
        Permission::Deny => PermissionPolicy::Deny,
        Permission::Ask => PermissionPolicy::Ask(Box::new(ask_on_the_terminal)),
    };
    options.grace = grace;
    options.stop = Some(stop);
    options
}

/// What the session has to say on stderr: an error, a warning, a notice.
pub(crate) enum Said {
    Error(String),
    Warning(String),
    Notice(String),
}

/// Runs the ACP conversation with the agent, then closes its stdin and waits for it: how it
/// ended, and the signal axt received, if any.
pub(crate) fn session(
    child: &mut Child,
    capture: &mut Capture,
    options: AcpOptions,
    say: &mut dyn FnMut(Said),
) -> io::Result<(ProcessEnd, Option<i32>)> {
    let stdin = child.stdin.take().expect("stdin is piped");
    let stdout = child.stdout.take().expect("stdout is piped");
    let grace = options.grace;
    let stop = options.stop.clone();
    let mut failed = None;
    let mut record = |line: &[u8]| -> Result<(), std::convert::Infallible> {
        if failed.is_none()
            && let Err(error) = capture.feed(line)
        {
            failed = Some(format!("recording stopped: {error}"));
        }
        Ok(())
    };
    let ended = acp::converse(stdin, stdout, &mut record, options);
    if let Some(error) = failed {
        say(Said::Error(error));
    }
    let received = stop
        .and_then(|s| i32::try_from(s.load(Ordering::Relaxed)).ok())
        .filter(|s| *s != 0);
    let turn_ended = match ended {
        Ok(end) => {
            if let Some(error) = end.error {
                say(Said::Warning(error));
            }
            end.stop_reason.is_some() && end.stopped.is_none()
        }
        Err(error) => {
            say(Said::Error(error.to_string()));
            false
        }
    };
    // The agent's stdin is closed (the conversation took and dropped it): an ACP agent may
    // end with its connection.
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
        say(Said::Notice(format!(
            "the agent was still serving {} s after its turn ended and its stdin closed; axt stopped it",
            grace.as_secs()
        )));
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
    use std::io::{BufRead as _, Write as _};
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
