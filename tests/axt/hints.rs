//! What `axt normalize` tells a user whose input is not what it seems (issue 24): one
//! hint for pretty-printed JSON instead of a problem per line, a pointer to `axt import
//! claude-code` for a Claude Code session log, and exit 1 for an empty or cut-off output
//! under an explicit provider (auto-detection already refuses those with exit 2).

use crate::cli::{axt, text};
use crate::support::normalize_corpus;

/// The first `n` records of the Claude fixture, pretty-printed as `jq .` writes them.
fn pretty_claude(n: usize) -> Vec<u8> {
    let fixture = normalize_corpus("claude").join("ok/plain-session-thinking-text-bash.jsonl");
    let text = std::fs::read_to_string(fixture).unwrap();
    let mut out = String::new();
    for line in text.lines().take(n) {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        out += &serde_json::to_string_pretty(&value).unwrap();
        out.push('\n');
    }
    out.into_bytes()
}

#[test]
fn pretty_printed_json_gets_one_hint_not_a_problem_per_line() {
    let input = pretty_claude(2);
    let lines = input.iter().filter(|b| **b == b'\n').count();
    let output = axt(&["normalize", "-p", "claude"], &input);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        format!(
            "-:1: byte 0: invalid-json: the input is JSON written over many lines \
             (pretty-printed, as `jq .` writes it); axt reads one record per line: try \
             `jq -c . FILE | axt normalize` (the lines after this one are counted, not listed)\n\
             -:{lines}: byte {bytes}: missing-terminal: the stream ended without a result \
             record; the run is incomplete\n\
             -:1: byte 0: unrecognized-input: none of the input's {lines} records is claude \
             output; the input does not look like any provider's output axt reads\n\
             axt: -: {more} more lines of the pretty-printed JSON not listed (each is a \
             problem: no line is a record of its own)\n",
            // The end of the last line, before its newline.
            bytes = input.len() - 1,
            more = lines - 1,
        )
    );
    // Auto-detection says it too, in the error that refuses the input.
    let auto = axt(&["normalize"], &input);
    assert_eq!(auto.status.code(), Some(2));
    assert!(
        text(&auto.stderr).ends_with(
            "; it is JSON written over many lines (pretty-printed): axt reads one record per \
             line, try `jq -c . FILE | axt normalize`\n"
        ),
        "{}",
        text(&auto.stderr)
    );
    // Compacted, the same records are read without a problem about their lines.
    let compact: String = String::from_utf8(input)
        .unwrap()
        .split("\n}\n")
        .filter(|part| !part.trim().is_empty())
        .map(|part| {
            let value: serde_json::Value = serde_json::from_str(&format!("{part}\n}}")).unwrap();
            format!("{value}\n")
        })
        .collect();
    let compacted = axt(&["normalize", "-p", "claude"], compact.as_bytes());
    assert!(
        !text(&compacted.stderr).contains("invalid-json"),
        "{}",
        text(&compacted.stderr)
    );
}

#[test]
fn one_pretty_printed_document_is_read_as_it_is_without_a_hint() {
    // A saved API response body: one JSON document over many lines, which axt reads whole.
    let body = normalize_corpus("anthropic").join("ok/body-text-and-tool-use.json");
    assert!(std::fs::read_to_string(&body).unwrap().starts_with("{\n"));
    let output = axt(&["normalize", body.to_str().unwrap()], b"");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        !text(&output.stderr).contains("jq"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn a_claude_code_session_log_given_to_normalize_points_to_axt_import() {
    let log = "corpus/import/claude-code/ok/rewind-and-hook-fork.jsonl";
    for args in [
        &["normalize", "-p", "claude", log][..],
        &["normalize", log][..],
    ] {
        let output = axt(args, b"");
        let stderr = text(&output.stderr);
        assert_eq!(
            stderr.lines().last().unwrap(),
            format!(
                "axt: warning: {log} is a Claude Code session log (~/.claude/projects/...), \
                 not `claude -p` output: `axt import claude-code {log} --out DIR` reads it \
                 whole (sub-agents, compactions, rewinds) and knows the session is complete \
                 without a result record"
            ),
            "{args:?}"
        );
    }
    // `claude -p` output is no session log: no such hint.
    let stream = normalize_corpus("claude").join("ok/plain-session-thinking-text-bash.jsonl");
    let output = axt(
        &["normalize", "-p", "claude", stream.to_str().unwrap()],
        b"",
    );
    assert!(
        !text(&output.stderr).contains("session log"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn empty_or_cut_off_output_under_an_explicit_provider_exits_1() {
    let empty = axt(&["normalize", "-p", "claude"], b"");
    assert_eq!(empty.status.code(), Some(1));
    assert_eq!(
        text(&empty.stderr),
        "-:1: byte 0: missing-terminal: the input is empty: the agent wrote no output to transcribe\n"
    );
    // Cut at a line boundary: three whole records, no result.
    let fixture = normalize_corpus("claude").join("ok/plain-session-thinking-text-bash.jsonl");
    let text_in = std::fs::read_to_string(fixture).unwrap();
    let head: String = text_in.lines().take(3).map(|l| format!("{l}\n")).collect();
    let cut = axt(&["normalize", "-p", "claude"], head.as_bytes());
    assert_eq!(cut.status.code(), Some(1));
    assert_eq!(
        text(&cut.stderr),
        format!(
            "-:3: byte {}: missing-terminal: the stream ended without a result record; the run \
             is incomplete\n",
            head.len() - 1
        )
    );
    // The whole output is clean.
    let whole = axt(&["normalize", "-p", "claude"], text_in.as_bytes());
    assert_eq!(whole.status.code(), Some(0), "{}", text(&whole.stderr));
}
