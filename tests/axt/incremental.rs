//! Importing again: `axt import` reads only what is new or changed, appends what a session
//! grew to its runs (the lines already there untouched), leaves unchanged runs alone, ends
//! with exactly what a first import of the source as it is now writes, and refuses a run
//! file made otherwise.

use std::path::Path;

use crate::cli::{axt, text};
use crate::support::TempDir;

/// The run files of `dir`, by name, with their bytes.
pub(crate) fn runs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut runs: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    runs.sort();
    runs
}

fn import(source: &Path, out: &Path) -> (Option<i32>, String) {
    let output = axt(
        &[
            "import",
            "claude-code",
            source.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        b"",
    );
    let stderr = text(&output.stderr)
        .replace(out.to_str().unwrap(), "OUT")
        .replace(source.to_str().unwrap(), "SRC");
    (output.status.code(), stderr)
}

/// Two more entries at the end of a Claude Code session log: a prompt and its answer.
pub(crate) fn grow_claude_session(path: &Path, n: usize) {
    use serde_json::{Value, json};
    let text = std::fs::read_to_string(path).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    let session = last["sessionId"].clone();
    let mut parent = last["uuid"].clone();
    let mut lines = String::new();
    for i in 0..n {
        let user = format!("00000000-0000-5000-8000-{:012}", 2 * i);
        let answer = format!("00000000-0000-5000-8000-{:012}", 2 * i + 1);
        let entries = [
            json!({"parentUuid": parent, "isSidechain": false, "userType": "external",
                "cwd": "/home/dev/shop", "sessionId": session, "version": "2.1.90",
                "type": "user", "message": {"role": "user", "content": format!("and then {i}")},
                "uuid": user, "timestamp": format!("2026-07-01T10:00:{:02}.000Z", 2 * i)}),
            json!({"parentUuid": user, "isSidechain": false, "userType": "external",
                "cwd": "/home/dev/shop", "sessionId": session, "version": "2.1.90",
                "type": "assistant", "message": {"id": format!("msg_grown{i}"), "type": "message",
                    "role": "assistant", "model": "claude-sonnet-4-6",
                    "content": [{"type": "text", "text": format!("done {i}")}],
                    "stop_reason": "end_turn", "stop_sequence": null,
                    "usage": {"input_tokens": 3, "output_tokens": 2}},
                "uuid": answer, "timestamp": format!("2026-07-01T10:00:{:02}.000Z", 2 * i + 1)}),
        ];
        for entry in entries {
            lines.push_str(&entry.to_string());
            lines.push('\n');
        }
        parent = json!(answer);
    }
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    std::io::Write::write_all(&mut file, lines.as_bytes()).unwrap();
}

#[test]
fn importing_again_appends_what_a_session_grew_and_leaves_the_rest_alone() {
    let source = TempDir::new("incremental-source");
    let log = source
        .path()
        .join("0fa211ad-76d7-58aa-b45c-1f5d009c6a67.jsonl");
    let corpus = Path::new("corpus/import/claude-code/ok/nested-subagents");
    std::fs::copy(
        crate::support::root()
            .join(corpus)
            .join(log.file_name().unwrap()),
        &log,
    )
    .unwrap();
    let agents = crate::support::root()
        .join(corpus)
        .join("0fa211ad-76d7-58aa-b45c-1f5d009c6a67");
    for file in crate::support::walk(&agents) {
        let to = source
            .path()
            .join(file.strip_prefix(agents.parent().unwrap()).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&file, to).unwrap();
    }
    let out = TempDir::new("incremental-out");
    let (code, stderr) = import(source.path(), out.path());
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        stderr,
        "axt: 1 session, 4 runs, 45 events written to OUT; 0 failed, 0 entry errors\n"
    );
    let first = runs(out.path());
    let mtimes: Vec<_> = first
        .iter()
        .map(|(name, _)| {
            std::fs::metadata(out.path().join(name))
                .unwrap()
                .modified()
                .unwrap()
        })
        .collect();

    // Unchanged: nothing read again, nothing written, not even a file's time.
    let (code, stderr) = import(source.path(), out.path());
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        stderr,
        "axt: 1 session (0 new, 0 grown, 1 unchanged), 0 runs, 0 events written to OUT; 0 failed, 0 entry errors\n"
    );
    assert_eq!(runs(out.path()), first);
    for ((name, _), mtime) in first.iter().zip(&mtimes) {
        let now = std::fs::metadata(out.path().join(name))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(&now, mtime, "{name} untouched");
    }

    // Touched, not changed: its content hash says so; still nothing written.
    let again = std::fs::read(&log).unwrap();
    std::fs::write(&log, &again).unwrap();
    let (_, stderr) = import(source.path(), out.path());
    assert!(stderr.contains("1 unchanged"), "{stderr}");
    assert_eq!(runs(out.path()), first);

    // Grown: the root run keeps its lines up to its closing events, and gets the new ones
    // after them; the sub-agents' runs are unchanged. The result is what a first import of
    // the grown session writes.
    grow_claude_session(&log, 2);
    let (code, stderr) = import(source.path(), out.path());
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        stderr,
        "axt: 1 session (0 new, 1 grown, 0 unchanged), 4 runs, 6 events written to OUT; 0 failed, 0 entry errors\n"
    );
    let grown = runs(out.path());
    let root = "0fa211ad-76d7-58aa-b45c-1f5d009c6a67.jsonl";
    for ((name, before), (_, after)) in first.iter().zip(&grown) {
        if name == root {
            let kept: Vec<&[u8]> = before.split_inclusive(|b| *b == b'\n').collect();
            let kept = kept[..kept.len() - 2].concat();
            assert!(after.starts_with(&kept), "the lines before the end stay");
            assert_eq!(
                after.split(|b| *b == b'\n').count(),
                before.split(|b| *b == b'\n').count() + 4
            );
        } else {
            assert_eq!(before, after, "{name} untouched");
        }
    }
    let fresh = TempDir::new("incremental-fresh");
    let (code, _) = import(source.path(), fresh.path());
    assert_eq!(code, Some(0));
    assert_eq!(
        runs(fresh.path()),
        grown,
        "the same bytes as a first import"
    );
    let check = axt(&["check", out.path().join(root).to_str().unwrap()], b"");
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stdout));
}

#[test]
fn a_run_file_made_otherwise_is_refused_not_rewritten() {
    let source = TempDir::new("foreign-source");
    let log = source
        .path()
        .join("e22e5c41-c3e4-5fdb-b282-ffd95f7df16e.jsonl");
    std::fs::copy(
        crate::support::root().join("corpus/import/claude-code/ok/rewind-and-hook-fork.jsonl"),
        &log,
    )
    .unwrap();
    let out = TempDir::new("foreign-out");
    // `axt normalize` of the same log names its run after the session too.
    let normalized = axt(
        &[
            "normalize",
            "--provider",
            "claude",
            "--clock",
            "fixed:2026-01-01T00:00:00Z",
            "--out",
            out.path().to_str().unwrap(),
            log.to_str().unwrap(),
        ],
        b"",
    );
    // A session log has no terminal record: normalize writes the run and exits 1.
    assert_eq!(
        normalized.status.code(),
        Some(1),
        "{}",
        text(&normalized.stderr)
    );
    let before = runs(out.path());
    assert_eq!(before.len(), 1);
    let (code, stderr) = import(source.path(), out.path());
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("run e22e5c41-c3e4-5fdb-b282-ffd95f7df16e already exists; pass --replace"),
        "{stderr}"
    );
    assert_eq!(runs(out.path()), before, "the other transcript untouched");
}
