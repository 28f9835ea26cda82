//! Every reading command takes a directory (issue 24): `tree`, `check` and `export` read
//! each run a directory holds as `stats` and `ls` do, and `normalize` each agent output in
//! one, to its own run. What they print for a directory is what they print for its files
//! one by one, so these tests compare the two.

use std::path::Path;

use serde_json::Value;

use crate::cli::{axt, text};
use crate::support::{TempDir, read_corpus};

/// A directory of runs: a root with a child and a grandchild (linked), and a plain run.
fn runs() -> TempDir {
    let dir = TempDir::new("dir-runs");
    let ok = read_corpus().join("ok");
    for name in ["nest-root", "nest-child", "nest-grandchild"] {
        let file = format!("{name}.jsonl");
        std::fs::copy(ok.join("nested").join(&file), dir.path().join(&file)).unwrap();
    }
    std::fs::copy(
        ok.join("plain-run.jsonl"),
        dir.path().join("plain-run.jsonl"),
    )
    .unwrap();
    dir
}

fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn tree_of_a_directory_is_the_tree_of_each_root_run() {
    let dir = runs();
    let whole = axt(&["tree", arg(dir.path())], b"");
    assert_eq!(whole.status.code(), Some(0), "{}", text(&whole.stderr));
    // The roots in file order; the child and grandchild only under their root.
    let root = axt(&["tree", arg(&dir.path().join("nest-root.jsonl"))], b"");
    let plain = axt(&["tree", arg(&dir.path().join("plain-run.jsonl"))], b"");
    assert_eq!(
        text(&whole.stdout),
        format!("{}\n{}", text(&root.stdout), text(&plain.stdout))
    );
    let json = axt(&["tree", "--json", arg(dir.path())], b"");
    let json: Value = serde_json::from_slice(&json.stdout).unwrap();
    let one: Value = serde_json::from_slice(
        &axt(
            &["tree", "--json", arg(&dir.path().join("nest-root.jsonl"))],
            b"",
        )
        .stdout,
    )
    .unwrap();
    assert_eq!(json["roots"].as_array().unwrap().len(), 2);
    assert_eq!(json["roots"][0], one["root"]);

    let empty = TempDir::new("dir-tree-empty");
    let none = axt(&["tree", arg(empty.path())], b"");
    assert_eq!(none.status.code(), Some(1));
    assert_eq!(
        text(&none.stderr),
        format!(
            "axt: {}: no run there (no *.jsonl file with an event)\n",
            empty.path().display()
        )
    );
}

#[test]
fn check_of_a_directory_checks_each_of_its_files() {
    let dir = runs();
    std::fs::write(dir.path().join("junk.jsonl"), b"not json\n").unwrap();
    std::fs::write(dir.path().join("notes.txt"), b"not a run, not read\n").unwrap();
    let whole = axt(&["check", arg(dir.path())], b"");
    let mut files: Vec<String> = [
        "junk",
        "nest-child",
        "nest-grandchild",
        "nest-root",
        "plain-run",
    ]
    .iter()
    .map(|name| format!("{}/{name}.jsonl", dir.path().display()))
    .collect();
    files.sort();
    let args: Vec<&str> = std::iter::once("check")
        .chain(files.iter().map(String::as_str))
        .collect();
    let listed = axt(&args, b"");
    assert_eq!(whole.status.code(), Some(1), "junk.jsonl has a problem");
    assert_eq!(whole.status.code(), listed.status.code());
    assert_eq!(text(&whole.stdout), text(&listed.stdout));
    assert_eq!(text(&whole.stderr), text(&listed.stderr));
    assert!(
        text(&whole.stdout).contains("junk.jsonl"),
        "{}",
        text(&whole.stdout)
    );
    assert!(!text(&whole.stdout).contains("notes.txt"));
}

#[test]
fn export_of_a_directory_or_several_files_is_an_array_of_each_root_runs_document() {
    let dir = runs();
    let whole = axt(&["export", arg(dir.path())], b"");
    assert_eq!(whole.status.code(), Some(0), "{}", text(&whole.stderr));
    let documents: Value = serde_json::from_slice(&whole.stdout).unwrap();
    let one = |name: &str| -> Value {
        let output = axt(&["export", arg(&dir.path().join(name))], b"");
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        serde_json::from_slice(&output.stdout).unwrap()
    };
    // The child runs are in their root's document, not documents of their own.
    assert_eq!(
        documents,
        Value::Array(vec![one("nest-root.jsonl"), one("plain-run.jsonl")])
    );
    let root = dir.path().join("nest-root.jsonl");
    let plain = dir.path().join("plain-run.jsonl");
    let files = axt(&["export", arg(&plain), arg(&root)], b"");
    let files: Value = serde_json::from_slice(&files.stdout).unwrap();
    assert_eq!(
        files,
        Value::Array(vec![one("plain-run.jsonl"), one("nest-root.jsonl")])
    );
    let stdin = axt(&["export", "-", arg(&root)], b"");
    assert_eq!(stdin.status.code(), Some(2));
    assert_eq!(text(&stdin.stderr), "axt: stdin is one run: give - alone\n");
}

#[test]
fn normalize_of_a_directory_writes_each_agent_output_to_its_own_run() {
    let inputs = TempDir::new("dir-normalize-in");
    let claude = crate::support::normalize_corpus("claude")
        .join("ok/plain-session-thinking-text-bash.jsonl");
    let codex =
        crate::support::normalize_corpus("codex").join("ok/shared-scenario-shell-command.jsonl");
    std::fs::create_dir(inputs.path().join("more")).unwrap();
    std::fs::copy(&claude, inputs.path().join("a.jsonl")).unwrap();
    std::fs::copy(&codex, inputs.path().join("more/b.jsonl")).unwrap();
    std::fs::write(
        inputs.path().join("notes.txt"),
        b"skipped by its extension\n",
    )
    .unwrap();
    let out = TempDir::new("dir-normalize-out");
    let clock = "fixed:2026-06-08T08:14:42Z";
    let output = axt(
        &[
            "normalize",
            "--clock",
            clock,
            "--out",
            arg(out.path()),
            arg(inputs.path()),
        ],
        b"",
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let written: Vec<&str> = text(&output.stderr)
        .lines()
        .filter(|l| l.starts_with("axt: wrote "))
        .map(|_| "wrote")
        .collect();
    assert_eq!(written.len(), 2, "{}", text(&output.stderr));
    // Each run is what normalizing its file alone makes, but for its run id.
    let mut runs: Vec<Value> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|entry| {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            serde_json::from_str(text.lines().last().unwrap()).unwrap()
        })
        .collect();
    runs.sort_by_key(|last| {
        last["payload"]["result"]["provider"]
            .as_str()
            .unwrap()
            .to_owned()
    });
    let providers: Vec<&str> = runs
        .iter()
        .map(|last| last["payload"]["result"]["provider"].as_str().unwrap())
        .collect();
    assert_eq!(providers, ["claude", "codex"]);

    // Without --out the runs would be mixed on stdout; --run-id names one run.
    let mixed = axt(&["normalize", arg(inputs.path())], b"");
    assert_eq!(mixed.status.code(), Some(2));
    assert_eq!(
        text(&mixed.stderr),
        "axt: a directory holds one run per file: give --out DIR for the transcripts \
         (stdout would mix the runs)\n"
    );
    let named = axt(
        &[
            "normalize",
            "--run-id",
            "r",
            "--out",
            arg(out.path()),
            arg(inputs.path()),
        ],
        b"",
    );
    assert_eq!(named.status.code(), Some(2));
    assert_eq!(
        text(&named.stderr),
        "axt: --run-id names one run: a directory's files each get their own\n"
    );
}
