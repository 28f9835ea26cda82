//! `axt show` and `axt ls` as a user calls them: finding the run asked for, the options
//! that change what is shown, and what each says about files that are not runs. (What they
//! print for the corpora is in `golden_show.rs`.)

use crate::cli::{axt, text};
use crate::golden_show::{axt_in, normalized_into, show_in};
use crate::support::TempDir;

/// A directory with two runs of different starts (Claude stamps nothing: the harness clock
/// dates both the same, so the Copilot session log, stamped later, is the newest).
fn two_runs() -> TempDir {
    let dir = TempDir::new("show-find");
    normalized_into(
        dir.path(),
        "claude",
        "ok/plain-session-thinking-text-bash.jsonl",
        "aaa-claude",
    );
    normalized_into(
        dir.path(),
        "copilot",
        "ok/session-log-events-jsonl-shutdown-model-metrics.jsonl",
        "bbb-copilot",
    );
    dir
}

#[test]
fn show_finds_a_file_a_directory_s_newest_run_or_a_run_id() {
    let dir = two_runs();
    let by_dir = show_in(dir.path(), &[".", "--width", "100"]);
    assert_eq!(by_dir.status.code(), Some(0));
    assert!(
        text(&by_dir.stdout).starts_with("run bbb-copilot · copilot"),
        "{}",
        text(&by_dir.stdout)
    );
    assert_eq!(
        text(&by_dir.stderr),
        "axt: showing the newest of 2 runs in . (axt ls . lists them)\n"
    );
    let by_id = show_in(dir.path(), &["aaa", "--width", "100"]);
    assert_eq!(by_id.status.code(), Some(0), "{}", text(&by_id.stderr));
    assert!(text(&by_id.stdout).starts_with("run aaa-claude · claude"));
    // DIR/ID looks the id up in DIR.
    let parent = dir.path().parent().unwrap();
    let name = dir.path().file_name().unwrap().to_str().unwrap();
    let nested = show_in(parent, &[&format!("{name}/bbb"), "--width", "100"]);
    assert!(
        text(&nested.stdout).starts_with("run bbb-copilot"),
        "{}",
        text(&nested.stderr)
    );
    let file = show_in(dir.path(), &["aaa-claude.jsonl"]);
    assert_eq!(file.stdout, by_id.stdout, "a file is its run");

    std::fs::copy(
        dir.path().join("aaa-claude.jsonl"),
        dir.path().join("aaa-second.jsonl"),
    )
    .unwrap();
    let ambiguous = show_in(dir.path(), &["aaa"]);
    assert_eq!(ambiguous.status.code(), Some(2));
    assert_eq!(
        text(&ambiguous.stderr),
        "axt: aaa: 2 runs start so: aaa-claude.jsonl, aaa-second.jsonl; give more of the id\n"
    );
    let missing = show_in(dir.path(), &["zzz"]);
    assert_eq!(missing.status.code(), Some(2));
    assert_eq!(
        text(&missing.stderr),
        "axt: zzz: no such file, directory or run (no zzz*.jsonl)\n"
    );
    let empty = TempDir::new("show-empty-dir");
    let none = show_in(empty.path(), &["."]);
    assert_eq!(none.status.code(), Some(2));
    assert_eq!(
        text(&none.stderr),
        "axt: .: no run in this directory (no *.jsonl file with an event)\n"
    );
}

#[test]
fn show_reads_stdin_and_says_when_there_is_no_run() {
    let run =
        std::fs::read(crate::support::root().join("corpus/read/transcript/ok/plain-run.jsonl"))
            .unwrap();
    let output = axt(&["show", "-", "--width", "100"], &run);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        text(&output.stdout).starts_with("run 550e8400-e29b-41d4-a716-446655440000 · completed\n")
    );
    let empty = axt(&["show", "-"], b"");
    assert_eq!(empty.status.code(), Some(1));
    assert_eq!(
        text(&empty.stderr),
        "-:1: byte 0: no-event: the file is empty: no event: there is no run to show\n"
    );
    let garbage = axt(&["show", "-"], b"not json\n");
    assert_eq!(garbage.status.code(), Some(1));
    assert_eq!(
        text(&garbage.stderr),
        "-:1: byte 0: invalid-json: expected ident at column 2\n"
    );
}

#[test]
fn thinking_can_be_left_out_or_collapsed_and_output_shown_whole() {
    let dir = TempDir::new("show-options");
    normalized_into(
        dir.path(),
        "claude",
        "ok/tool-errors-validation-and-exit-code.jsonl",
        "errors",
    );
    normalized_into(
        dir.path(),
        "codex",
        "ok/plain-session-reasoning-message-command.jsonl",
        "codex",
    );
    let thinking = |args: &[&str]| {
        let mut all = vec!["codex.jsonl", "--width", "100"];
        all.extend_from_slice(args);
        text(&show_in(dir.path(), &all).stdout)
    };
    assert!(thinking(&[]).contains("thinking\n  **Checking the project manifest**\n"));
    assert!(!thinking(&["--no-thinking"]).contains("thinking"));
    let shown = show_in(dir.path(), &["errors.jsonl", "--width", "100"]);
    let head = text(&shown.stdout);
    assert!(
        head.contains("  │ … 1 more line (--full shows it)\n"),
        "{head}"
    );
    let full = text(&show_in(dir.path(), &["errors.jsonl", "--width", "100", "--full"]).stdout);
    assert!(!full.contains("more line"), "{full}");
    assert!(full.contains("  │ error: could not compile"), "{full}");
    assert!(!head.contains("  │ error: could not compile"), "{head}");
    // --full shows a call's whole input too.
    assert!(
        full.contains("    \"file_path\": \"/home/dev/src/geo-index/src/tile.rs\","),
        "{full}"
    );
    let both = show_in(
        dir.path(),
        &["codex.jsonl", "--no-thinking", "--collapse-thinking"],
    );
    assert_eq!(both.status.code(), Some(2));
}

#[test]
fn thinking_collapses_to_its_first_line() {
    let dir = TempDir::new("show-collapse");
    normalized_into(
        dir.path(),
        "openai",
        "ok/responses-stream-reasoning-text-function-call.sse",
        "think",
    );
    let collapsed = text(&show_in(dir.path(), &["think.jsonl", "--collapse-thinking"]).stdout);
    assert!(
        collapsed.contains("thinking\n  **Plan**\n  … 2 more lines (--full shows them)\n"),
        "{collapsed}"
    );
}

#[test]
fn grep_shows_the_entries_that_match_and_their_steps() {
    let transcripts = crate::support::read_corpus().join("ok");
    let grep = show_in(
        &transcripts,
        &[
            "nested/nest-root.jsonl",
            "--grep",
            "unit tests",
            "--width",
            "100",
        ],
    );
    assert_eq!(grep.status.code(), Some(0));
    let shown = text(&grep.stdout);
    // The header, the steps that lead to the match, the match, and how each run ended.
    assert!(shown.contains("▸ call_workflow build\n"), "{shown}");
    assert!(
        shown.contains("    ▸ agent unit\n\n      user\n        Run the unit tests.\n"),
        "{shown}"
    );
    assert!(!shown.contains("Plan the release."), "{shown}");
    assert!(!shown.contains("▸ agent plan"), "{shown}");
    // Case-insensitive unless the pattern has a capital letter.
    let capital = show_in(
        &transcripts,
        &["nested/nest-root.jsonl", "--grep", "Unit Tests"],
    );
    assert!(!text(&capital.stdout).contains("Run the unit tests."));
    assert_eq!(
        text(&capital.stderr),
        "axt: no entry of run nest-root matches (of 14 entries)\n"
    );
    let coloured = show_in(
        &transcripts,
        &[
            "nested/nest-root.jsonl",
            "--grep",
            "unit",
            "--color",
            "always",
        ],
    );
    assert!(text(&coloured.stdout).contains("\u{1b}[1;7munit\u{1b}[0m"));
    let bad = show_in(&transcripts, &["nested/nest-root.jsonl", "--grep", "("]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).starts_with("axt: --grep: regex parse error"),
        "{}",
        text(&bad.stderr)
    );
}

#[test]
fn a_missing_child_run_and_bad_lines_are_problems() {
    let dir = TempDir::new("show-problems");
    let root = crate::support::read_corpus().join("err/links/links-root.jsonl");
    std::fs::copy(&root, dir.path().join("links-root.jsonl")).unwrap();
    let output = show_in(dir.path(), &["links-root.jsonl", "--width", "100"]);
    assert_eq!(output.status.code(), Some(1));
    let shown = text(&output.stdout);
    assert!(
        shown.contains("run links-missing not shown: no file of the directory holds it"),
        "{shown}"
    );
    assert_eq!(
        text(&output.stderr).lines().next().unwrap(),
        "axt: links-root.jsonl: child run links-missing not shown: no file of the directory holds it"
    );
    let torn = crate::support::read_corpus().join("err/torn-final-line.jsonl");
    let output = axt(&["show", torn.to_str().unwrap()], b"");
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains(": torn-final-line: "));
}

#[test]
fn text_from_the_input_cannot_drive_the_terminal() {
    let run = concat!(
        r#"{"seq":1,"run_id":"r","type":"run.started","path":"","iteration":0,"timestamp":"2026-06-08T08:14:42Z","payload":{"name":"w","kind":"workflow"}}"#,
        "\n",
        r#"{"seq":2,"run_id":"r","type":"message.assistant","path":"","iteration":0,"timestamp":"2026-06-08T08:14:42Z","payload":{"role":"assistant","blocks":[{"type":"text","fidelity":"agent_emitted","text":"a\u001b]0;pwned\u0007b \u009b31m c\u202eevil"}]}}"#,
        "\n",
        r#"{"seq":3,"run_id":"r","type":"tool.call","path":"","iteration":0,"timestamp":"2026-06-08T08:14:42Z","payload":{"name":"Bash\u001b[2J","call_id":"c","input":{"command":"echo \u001b[31m"},"output":null,"fidelity":"agent_emitted"}}"#,
        "\n",
        r#"{"seq":4,"run_id":"r","type":"tool.result","path":"","iteration":0,"timestamp":"2026-06-08T08:14:42Z","payload":{"name":"Bash","call_id":"c","input":null,"output":"\u001b[31mred\u001b[0m\tcol","fidelity":"agent_emitted"}}"#,
        "\n",
        r#"{"seq":5,"run_id":"r","type":"run.completed","path":"","iteration":0,"timestamp":"2026-06-08T08:14:43Z","payload":{"name":"w","kind":"workflow"}}"#,
        "\n",
    );
    let output = axt(
        &["show", "-", "--color", "always", "--width", "0"],
        run.as_bytes(),
    );
    let shown = text(&output.stdout);
    assert!(
        shown.contains("a\\u{1b}]0;pwned\\u{7}b \\u{9b}31m c\\u{202e}evil"),
        "{shown}"
    );
    assert!(shown.contains("Bash\\u{1b}[2J"), "{shown}");
    // The output's escape sequences escaped, its tab laid out as spaces.
    assert!(shown.contains("\\u{1b}[31mred\\u{1b}[0m    col"), "{shown}");
    assert!(!shown.contains("\u{1b}]"), "{shown}");
    assert!(!shown.contains("\u{1b}[2J"), "{shown}");
    assert!(!shown.contains('\u{9b}'), "{shown}");
}

#[test]
fn ls_lists_runs_newest_first_and_reports_what_is_not_a_run() {
    let dir = two_runs();
    std::fs::write(dir.path().join("empty.jsonl"), b"").unwrap();
    std::fs::write(dir.path().join("junk.jsonl"), b"not json\n").unwrap();
    let output = axt_in(dir.path(), &["ls"]);
    assert_eq!(output.status.code(), Some(1));
    let listing = text(&output.stdout);
    let ids: Vec<&str> = listing
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().nth(2).unwrap())
        .collect();
    assert_eq!(ids, ["bbb-copi", "aaa-clau"], "{listing}");
    assert_eq!(
        text(&output.stderr),
        concat!(
            "./empty.jsonl:1: byte 0: no-event: the file is empty: no event\n",
            "axt: ./junk.jsonl: no event, 1 problem (axt check ./junk.jsonl lists them)\n",
        )
    );
    let refused = axt(&["ls", "-"], b"");
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        text(&refused.stderr),
        "axt: axt ls lists files and directories, not stdin: give DIR\n"
    );
    let missing = axt(&["ls", "no/such/dir"], b"");
    assert_eq!(missing.status.code(), Some(2));
    assert_eq!(
        text(&missing.stderr),
        "axt: no/such/dir: no such file or directory\n"
    );
}
