//! OpenCode's store beyond its corpus: the database imported again and again while a real
//! SQLite writer (Python's `sqlite3`, WAL mode, as OpenCode 1.2+ writes it) appends to the
//! session, and a session the database holds never read twice from the JSON files OpenCode
//! migrated it from.

use std::path::Path;
use std::process::{Command, Stdio};

use axt::import::Store;

use crate::cli::text;
use crate::incremental::runs;
use crate::support::{TempDir, root};

fn corpus(fixture: &str) -> std::path::PathBuf {
    root().join("corpus/import/opencode/ok").join(fixture)
}

fn import(store: &Path, out: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_axt"))
        .args(["import", "opencode"])
        .arg(store)
        .arg("--out")
        .arg(out)
        .output()
        .expect("axt runs")
}

/// The writer: turns the database to WAL mode, then, holding it open (so the log is not
/// checkpointed away), appends a prompt and a reply to the root session in one transaction
/// every 40 ms, 25 times; prints `wal` once the log holds a transaction, `done` at the end.
const WRITER: &str = r#"
import json, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode = WAL")
db.execute("PRAGMA wal_autocheckpoint = 0")
session = "ses_4f0a1b2c3d4eroot"
t = 1767262000000
for n in range(25):
    db.execute("BEGIN IMMEDIATE")
    user, reply = f"msg_zz{n:04d}a", f"msg_zz{n:04d}b"
    db.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", (user, session, t + n, t + n,
        json.dumps({"role": "user", "time": {"created": t + n}})))
    db.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", (f"prt_zz{n:04d}a", user, session,
        t + n, t + n, json.dumps({"type": "text", "text": f"step {n}?"})))
    db.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", (reply, session, t + n, t + n,
        json.dumps({"role": "assistant", "time": {"created": t + n, "completed": t + n},
                    "modelID": "claude-sonnet-4-5", "providerID": "anthropic", "finish": "stop"})))
    db.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", (f"prt_zz{n:04d}b", reply, session,
        t + n, t + n, json.dumps({"type": "text", "text": f"step {n} done"})))
    db.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", (f"prt_zz{n:04d}c", reply, session,
        t + n, t + n, json.dumps({"type": "step-finish", "reason": "stop", "cost": 0.0001,
            "tokens": {"input": 10, "output": 2, "reasoning": 0, "cache": {"read": 0, "write": 0}}})))
    db.execute("UPDATE session SET time_updated = ? WHERE id = ?", (t + n, session))
    db.execute("COMMIT")
    if n == 0:
        print("wal", flush=True)
    time.sleep(0.04)
print("done", flush=True)
sys.stdin.read()
db.close()
"#;

/// An OpenCode store (`scratch/opencode`) whose `opencode.db` a Python `sqlite3` writer,
/// `script`, holds open (stdin and stdout piped); `None` (the test SKIPPED, said on stderr)
/// without python3.
#[allow(clippy::print_stderr)]
fn store_with_writer(
    scratch: &TempDir,
    script: &str,
    test: &str,
) -> Option<(std::path::PathBuf, std::process::Child)> {
    let store = scratch.path().join("opencode");
    std::fs::create_dir_all(&store).unwrap();
    let db = store.join("opencode.db");
    std::fs::copy(
        corpus("db-task-subagent-resumed-1.18.34").join("opencode.db"),
        &db,
    )
    .unwrap();
    let spawned = Command::new("python3")
        .args(["-c", script])
        .arg(&db)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn();
    let Ok(writer) = spawned else {
        eprintln!("SKIPPED {test}: no python3");
        return None;
    };
    Some((store, writer))
}

#[test]
fn opencode_database_imported_while_a_wal_writer_appends_is_never_torn() {
    let scratch = TempDir::new("opencode-wal");
    let Some((store, mut writer)) = store_with_writer(
        &scratch,
        WRITER,
        "opencode_database_imported_while_a_wal_writer_appends",
    ) else {
        return;
    };
    let stdout = writer.stdout.take().unwrap();
    let (said, heard) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)) {
            let _ = said.send(line.unwrap());
        }
    });
    let wait = std::time::Duration::from_secs(30);
    assert_eq!(heard.recv_timeout(wait).unwrap(), "wal");
    let out = scratch.path().join("out");
    // Imports while the writer writes: each one whole, what the database held at its read.
    let mut turns = Vec::new();
    let mut done = false;
    while !done {
        done = heard.try_recv().is_ok_and(|line| line == "done");
        let output = import(&store, &out);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{stderr}");
        assert!(!stderr.contains("error["), "{stderr}");
        let (_, root) = runs(&out)
            .into_iter()
            .find(|(name, _)| name == "ses_4f0a1b2c3d4eroot.jsonl")
            .unwrap();
        let root = text(&root);
        // A prompt and its reply are one transaction: an import sees both or neither.
        let prompts = (0..25)
            .filter(|n| root.contains(&format!("step {n}?")))
            .count();
        let replies = (0..25)
            .filter(|n| root.contains(&format!("step {n} done")))
            .count();
        assert_eq!(prompts, replies, "a torn turn:\n{root}");
        turns.push(prompts);
        assert!(turns.len() < 2000, "the writer never finished");
    }
    // The writer still holds the database open, its last transactions in the log.
    assert!(store.join("opencode.db-wal").exists());
    assert_eq!(turns.last(), Some(&25), "{turns:?}");
    assert!(
        turns.iter().any(|&n| 0 < n && n < 25),
        "no import ran while the writer wrote: {turns:?}"
    );
    assert!(turns.windows(2).all(|w| w[0] <= w[1]), "{turns:?}");
    let once = scratch.path().join("once");
    let output = import(&store, &once);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(runs(&out), runs(&once));
    drop(writer.stdin.take());
    writer.wait().unwrap();
}

#[test]
fn a_session_the_database_holds_is_not_read_again_from_its_migrated_files() {
    let scratch = TempDir::new("opencode-migrated");
    let store = scratch.path().join("opencode");
    std::fs::create_dir_all(&store).unwrap();
    std::fs::copy(
        corpus("db-task-subagent-resumed-1.18.34").join("opencode.db"),
        store.join("opencode.db"),
    )
    .unwrap();
    // The JSON files OpenCode 1.2 leaves after migrating them: the same sessions' ids.
    crate::discovery::copy_tree(
        &corpus("storage-shell-call-task-subagent-1.1").join("storage"),
        &store.join("storage"),
    );
    let sessions = store.join("storage/session/4b0ea68d7af9a6031a7ffda7ad66e0cb83315750");
    for (from, to) in [
        ("ses_2e8f9a0b1c2droot", "ses_4f0a1b2c3d4eroot"),
        ("ses_3a9b0c1d2e3fchild", "ses_7c1d2e3f4a5bchild"),
    ] {
        std::fs::rename(
            sessions.join(format!("{from}.json")),
            sessions.join(format!("{to}.json")),
        )
        .unwrap();
    }
    let found = Store::OpenCode.discover(&store).unwrap();
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].row.as_deref(), Some("ses_4f0a1b2c3d4eroot"));
    assert_eq!(
        found[0].files.main.as_deref(),
        Some(&*store.join("opencode.db"))
    );
    // Without the database, the files are read (the renamed child no longer names its
    // parent: two trees).
    std::fs::remove_file(store.join("opencode.db")).unwrap();
    let found = Store::OpenCode.discover(&store).unwrap();
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found.iter().all(|found| found.row.is_none()));
}

/// Adds `turns` prompts and replies to the root session of the database at `db`, so that
/// reading it takes a worker longer than reading a small one.
fn grow(db: &Path, turns: u32) {
    let mut connection = rusqlite::Connection::open(db).unwrap();
    let transaction = connection.transaction().unwrap();
    let session = "ses_4f0a1b2c3d4eroot";
    let t = 1_767_262_000_000_i64;
    for n in 0..turns {
        let (user, reply) = (format!("msg_zz{n:05}a"), format!("msg_zz{n:05}b"));
        let at = t + i64::from(n);
        transaction
            .execute(
                "INSERT INTO message VALUES (?1, ?2, ?3, ?3, ?4)",
                rusqlite::params![
                    user,
                    session,
                    at,
                    format!(r#"{{"role":"user","time":{{"created":{at}}}}}"#)
                ],
            )
            .unwrap();
        transaction
            .execute(
                "INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                rusqlite::params![
                    format!("prt_zz{n:05}a"),
                    user,
                    session,
                    at,
                    format!(r#"{{"type":"text","text":"step {n}?"}}"#)
                ],
            )
            .unwrap();
        transaction
            .execute(
                "INSERT INTO message VALUES (?1, ?2, ?3, ?3, ?4)",
                rusqlite::params![reply, session, at, format!(
                    r#"{{"role":"assistant","time":{{"created":{at},"completed":{at}}},"modelID":"claude-sonnet-4-5","providerID":"anthropic","finish":"stop"}}"#
                )],
            )
            .unwrap();
        transaction
            .execute(
                "INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                rusqlite::params![
                    format!("prt_zz{n:05}b"),
                    reply,
                    session,
                    at,
                    format!(r#"{{"type":"text","text":"step {n} done"}}"#)
                ],
            )
            .unwrap();
    }
    transaction.commit().unwrap();
}

/// Two release channels' databases hold the same sessions (OpenCode 1.2's `opencode.db`
/// and `opencode-beta.db`, one migrated from the other): their runs share ids. Imported on
/// two workers, the first database's session (the larger, read for longer) used to be
/// overtaken by the second's, which wrote the shared runs first, and was then written over
/// them: the files were not one worker's. Now the second waits for the first's claim on
/// those run ids: whatever the workers, the runs are written in the sessions' order.
#[test]
fn two_databases_sharing_session_ids_import_on_two_workers_as_on_one() {
    let scratch = TempDir::new("opencode-shared-ids");
    let store = scratch.path().join("opencode");
    std::fs::create_dir_all(&store).unwrap();
    // Sorted, `opencode-beta.db` is read first.
    let first = store.join("opencode-beta.db");
    std::fs::copy(
        corpus("db-task-subagent-resumed-1.18.34").join("opencode.db"),
        &first,
    )
    .unwrap();
    grow(&first, 3000);
    std::fs::copy(
        corpus("db-reply-still-streaming-1.18.34").join("opencode.db"),
        store.join("opencode.db"),
    )
    .unwrap();
    let import = |jobs: &str| {
        let out = scratch.path().join(format!("jobs-{jobs}"));
        let output = Command::new(env!("CARGO_BIN_EXE_axt"))
            .args(["import", "opencode"])
            .arg(&store)
            .arg("--out")
            .arg(&out)
            .args(["--jobs", jobs])
            .output()
            .expect("axt runs");
        let stderr = text(&output.stderr).replace(out.to_str().unwrap(), "OUT");
        (output.status.code(), stderr, runs(&out))
    };
    let one = import("1");
    assert_eq!(one.0, Some(0), "{}", one.1);
    // Both sessions imported, the second over the first's runs.
    assert!(
        one.1
            .starts_with("axt: 2 sessions (1 new, 1 grown, 0 unchanged), 4 runs,"),
        "{}",
        one.1
    );
    let names: Vec<&str> = one.2.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        [
            "ses_4f0a1b2c3d4eroot.agent-ses_7c1d2e3f4a5bchild.jsonl",
            "ses_4f0a1b2c3d4eroot.jsonl"
        ]
    );
    assert!(!text(&one.2[1].1).contains("step 0 done"));
    let two = import("2");
    assert_eq!(two.0, one.0, "{}", two.1);
    assert_eq!(two.1, one.1);
    assert!(two.2 == one.2, "the runs differ from one worker's");
}

/// Steps a writer holding the database open, one line of stdin each: `spill` begins a
/// transaction and writes more than its cache holds (SQLite writes the pages to the log
/// before they are committed), `commit` commits it; each prints `ok` when done.
const STEPPED_WRITER: &str = r#"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode = WAL")
db.execute("PRAGMA wal_autocheckpoint = 0")
db.execute("PRAGMA cache_size = 2")
db.execute("UPDATE session SET time_updated = time_updated")
print("ok", flush=True)
for line in sys.stdin:
    if line.strip() == "spill":
        db.execute("BEGIN IMMEDIATE")
        for n in range(200):
            db.execute("INSERT INTO part VALUES (?, ?, ?, 0, 0, ?)", (f"prt_spill{n:04d}",
                "msg_none", "ses_none", "x" * 4000))
    elif line.strip() == "commit":
        db.execute("COMMIT")
    print("ok", flush=True)
"#;

/// A writer writes a transaction to the log before it publishes it to readers: the log's
/// size and time count it while a read does not see it yet (a stamp taken then, and a read
/// just after, would leave that transaction out of every import after it: 24 of 25 turns).
/// A session's stamps hold what the log has published: the same while the transaction is
/// only written, another once it is committed.
#[test]
fn a_transaction_in_the_log_but_not_yet_published_leaves_the_published_stamp_as_it_was() {
    use std::io::{BufRead, Write};
    let scratch = TempDir::new("opencode-published");
    let Some((store, mut writer)) = store_with_writer(
        &scratch,
        STEPPED_WRITER,
        "a_transaction_in_the_log_but_not_yet_published",
    ) else {
        return;
    };
    let mut input = writer.stdin.take().unwrap();
    let mut output = std::io::BufReader::new(writer.stdout.take().unwrap());
    let mut step = |what: &str| {
        if !what.is_empty() {
            writeln!(input, "{what}").unwrap();
        }
        let mut line = String::new();
        output.read_line(&mut line).unwrap();
        assert_eq!(line, "ok\n", "{what}");
    };
    step("");
    let found = Store::OpenCode.discover(&store).unwrap();
    assert_eq!(found.len(), 1, "{found:#?}");
    let published = |stamps: &[axt::import::state::Stamp]| {
        let published: Vec<&str> = stamps
            .iter()
            .filter_map(|s| s.published.as_deref())
            .collect();
        assert_eq!(published.len(), 1, "{stamps:#?}");
        assert!(!published[0].starts_with("unknown"), "{stamps:#?}");
        published[0].to_owned()
    };
    let wal_size = |stamps: &[axt::import::state::Stamp]| {
        stamps
            .iter()
            .find(|s| s.path.to_string_lossy().ends_with("-wal"))
            .unwrap()
            .size
    };
    let before = found[0].stamps();
    step("spill");
    let written = found[0].stamps();
    assert!(wal_size(&written) > wal_size(&before), "{written:#?}");
    assert_eq!(published(&written), published(&before));
    step("commit");
    let committed = found[0].stamps();
    assert_ne!(published(&committed), published(&before));
    drop(input);
    writer.wait().unwrap();
}
