//! What a person reads: `axt show` and `axt ls` on the corpora, as golden snapshots in
//! `golden/show/`, and checked on every fixture for what must hold whatever the input.
//!
//! Snapshots, run as a user runs them (the real binary, no colour, 100 columns):
//! * `golden/show/normalize/<provider>/ok/<fixture>.snap`: `axt show` of the transcripts of
//!   [`NORMALIZED`], fixtures chosen to show every kind of entry (thinking, sub-agents,
//!   failed and declined calls, server tools, citations, parallel calls) for each provider;
//! * `golden/show/import/claude-code/ok/<session>.snap`: imported sessions, sub-agents
//!   shown where their linked runs were invoked ([`IMPORTED`]);
//! * `golden/show/read/transcript/ok/<fixture>.snap`: workflow runs as an executor records
//!   them, sub-workflows, calls on both channels, a system prompt ([`TRANSCRIPTS`]);
//! * `golden/show/ls/<corpus>.snap`: `axt ls` of the directories those make (and `--json`
//!   of the imports').
//!
//! Invariants, on every fixture of every corpus (ok and err): `axt show` never panics and
//! exits 0 or 1; it prints no control character but the line feed (with colour, only its
//! own SGR sequences); and every tool call the run makes (by the rule of calls seen on both
//! channels, sub-runs included) has its `●` line, so nothing is left out silently.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use axt::import::claude_code::{convert, write};
use axt::normalize::{Options, Provider};
use axt::read::Prices;
use axt::read::summary::{RunSummary, summarize_all};
use axt::record::RecorderOptions;
use axt::transcribe::{EventOptions, RecordingSink, Transcriber};

use crate::golden_import::{sessions, stem};
use crate::support::{
    Failures, Outcome, PROVIDER_INPUTS, TempDir, fixtures, normalize_corpus, now, read_corpus,
    root, snapshot_settings,
};

/// Provider fixtures shown, by provider (files under `corpus/normalize/<provider>/ok/`).
const NORMALIZED: &[(&str, &[&str])] = &[
    (
        "claude",
        &[
            "plain-session-thinking-text-bash.jsonl",
            "subagent-agent-tool-parent-tool-use-id.jsonl",
            "tool-errors-validation-and-exit-code.jsonl",
            "redacted-thinking-and-server-web-search.jsonl",
        ],
    ),
    (
        "codex",
        &[
            "plain-session-reasoning-message-command.jsonl",
            "commands-failed-and-declined.jsonl",
            "file-change-kind-string-and-object.jsonl",
        ],
    ),
    (
        "copilot",
        &[
            "plain-session-view-bash-empty-content-tool-requests.jsonl",
            "session-log-events-jsonl-shutdown-model-metrics.jsonl",
            "subagent-events-agent-id.jsonl",
        ],
    ),
    (
        "gemini",
        &[
            "json-mode-success.json",
            "plain-session-user-echo-per-model-stats.jsonl",
            "tool-error-and-edit-without-output.jsonl",
        ],
    ),
    (
        "openai",
        &[
            "responses-stream-reasoning-text-function-call.sse",
            "parallel-tool-calls-interleaved-by-index.sse",
            "chat-search-preview-nested-url-citation.json",
        ],
    ),
];

/// Claude Code sessions imported and shown (under `corpus/import/claude-code/ok/`).
const IMPORTED: &[&str] = &[
    "nested-subagents",
    "compaction-boundary-and-summary",
    "rewind-and-hook-fork",
];

/// Transcripts shown as they are (under `corpus/read/transcript/ok/`).
const TRANSCRIPTS: &[&str] = &[
    "nested/nest-root.jsonl",
    "both-channels-agent-first.jsonl",
    "system-prompt.jsonl",
];

/// The columns every snapshot is laid out at.
const WIDTH: &str = "100";

fn golden() -> PathBuf {
    root().join("golden/show")
}

/// `axt ARGS` run in `dir`, colour as asked, `NO_COLOR` and the user's prices out of it.
pub(crate) fn axt_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_axt"))
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("AXT_PRICES")
        .env("XDG_CONFIG_HOME", "/nonexistent-axt-test-config")
        .stdin(Stdio::null())
        .output()
        .expect("axt runs")
}

/// `axt show ARGS` run in `dir`.
pub(crate) fn show_in(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["show"];
    all.extend_from_slice(args);
    axt_in(dir, &all)
}

/// Normalizes `corpus/normalize/<provider>/<fixture>` into `dir/<run_id>.jsonl`.
pub(crate) fn normalized_into(dir: &Path, provider: &str, fixture: &str, run_id: &str) -> PathBuf {
    let provider = Provider::ALL
        .into_iter()
        .find(|p| p.as_str() == provider)
        .expect("a provider");
    normalize_into(
        dir,
        provider,
        &normalize_corpus(provider).join(fixture),
        run_id,
    )
}

/// A command's output as a snapshot: the command, its exit status, stdout and stderr.
fn rendered(args: &[&str], output: &Output) -> String {
    let mut text = format!(
        "$ axt {}\nexit {}\n\n",
        args.join(" "),
        output
            .status
            .code()
            .map_or("signal".to_owned(), |c| c.to_string())
    );
    text.push_str(&String::from_utf8_lossy(&output.stdout));
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !stderr.is_empty() {
        text.push_str("\n## stderr\n");
        text.push_str(&stderr);
    }
    text
}

/// Normalizes `input` as `provider` into `dir/<run_id>.jsonl` with the harnesses' clock.
fn normalize_into(dir: &Path, provider: Provider, input: &Path, run_id: &str) -> PathBuf {
    let events = EventOptions {
        run_id: Some(run_id.to_owned()),
        clock: Box::new(now),
    };
    let mut transcriber = Transcriber::new(provider, Options::default(), events);
    let mut sink = RecordingSink::new(dir, RecorderOptions::default(), |_| Ok(()));
    transcriber
        .push(&std::fs::read(input).unwrap(), &mut sink)
        .unwrap();
    transcriber.finish(&mut sink).unwrap();
    let recorder = sink.recorder().expect("a run was recorded");
    let path = recorder.path().to_owned();
    recorder.close().unwrap();
    path
}

fn snapshot(dir: &Path, name: &str, text: &str) {
    snapshot_settings(dir, None).bind(|| insta::assert_snapshot!(name.to_owned(), text));
}

/// The file name without the fixture's extension.
fn base(fixture: &str) -> &str {
    let name = fixture.rsplit('/').next().unwrap();
    name.rsplit_once('.').map_or(name, |(stem, _)| stem)
}

#[test]
fn show_and_ls_of_provider_runs() {
    let scratch = TempDir::new("golden-show-normalize");
    let mut failures = Failures::default();
    for (provider, names) in NORMALIZED {
        let provider: Provider = Provider::ALL
            .into_iter()
            .find(|p| p.as_str() == *provider)
            .unwrap();
        for fixture in *names {
            let name = base(fixture);
            failures.check(&format!("{provider}/{fixture}"), || {
                let input = normalize_corpus(provider).join("ok").join(fixture);
                normalize_into(scratch.path(), provider, &input, name);
                let file = format!("{name}.jsonl");
                let args = ["show", &file, "--width", WIDTH];
                let output = axt_in(scratch.path(), &args);
                let dir = golden()
                    .join("normalize")
                    .join(provider.as_str())
                    .join("ok");
                snapshot(&dir, name, &rendered(&args, &output));
            });
        }
    }
    failures.check("ls", || {
        let args = ["ls", "."];
        let output = axt_in(scratch.path(), &args);
        snapshot(&golden().join("ls"), "normalize", &rendered(&args, &output));
    });
    failures.finish();
}

#[test]
fn show_and_ls_of_imported_sessions() {
    let scratch = TempDir::new("golden-show-import");
    let mut failures = Failures::default();
    for files in sessions(Outcome::Ok) {
        let name = stem(&files, Outcome::Ok);
        let session = convert(&files).unwrap();
        let written = write(&session, scratch.path(), false).unwrap();
        let Some(chosen) = IMPORTED.iter().find(|c| name.starts_with(*c)) else {
            continue;
        };
        failures.check(&name, || {
            let file = written[0].file_name().unwrap().to_str().unwrap().to_owned();
            let args = ["show", &file, "--width", WIDTH];
            let output = axt_in(scratch.path(), &args);
            let dir = golden().join("import/claude-code/ok");
            snapshot(&dir, chosen, &rendered(&args, &output));
        });
    }
    failures.check("ls", || {
        let args = ["ls", "."];
        let output = axt_in(scratch.path(), &args);
        snapshot(&golden().join("ls"), "import", &rendered(&args, &output));
        let args = ["ls", "--json", "."];
        let output = axt_in(scratch.path(), &args);
        snapshot(
            &golden().join("ls"),
            "import-json",
            &rendered(&args, &output),
        );
    });
    failures.finish();
}

#[test]
fn show_and_ls_of_workflow_transcripts() {
    let corpus = read_corpus().join("ok");
    let mut failures = Failures::default();
    for fixture in TRANSCRIPTS {
        failures.check(fixture, || {
            let args = ["show", fixture, "--width", WIDTH];
            let output = axt_in(&corpus, &args);
            let dir = golden().join("read/transcript/ok");
            snapshot(
                &dir,
                &fixture.replace('/', "__").replace(".jsonl", ""),
                &rendered(&args, &output),
            );
        });
    }
    failures.check("ls", || {
        let args = ["ls", "."];
        let output = axt_in(&corpus, &args);
        snapshot(
            &golden().join("ls"),
            "transcript",
            &rendered(&args, &output),
        );
    });
    failures.finish();
}

/// Whether `text` holds a control character other than LF, or (with `sgr`) other than
/// LF and the SGR sequences `ESC [ digits and ; m`.
fn stray_control(text: &str, sgr: bool) -> Option<String> {
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c == '\n' || !(c.is_control() || ('\u{80}'..='\u{9f}').contains(&c)) {
            continue;
        }
        if sgr && c == '\u{1b}' && chars.peek().map(|(_, n)| *n) == Some('[') {
            chars.next();
            let mut ok = false;
            for (_, n) in chars.by_ref() {
                if n == 'm' {
                    ok = true;
                    break;
                }
                if !(n.is_ascii_digit() || n == ';') {
                    break;
                }
            }
            if ok {
                continue;
            }
        }
        return Some(format!("{:?} at byte {at}", c));
    }
    None
}

/// The run `id` among `runs` and their sub-runs, at any depth.
fn find<'a>(runs: &'a [RunSummary], id: &str) -> Option<&'a RunSummary> {
    runs.iter()
        .find(|run| run.run_id == id)
        .or_else(|| runs.iter().find_map(|run| find(&run.sub_runs, id)))
}

/// Shows one run file and checks what must hold of any run.
fn check_show(dir: &Path, file: &str) {
    let plain = axt_in(dir, &["show", file, "--width", "0", "--full"]);
    let code = plain.status.code();
    assert!(
        matches!(code, Some(0 | 1)),
        "{file}: exit {code:?}: {}",
        String::from_utf8_lossy(&plain.stderr)
    );
    let stdout = String::from_utf8(plain.stdout).expect("UTF-8 out");
    if let Some(stray) = stray_control(&stdout, false) {
        panic!("{file}: a control character reached the terminal: {stray}");
    }
    let coloured = axt_in(dir, &["show", file, "--color", "always"]);
    let coloured = String::from_utf8(coloured.stdout).unwrap();
    if let Some(stray) = stray_control(&coloured, true) {
        panic!("{file}: with colour, a control character that is not SGR: {stray}");
    }
    // Every call once: the run's and its sub-runs' calls, by the rule of both channels.
    let listing = summarize_all(&[dir.to_owned()], Prices::builtin());
    let run_id = summarize_all(&[dir.join(file)], Prices::builtin())
        .runs
        .first()
        .map(|run| run.run_id.clone());
    if let Some(run) = run_id.and_then(|id| find(&listing.runs, &id)) {
        let expected = run.totals().tools.calls;
        let shown = stdout
            .lines()
            .filter(|l| l.trim_start().starts_with("● "))
            .count() as u64;
        assert_eq!(shown, expected, "{file}: tool calls shown\n{stdout}");
    }
}

#[test]
fn show_holds_its_invariants_on_every_fixture() {
    let mut failures = Failures::default();
    let mut shown = 0;
    for provider in Provider::ALL {
        let scratch = TempDir::new(&format!("show-all-{provider}"));
        for fixture in fixtures(&normalize_corpus(provider), &PROVIDER_INPUTS) {
            let name = format!("{}-{}", fixture.outcome, fixture.name());
            failures.check(&format!("{provider}/{}", fixture.id()), || {
                normalize_into(scratch.path(), provider, &fixture.path, &name);
                check_show(scratch.path(), &format!("{name}.jsonl"));
            });
            shown += 1;
        }
    }
    for outcome in Outcome::ALL {
        let scratch = TempDir::new(&format!("show-all-import-{outcome}"));
        for files in sessions(outcome) {
            let name = stem(&files, outcome);
            let Ok(session) = convert(&files) else {
                continue;
            };
            let written = write(&session, scratch.path(), true).unwrap();
            failures.check(&format!("import/{outcome}/{name}"), || {
                let file = written[0].file_name().unwrap().to_str().unwrap().to_owned();
                check_show(scratch.path(), &file);
            });
            shown += 1;
        }
    }
    for fixture in fixtures(&read_corpus(), &["jsonl"]) {
        failures.check(&format!("read/{}", fixture.id()), || {
            let dir = fixture.path.parent().unwrap();
            check_show(dir, fixture.file_name());
        });
        shown += 1;
    }
    assert!(shown > 150, "{shown} fixtures shown");
    failures.finish();
}

/// `s` without its SGR sequences and carriage returns.
fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            for n in chars.by_ref() {
                if n.is_ascii_alphabetic() {
                    break;
                }
            }
            continue;
        }
        if c != '\r' {
            out.push(c);
        }
    }
    out
}

/// On a real terminal (a pseudo-terminal `script` opens, sized with `stty`), `axt show`
/// colours its output and wraps it to the terminal's width; what it shows is exactly what a
/// pipe gets at that width, the colour aside.
#[test]
#[allow(clippy::print_stderr)]
fn show_on_a_terminal_is_coloured_and_wrapped_to_its_width() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!(
            "SKIPPED show_on_a_terminal_is_coloured_and_wrapped_to_its_width: no `script` \
             (util-linux) to open a pseudo-terminal"
        );
        return;
    }
    let scratch = TempDir::new("show-pty");
    let input =
        normalize_corpus(Provider::Claude).join("ok/subagent-agent-tool-parent-tool-use-id.jsonl");
    normalize_into(scratch.path(), Provider::Claude, &input, "pty");
    let axt = env!("CARGO_BIN_EXE_axt");
    let command = format!("stty cols 64 rows 40; {axt} show pty.jsonl");
    let output = Command::new("script")
        .args(["--quiet", "--return", "--command", &command, "/dev/null"])
        .current_dir(scratch.path())
        .env_remove("NO_COLOR")
        .env_remove("COLUMNS")
        .env("TERM", "xterm-256color")
        .stdin(Stdio::null())
        .output()
        .expect("script runs");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let terminal = String::from_utf8(output.stdout).unwrap();
    // Coloured: the run's header bold, the tool call yellow, thinking and gutters dim.
    assert!(
        terminal.contains("\u{1b}[1mrun pty\u{1b}[0m"),
        "{terminal:?}"
    );
    assert!(
        terminal.contains("\u{1b}[33m● Agent\u{1b}[0m"),
        "{terminal:?}"
    );
    assert!(terminal.contains("\u{1b}[2m│ \u{1b}[0m"), "{terminal:?}");
    let shown = visible(&terminal);
    for line in shown.lines() {
        assert!(
            unicode_width(line) <= 64,
            "wider than the terminal: {line:?} ({} columns)",
            unicode_width(line)
        );
    }
    let piped = axt_in(scratch.path(), &["show", "pty.jsonl", "--width", "64"]);
    assert_eq!(shown, String::from_utf8(piped.stdout).unwrap());
    // The same in a pipe without --width: no colour, 100 columns.
    let piped = axt_in(scratch.path(), &["show", "pty.jsonl"]);
    let piped = String::from_utf8(piped.stdout).unwrap();
    assert!(!piped.contains('\u{1b}'));
    assert!(piped.lines().any(|l| l.chars().count() > 64));
}

/// Columns a line takes on a terminal: every character here is one column wide but `…`,
/// `●`, `│`, `▸`, `◂`, `✗`, `↳` and `─`, which are one too (they are not East Asian wide).
fn unicode_width(line: &str) -> usize {
    line.chars().count()
}
