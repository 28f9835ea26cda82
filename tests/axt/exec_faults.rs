//! `axt exec` under real faults (issue 23, items 4, 5 and 8; issue 24's exit codes): a real
//! tmpfs that is full or fills and frees mid-run (mounted where the test may: root, as CI
//! is; elsewhere SKIPPED with the reason), real signals to a real `axt exec` process, a
//! reader that stops reading, and `axt exec` itself killed with SIGKILL.

use std::fs;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::cli::{axt, text};
use super::exec::events_without_timestamps as events;
use super::support::{SmallDisk, TempDir, normalize_corpus, replay_agent};

fn fixture(provider: &str, name: &str) -> String {
    let path = normalize_corpus(provider).join(format!("{name}.jsonl"));
    path.to_str().unwrap().to_owned()
}

/// `axt exec ... -- python3 replay-agent.py AGENT...` started, not waited for.
fn start_exec(dir: &Path, extra: &[&str], agent: &[&str], output: Stdio) -> Child {
    let agent_script = replay_agent();
    Command::new(env!("CARGO_BIN_EXE_axt"))
        .args(["exec", "--out", dir.to_str().unwrap(), "--run-id", "r"])
        .args(extra)
        .args(["--", "python3", &agent_script])
        .args(agent)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(output)
        .spawn()
        .unwrap()
}

/// Waits up to `limit` for `child`; kills it (and fails the test) when it is still running.
fn wait_at_most(mut child: Child, limit: Duration, what: &str) -> (Output, Duration) {
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return (child.wait_with_output().unwrap(), started.elapsed());
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: axt was still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What a child writes to a pipe, collected by a thread while the test goes on.
struct Collected {
    text: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    reader: std::thread::JoinHandle<()>,
}

impl Collected {
    fn text(&self) -> String {
        text(&self.text.lock().unwrap())
    }

    fn contains(&self, needle: &str) -> bool {
        self.text().contains(needle)
    }

    /// Everything the pipe carried, once its writer has closed it.
    fn finish(self) -> String {
        let Collected {
            text: collected,
            reader,
        } = self;
        reader.join().unwrap();
        text(&collected.lock().unwrap())
    }
}

fn read_in_background(mut pipe: impl std::io::Read + Send + 'static) -> Collected {
    let text = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = text.clone();
    let reader = std::thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        while let Ok(n) = pipe.read(&mut chunk) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().extend_from_slice(&chunk[..n]);
        }
    });
    Collected { text, reader }
}

/// Waits until the run's file has `lines` lines.
fn wait_for_lines(path: &Path, lines: usize) {
    let started = Instant::now();
    while fs::read(path).map_or(0, |t| t.iter().filter(|b| **b == b'\n').count()) < lines {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the agent never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn signal(pid: u32, name: &str) {
    let sent = Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

fn last_event(path: &Path) -> Value {
    events(&fs::read(path).unwrap()).pop().unwrap()
}

/// The disk the test needs, or SKIPPED on stderr with the reason and the test returns.
macro_rules! small_disk_or_skip {
    ($name:expr, $size:expr) => {
        match SmallDisk::mount($name, $size) {
            Ok(disk) => disk,
            Err(reason) => {
                #[allow(clippy::print_stderr)]
                {
                    eprintln!("SKIPPED {}: {reason}", $name);
                }
                return;
            }
        }
    };
}

/// Item 4: a disk full from the start. The first write of the transcript failing used to
/// panic axt (exit 101, a backtrace, the agent's code lost). Now the agent runs, axt keeps
/// its events and bytes for the disk, retries for the grace period once the agent has
/// ended, and then says exactly what it could not write, exiting 2.
#[test]
fn real_tmpfs_full_at_start_exec_names_what_it_lost_and_exits_2() {
    let disk = small_disk_or_skip!("exec-full-at-start", 256 * 1024);
    let runs = disk.path().join("runs");
    fs::create_dir(&runs).unwrap();
    disk.fill("filler");
    let path = fixture("claude", "ok/shared-scenario-shell-command");
    let child = start_exec(
        &runs,
        &["-p", "claude", "--grace-secs", "1"],
        &[&path],
        Stdio::piped(),
    );
    let (output, _) = wait_at_most(child, Duration::from_secs(30), "full disk");
    let stderr = text(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let fixture_bytes = fs::read(&path).unwrap().len();
    assert!(
        stderr.contains("events could not be written (")
            && stderr.contains("No space left on device")
            && stderr.contains(&format!(
                "{fixture_bytes} bytes of the agent's output are missing (output bytes 0..{fixture_bytes})"
            )),
        "{stderr}"
    );
    assert_eq!(fs::read(runs.join("r.jsonl")).unwrap(), b"");
}

/// Item 5: the disk fills mid-run and frees a second later. One failed write used to stop
/// the recording for good (three quarters of the output lost, the transcript blaming the
/// agent, exit 0). Now what the disk refused waits and is written once it has room: the
/// transcript is what `axt normalize` makes of the output, the raw copy is the output byte
/// for byte, and axt says the disk refused them.
#[test]
fn real_tmpfs_full_for_a_second_mid_run_loses_nothing() {
    let disk = small_disk_or_skip!("exec-full-mid-run", 1024 * 1024);
    let runs = disk.path().join("runs");
    let outside = TempDir::new("exec-full-mid-run-go");
    let go = outside.path().join("go");
    // 10 KB, 8 of them after the stall: more than the last page of each file holds.
    let path = fixture("claude", "ok/subagent-agent-tool-parent-tool-use-id");
    let agent = [
        path.as_str(),
        "--after-line",
        "3",
        "--wait-for",
        go.to_str().unwrap(),
        "--delay-ms",
        "20",
    ];
    let mut child = start_exec(&runs, &["-p", "claude"], &agent, Stdio::piped());
    let stderr_so_far = read_in_background(child.stderr.take().unwrap());
    wait_for_lines(&runs.join("r.jsonl"), 4);
    disk.fill("filler");
    fs::write(&go, b"").unwrap();
    // The agent writes the rest of its output while the disk is full; the disk stays full
    // until both writers have met it (a fixed pause was too short under a loaded machine:
    // the transcript's writes sometimes came only after the disk was freed).
    let transcript_refused = "r.jsonl: No space left on device (os error 28); the transcript's events wait for the disk and are retried";
    let raw_refused = "r.raw: No space left on device (os error 28); the agent's output is kept in memory and retried";
    let started = Instant::now();
    while !(stderr_so_far.contains(transcript_refused) && stderr_so_far.contains(raw_refused)) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the full disk was never reported: {}",
            stderr_so_far.text()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    fs::remove_file(disk.path().join("filler")).unwrap();
    let (output, _) = wait_at_most(child, Duration::from_secs(30), "disk freed");
    let stderr = stderr_so_far.finish();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("the disk took the waiting output"),
        "{stderr}"
    );
    let normalized = axt(&["normalize", "-p", "claude", "--run-id", "r", &path], b"");
    assert_eq!(
        events(&fs::read(runs.join("r.jsonl")).unwrap()),
        events(&normalized.stdout)
    );
    assert_eq!(
        fs::read(runs.join("r.raw")).unwrap(),
        fs::read(&path).unwrap()
    );
}

/// Item 8: an agent that writes every millisecond used to keep axt from ever looking at
/// its signals (grace never started, the agent ran to its end, exit 0). Now SIGTERM is
/// passed on at once and, the agent ignoring it, its group is killed after the grace.
#[test]
fn signals_are_heard_while_the_agent_writes_without_pause() {
    let dir = TempDir::new("exec-busy-signal");
    let path = fixture("codex", "ok/commands-failed-and-declined");
    let agent = [
        path.as_str(),
        "--repeat-for",
        "30",
        "--delay-ms",
        "1",
        "--ignore-signals",
    ];
    let child = start_exec(
        dir.path(),
        &["-p", "codex", "--grace-secs", "1"],
        &agent,
        Stdio::piped(),
    );
    wait_for_lines(&dir.path().join("r.jsonl"), 10);
    signal(child.id(), "TERM");
    let (output, elapsed) = wait_at_most(child, Duration::from_secs(20), "busy agent");
    assert!(elapsed < Duration::from_secs(8), "{elapsed:?}");
    assert_eq!(output.status.code(), Some(143), "{}", text(&output.stderr));
    let end = last_event(&dir.path().join("r.jsonl"));
    assert_eq!(end["type"], "run.completed");
    // Whether the output ended inside a turn depends on the moment of the kill.
    let error = end["payload"]["error"].as_str().unwrap();
    assert!(
        error.starts_with("axt received SIGTERM and the agent was still running 1 s later; axt killed it: the agent was killed by signal 9 (SIGKILL)"),
        "{error}"
    );
}

/// Item 8: `axt exec --follow` whose stdout and stderr are pipes nobody reads (a FIFO
/// without a reader that reads) used to be unkillable short of SIGKILL once the pipes
/// filled. Now the follow view and the messages block only their own threads: SIGTERM
/// still stops the agent, the transcript is finished, and axt exits.
#[test]
fn a_reader_that_stops_reading_cannot_keep_axt_from_its_signals() {
    let dir = TempDir::new("exec-stalled-reader");
    let path = fixture("claude", "err/non-json-sandbox-banner-and-blank-line");
    let agent = [path.as_str(), "--repeat-for", "30", "--ignore-signals"];
    // stdout and stderr piped to this test, which never reads them.
    let child = start_exec(
        dir.path(),
        &["-p", "claude", "--grace-secs", "1", "--follow"],
        &agent,
        Stdio::piped(),
    );
    wait_for_lines(&dir.path().join("r.jsonl"), 10);
    // Long enough for the follow view and the diagnostics to fill both pipes.
    std::thread::sleep(Duration::from_secs(2));
    signal(child.id(), "TERM");
    let (output, elapsed) = wait_at_most(child, Duration::from_secs(25), "stalled reader");
    assert!(elapsed < Duration::from_secs(15), "{elapsed:?}");
    assert_eq!(output.status.code(), Some(143));
    let end = last_event(&dir.path().join("r.jsonl"));
    assert_eq!(end["type"], "run.completed");
}

/// Whether process `pid` is gone (or a zombie nobody reaped yet: it runs no more).
fn gone(pid: &str) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(") ")
            .next()
            .is_some_and(|rest| rest.starts_with('Z')),
    }
}

/// Item 8: `axt exec` killed with SIGKILL used to leave its agent running, and the
/// agent's children. The agent is now in a process group of its own, which axt's
/// watchdog stops when axt dies, however it dies.
#[test]
fn a_killed_axt_takes_the_agent_s_whole_process_group_with_it() {
    let dir = TempDir::new("exec-sigkill");
    let agent_pid = dir.path().join("agent.pid");
    let sleeper_pid = dir.path().join("sleeper.pid");
    let script = format!(
        "sleep 300 & echo $! > {}; echo $$ > {}; wait",
        sleeper_pid.display(),
        agent_pid.display()
    );
    let out = dir.path().join("runs");
    let child = Command::new(env!("CARGO_BIN_EXE_axt"))
        .args([
            "exec",
            "-p",
            "claude",
            "--grace-secs",
            "1",
            "--run-id",
            "r",
            "--out",
        ])
        .arg(&out)
        .args(["--", "sh", "-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let read = |path: &Path| fs::read_to_string(path).ok().filter(|t| t.ends_with('\n'));
    let (agent, sleeper) = loop {
        if let (Some(agent), Some(sleeper)) = (read(&agent_pid), read(&sleeper_pid)) {
            break (agent.trim().to_owned(), sleeper.trim().to_owned());
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the agent never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    signal(child.id(), "KILL");
    let mut child = child;
    let _ = child.wait();
    let killed = Instant::now();
    while !(gone(&agent) && gone(&sleeper)) && killed.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let survivors: Vec<&str> = [agent.as_str(), sleeper.as_str()]
        .into_iter()
        .filter(|pid| !gone(pid))
        .collect();
    for pid in &survivors {
        let _ = Command::new("kill").args(["-KILL", pid]).status();
    }
    assert!(
        survivors.is_empty(),
        "still running after axt was killed: {survivors:?}"
    );
}

/// Issue 24: an agent that exits 0 after writing another provider's output, or nothing,
/// is no success: exit 1 (the run says why), unless --agent-exit-code asks for the
/// agent's code alone.
#[test]
fn exec_exits_1_for_another_provider_s_output_or_none_at_all() {
    let dir = TempDir::new("exec-wrong-provider");
    let out = dir.path().to_str().unwrap();
    let codex = fixture("codex", "ok/commands-failed-and-declined");
    let agent = replay_agent();
    let run = |run_id: &str, extra: &[&str], command: &[&str]| {
        let mut args = vec!["exec", "-p", "claude", "--out", out, "--run-id", run_id];
        args.extend_from_slice(extra);
        args.push("--");
        args.extend_from_slice(command);
        axt(&args, b"")
    };
    let wrong = run("wrong", &[], &["python3", &agent, &codex]);
    assert_eq!(wrong.status.code(), Some(1), "{}", text(&wrong.stderr));
    assert!(text(&wrong.stderr).contains("unrecognized-input"));
    let empty = run("empty", &[], &["true"]);
    assert_eq!(empty.status.code(), Some(1), "{}", text(&empty.stderr));
    let end = last_event(&dir.path().join("empty.jsonl"));
    assert_eq!(end["payload"]["result"]["status"], "incomplete");
    let told = run("told", &["--agent-exit-code"], &["python3", &agent, &codex]);
    assert_eq!(told.status.code(), Some(0));
    let failing = run("failing", &[], &["sh", "-c", "exit 3"]);
    assert_eq!(failing.status.code(), Some(3), "the agent's own code wins");
}

/// Item 14: SIGKILL can tear a run's final line, and only the library's recorder moved it
/// aside when it reopened the run; the command line had no way to. `axt check --repair`
/// reopens the run as the recorder does: the torn bytes go to a sidecar, said on stderr,
/// and the file reads whole again.
#[test]
fn check_repair_moves_a_torn_final_line_aside() {
    let dir = TempDir::new("check-repair");
    let input = fixture("claude", "ok/shared-scenario-shell-command");
    let out = dir.path().to_str().unwrap();
    let wrote = axt(&["normalize", "--out", out, "--run-id", "r", &input], b"");
    assert_eq!(wrote.status.code(), Some(0), "{}", text(&wrote.stderr));
    let run = dir.path().join("r.jsonl");
    let whole = fs::read(&run).unwrap();
    // What a writer killed in the middle of its last write leaves.
    let torn = br#"{"seq":99,"run_id":"r","type":"message.assis"#;
    let mut damaged = whole.clone();
    damaged.extend_from_slice(torn);
    fs::write(&run, &damaged).unwrap();
    let run_arg = run.to_str().unwrap();
    let checked = axt(&["check", run_arg], b"");
    assert_eq!(checked.status.code(), Some(1), "{}", text(&checked.stderr));
    let repaired = axt(&["check", "--repair", run_arg], b"");
    let stderr = text(&repaired.stderr).replace(out, "DIR");
    assert_eq!(repaired.status.code(), Some(0), "{stderr}");
    let sidecar = format!("r.jsonl.torn-{}", whole.len());
    assert_eq!(
        stderr,
        format!(
            "axt: DIR/r.jsonl: moved the torn final line ({} bytes at byte {}) to DIR/{sidecar}\n",
            torn.len(),
            whole.len()
        )
    );
    assert_eq!(fs::read(&run).unwrap(), whole);
    assert_eq!(fs::read(dir.path().join(sidecar)).unwrap(), torn);
    // A second repair finds nothing to do, and says nothing.
    let again = axt(&["check", "--repair", run_arg], b"");
    assert_eq!(
        (again.status.code(), text(&again.stderr)),
        (Some(0), String::new())
    );
}

/// Item 14: the run's directory removed while the agent runs used to end in "wrote
/// DIR/r.jsonl", exit 0, and no file: every write had gone into a file nobody could open
/// again. Now closing the run notices, writes the transcript back (the directory made
/// again), says the raw copy is lost, and exits 2.
#[test]
fn a_directory_removed_mid_run_is_said_and_the_transcript_written_back() {
    let dir = TempDir::new("exec-dir-removed");
    let runs = dir.path().join("runs");
    let go = dir.path().join("go");
    let path = fixture("claude", "ok/shared-scenario-shell-command");
    let agent = [
        path.as_str(),
        "--after-line",
        "3",
        "--wait-for",
        go.to_str().unwrap(),
    ];
    let child = start_exec(&runs, &["-p", "claude"], &agent, Stdio::piped());
    wait_for_lines(&runs.join("r.jsonl"), 4);
    fs::remove_dir_all(&runs).unwrap();
    fs::write(&go, b"").unwrap();
    let (output, _) = wait_at_most(child, Duration::from_secs(30), "directory removed");
    let stderr = text(&output.stderr).replace(runs.to_str().unwrap(), "DIR");
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("wrote"), "{stderr}");
    assert!(
        stderr.contains("DIR/r.jsonl: the file was removed while the run was recorded (its directory deleted?); its lines were written back to it")
            && stderr.contains("DIR/r.raw: the file was removed while the output was written to it"),
        "{stderr}"
    );
    // The whole run, written back; its end says the raw copy is lost.
    let mut live = events(&fs::read(runs.join("r.jsonl")).unwrap());
    let result = live.last_mut().unwrap()["payload"]["result"]
        .as_object_mut()
        .unwrap();
    let missing = result.remove("raw_missing").unwrap();
    assert!(
        missing
            .as_str()
            .unwrap()
            .ends_with("the raw copy of the output (2851 bytes) is lost")
    );
    let normalized = axt(&["normalize", "-p", "claude", "--run-id", "r", &path], b"");
    assert_eq!(live, events(&normalized.stdout));
}

/// Issue 24: `axt exec --provider auto` recognizes the agent's output from its first
/// records, as `axt normalize` does: the transcript is the one an explicit provider makes.
/// An output that is no provider's is kept in the raw copy, and the run recorded as failed
/// with the reason: exit 1, not a quiet 0.
#[test]
fn exec_provider_auto_detects_the_output_or_says_it_cannot() {
    let dir = TempDir::new("exec-auto");
    let out = dir.path().to_str().unwrap();
    let agent = replay_agent();
    let codex = fixture("codex", "ok/commands-failed-and-declined");
    let run = |run_id: &str, command: &[&str]| {
        let mut args = vec!["exec", "-p", "auto", "--out", out, "--run-id", run_id, "--"];
        args.extend_from_slice(command);
        axt(&args, b"")
    };
    let detected = run("codex", &["python3", &agent, &codex]);
    assert_eq!(
        detected.status.code(),
        Some(0),
        "{}",
        text(&detected.stderr)
    );
    let normalized = axt(
        &["normalize", "-p", "codex", "--run-id", "codex", &codex],
        b"",
    );
    assert_eq!(
        events(&fs::read(dir.path().join("codex.jsonl")).unwrap()),
        events(&normalized.stdout)
    );

    let garbage = run("garbage", &["sh", "-c", "echo 'hello, world'"]);
    let stderr = text(&garbage.stderr).replace(out, "DIR");
    assert_eq!(garbage.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("axt: cannot detect the provider of the agent's output ("),
        "{stderr}"
    );
    assert_eq!(
        fs::read(dir.path().join("garbage.raw")).unwrap(),
        b"hello, world\n"
    );
    let types: Vec<String> = events(&fs::read(dir.path().join("garbage.jsonl")).unwrap())
        .iter()
        .map(|event| event["type"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        types,
        [
            "run.started",
            "step.started",
            "step.completed",
            "run.completed"
        ]
    );
    let end = last_event(&dir.path().join("garbage.jsonl"));
    let error = end["payload"]["error"]
        .as_str()
        .unwrap()
        .replace(out, "DIR");
    assert!(
        error.starts_with("axt could not tell which agent wrote the output (")
            && error.ends_with("; the output is kept in DIR/garbage.raw"),
        "{error}"
    );

    let empty = run("empty", &["true"]);
    assert_eq!(empty.status.code(), Some(1));
    assert!(
        text(&empty.stderr).contains("(the agent wrote nothing)"),
        "{}",
        text(&empty.stderr)
    );
}
