//! The agent process under `axt exec`: started in a process group of its own, watched so
//! that it never outlives axt, stopped on axt's signals, its stdout read on a thread of its
//! own and fed to the capture.
//!
//! * **A group of its own.** The agent and everything it starts (shells, tools, servers)
//!   are one process group (`Command::process_group(0)`), so a stop reaches all of them, and
//!   a terminal's Ctrl-C reaches axt alone, which passes it on (below). An agent in its own
//!   group is not in the terminal's foreground: one that reads the terminal (rather than
//!   the prompt in its arguments, as the agents' non-interactive modes do) is
//!   stopped by the kernel's job control; give it a pipe or a file on stdin instead.
//! * **It dies with axt.** The kernel's way (`PR_SET_PDEATHSIG` in the child before it runs
//!   the agent) needs a `pre_exec` hook, which is unsafe code, and the crate forbids it.
//!   Instead a watchdog: a small `sh` script started before the agent, in a group of its
//!   own (so the terminal's signals pass it by), reading a pipe only axt writes. axt sends
//!   it the agent's group, and `done` when the agent has been waited for; when axt dies
//!   before that, however it dies (SIGKILL included), the kernel closes the pipe, the
//!   watchdog reads end-of-file and sends the group SIGTERM, then SIGKILL after the grace
//!   period. `sh` and its `kill` and `read` builtins are on every Unix; no crate is needed
//!   for a process that only waits.
//! * **Signals.** SIGINT, SIGTERM and SIGHUP set a flag (signal-hook); the loop below looks
//!   at it on every turn, however often the agent writes, passes the signal on to the
//!   agent's group at once, and kills the group when the agent is still running
//!   `--grace-secs` later. Nothing the loop does blocks on axt's own stdout or stderr (the
//!   follow view and the messages have threads of their own), so a reader that stops
//!   reading cannot make axt unkillable.
//!
//! This file runs and stops processes; what their output means is the capture's, what is
//! printed is `exec.rs`'s.

use std::io::{self, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process_group};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

use crate::capture::{Capture, ProcessEnd};

/// The watchdog's script: `$1` is the grace period in seconds. It reads the agent's
/// process group, then waits; `done` means axt waited for the agent itself.
const WATCHDOG: &str = r#"trap '' INT TERM HUP
read -r group || exit 0
read -r word
[ "$word" = done ] && exit 0
kill -TERM "-$group" 2>/dev/null || exit 0
sleep "$1"
kill -KILL "-$group" 2>/dev/null
exit 0"#;

/// The agent's process, its group and its watchdog.
pub(super) struct Agent {
    pub(super) child: Child,
    group: Option<Pid>,
    watchdog: Option<(Child, ChildStdin)>,
}

impl Agent {
    /// Starts `program` with `args` in a process group of its own, stdin and stderr
    /// inherited, stdout piped; and the watchdog that stops the group if axt dies first.
    /// A watchdog that cannot start is a warning (`on_warning`), not a reason to run no
    /// agent.
    pub(super) fn spawn(
        program: &str,
        args: &[String],
        grace: Duration,
        on_warning: impl FnOnce(String),
    ) -> io::Result<Agent> {
        let watchdog = Command::new("sh")
            .args(["-c", WATCHDOG, "axt-watchdog"])
            .arg(grace.as_secs().max(1).to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .and_then(|mut child| match child.stdin.take() {
                Some(stdin) => Ok((child, stdin)),
                None => Err(io::Error::other("no pipe to the watchdog")),
            });
        let mut watchdog = match watchdog {
            Ok(watchdog) => Some(watchdog),
            Err(error) => {
                on_warning(format!(
                    "the agent will not be stopped if axt is killed: cannot start its watchdog (sh): {error}"
                ));
                None
            }
        };
        let child = Command::new(program)
            .args(args)
            .stdin(Stdio::inherit())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .process_group(0)
            .spawn();
        let child = match child {
            Ok(child) => child,
            Err(error) => {
                if let Some((mut watchdog, stdin)) = watchdog.take() {
                    drop(stdin);
                    let _ = watchdog.wait();
                }
                return Err(error);
            }
        };
        let group = Pid::from_raw(i32::try_from(child.id()).unwrap_or(0));
        if let (Some((_, stdin)), Some(group)) = (&mut watchdog, group) {
            // A watchdog that died already guards nothing; the agent runs all the same.
            let _ = writeln!(stdin, "{}", group.as_raw_nonzero());
        }
        Ok(Agent {
            child,
            group,
            watchdog,
        })
    }

    /// Sends `signal` to the agent's whole group (the agent alone when the group is
    /// unknown).
    fn signal(&mut self, signal: Signal) {
        match self.group {
            Some(group) => {
                let _ = kill_process_group(group, signal);
            }
            None if signal == Signal::KILL => {
                let _ = self.child.kill();
            }
            None => {}
        }
    }

    /// Kills the agent's group and waits for the agent.
    fn kill_and_wait(&mut self) -> io::Result<ProcessEnd> {
        self.signal(Signal::KILL);
        // It may have exited between a check and the kill; the kill then did nothing.
        let _ = self.child.kill();
        Ok(ProcessEnd::from_status(self.child.wait()?))
    }

    /// Tells the watchdog the agent was waited for, and waits for the watchdog to exit.
    pub(super) fn release(&mut self) {
        if let Some((mut watchdog, mut stdin)) = self.watchdog.take() {
            let _ = writeln!(stdin, "done");
            drop(stdin);
            let _ = watchdog.wait();
        }
    }
}

impl Drop for Agent {
    /// An agent axt stops caring about (an error on the way) is not left running.
    fn drop(&mut self) {
        if self.watchdog.is_some() {
            if matches!(self.child.try_wait(), Ok(None)) {
                let _ = self.kill_and_wait();
            }
            self.release();
        }
    }
}

/// The signals axt was sent (SIGINT, SIGTERM, SIGHUP): the last one's number, 0 for none.
pub(super) struct Signals(std::sync::Arc<AtomicUsize>);

impl Signals {
    /// Registers the flag for SIGINT, SIGTERM and SIGHUP: from here on they no longer end
    /// axt, they are acted on by [`supervise`].
    pub(super) fn register() -> io::Result<Signals> {
        let flag = std::sync::Arc::new(AtomicUsize::new(0));
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            signal_hook::flag::register_usize(
                signal,
                std::sync::Arc::clone(&flag),
                signal as usize,
            )?;
        }
        Ok(Signals(flag))
    }

    /// The flag itself, for a loop of the library's that watches it (`capture::acp`).
    pub(super) fn flag(&self) -> std::sync::Arc<AtomicUsize> {
        std::sync::Arc::clone(&self.0)
    }

    /// The last signal received, if any.
    pub(super) fn received(&self) -> Option<i32> {
        i32::try_from(self.0.load(Ordering::Relaxed))
            .ok()
            .filter(|signal| *signal != 0)
    }
}

/// What [`supervise`] tells its caller while the agent runs.
pub(super) trait Watch {
    /// A chunk could not be recorded (an error that is not the disk's to retry).
    fn feed_failed(&mut self, error: String);
    /// Called about every tick: a moment to look at the capture's writes.
    fn tick(&mut self, capture: &Capture);
}

/// Feeds the agent's stdout to the capture until it ends, then waits for the agent, and
/// returns how it ended and the signal axt received meanwhile, if any. A recording
/// failure is reported and the output still drained, so the agent is not stopped by
/// axt's problem.
pub(super) fn supervise(
    agent: &mut Agent,
    capture: &mut Capture,
    grace: Duration,
    signals: &Signals,
    watch: &mut dyn Watch,
) -> io::Result<(ProcessEnd, Option<i32>)> {
    let Some(stdout) = agent.child.stdout.take() else {
        return Err(io::Error::other("the agent's stdout is not piped"));
    };
    let chunks = read_on_a_thread(stdout)?;
    let mut recording = true;
    let mut exited_at: Option<(Instant, ProcessEnd)> = None;
    let mut interrupted_at: Option<(Instant, i32)> = None;
    let tick = Duration::from_millis(50);
    let mut last_tick = Instant::now();
    loop {
        // Signals first, on every turn: an agent that writes all the time must not keep
        // axt from hearing them.
        if let Some(signal) = signals.received() {
            match interrupted_at {
                None => {
                    interrupted_at = Some((Instant::now(), signal));
                    // The agent is in a group of its own: the signal reaches it through axt.
                    if let Some(signal) = Signal::from_named_raw(signal) {
                        agent.signal(signal);
                    }
                }
                Some((when, signal)) if when.elapsed() >= grace => {
                    let mut end = agent.kill_and_wait()?;
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
        match chunks.recv_timeout(tick) {
            Ok(Ok(chunk)) => {
                if recording && let Err(error) = capture.feed(&chunk) {
                    watch.feed_failed(error.to_string());
                    recording = false;
                }
            }
            Ok(Err(error)) => {
                watch.feed_failed(format!("reading the agent's stdout failed: {error}"));
                break;
            }
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {}
        }
        if last_tick.elapsed() < tick {
            continue;
        }
        last_tick = Instant::now();
        capture.retry_writes();
        watch.tick(capture);
        // Has the agent exited while its stdout is still open?
        match &exited_at {
            None => {
                if let Some(status) = agent.child.try_wait()? {
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
                return Ok((end, signals.received()));
            }
            Some(_) => {}
        }
    }
    if let Some((_, end)) = exited_at {
        return Ok((end, signals.received()));
    }
    Ok((wait_or_kill(agent, grace, signals)?, signals.received()))
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

/// Waits for an agent whose stdout has closed; kills its group when it is still running
/// after `grace`, or `grace` after a signal axt received meanwhile (passed on at once).
fn wait_or_kill(agent: &mut Agent, grace: Duration, signals: &Signals) -> io::Result<ProcessEnd> {
    let deadline = Instant::now() + grace;
    // A signal received while the output still flowed was passed on then.
    let mut passed_on = signals.received().is_some();
    loop {
        if let Some(status) = agent.child.try_wait()? {
            return Ok(ProcessEnd::from_status(status));
        }
        if Instant::now() >= deadline {
            break;
        }
        if !passed_on && let Some(signal) = signals.received() {
            passed_on = true;
            if let Some(signal) = Signal::from_named_raw(signal) {
                agent.signal(signal);
            }
        }
        thread::sleep(Duration::from_millis(10));
    }
    let mut end = agent.kill_and_wait()?;
    end.note = Some(format!(
        "the agent closed its stdout but was still running {} s later; axt killed it",
        grace.as_secs()
    ));
    Ok(end)
}
