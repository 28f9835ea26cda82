//! A forest's roots without its trees, for a batch in which no file invokes another run.
//!
//! [`forest`](super::forest) reads every file whole to follow the links between runs; a
//! caller that only wants the roots (an exporter of one document per root, which then reads
//! each root again, on a core of its own) pays that read on one thread, before any work is
//! shared. When no file can hold a `step.call_workflow.started` event there is no link to
//! follow: every file is a root, and their order needs only each file's first event.
//!
//! [`may_invoke_runs`] tells, reading a file line by line without decoding most lines,
//! whether it may invoke a run: conservatively, so a line it cannot rule out counts as one
//! (the caller then asks [`forest`](super::forest)). [`unlinked_roots`] orders the roots as
//! the forest would. Neither builds a tree nor reports a problem: the forest's readers do.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use memchr::memmem;
use serde::Deserialize;

use super::{FirstEvent, dir_of, first_run};
use crate::model::MAX_LINE_BYTES;

/// Whether the run file at `path` may hold a `step.call_workflow.started` event (a link
/// [`forest`](super::forest) follows): `false` only when no line can be one. A line that
/// spells neither `call_workflow` nor `child_run_id`, nor any `\u` escape (the only way a
/// JSON string spells those letters otherwise), is no such event; a line that does is
/// parsed for its `type` and `child_run_id` alone. A line that does not parse, one longer
/// than a transcript line may be, and a file that cannot be read all count as links.
pub fn may_invoke_runs(path: &Path) -> bool {
    let Ok(file) = File::open(path) else {
        return true;
    };
    let mut reader = BufReader::with_capacity(256 << 10, file);
    let needles = [
        memmem::Finder::new("call_workflow"),
        memmem::Finder::new("child_run_id"),
        memmem::Finder::new("\\u"),
    ];
    let mut line = Vec::new();
    loop {
        line.clear();
        // At most one byte past the longest line, so that a file of one endless line does
        // not fill memory.
        let limit = MAX_LINE_BYTES as u64 + 2;
        match (&mut reader).take(limit).read_until(b'\n', &mut line) {
            Ok(0) => return false,
            Ok(read) if read as u64 == limit => return true,
            Ok(_) => {}
            Err(_) => return true,
        }
        if needles.iter().any(|needle| needle.find(&line).is_some()) && may_link(&line) {
            return true;
        }
    }
}

/// The fields of a line that make it a link.
#[derive(Deserialize)]
struct LinkFields<'a> {
    #[serde(rename = "type", borrow, default)]
    event_type: Option<Cow<'a, str>>,
    #[serde(default)]
    child_run_id: Option<serde::de::IgnoredAny>,
}

/// Whether `line` may be a `step.call_workflow.started` event: any line that does not
/// parse, or one with a `child_run_id` or a `call_workflow` type. (A JSON array parses as
/// these fields in order; it is no event either way.)
fn may_link(line: &[u8]) -> bool {
    match serde_json::from_slice::<LinkFields<'_>>(line) {
        Ok(fields) => {
            fields.child_run_id.is_some()
                || fields
                    .event_type
                    .is_some_and(|kind| kind.contains("call_workflow"))
        }
        Err(_) => true,
    }
}

/// The files [`forest`](super::forest) puts at the top when none of `files` invokes a run
/// (see [`may_invoke_runs`]), in its order: duplicates once; first the files whose run
/// names no parent, or a parent none of the files in its directory holds, then the others
/// (orphans: their parent does not invoke them), each group in the order given.
pub fn unlinked_roots(files: &[PathBuf]) -> Vec<PathBuf> {
    let mut seen = HashSet::new();
    let files: Vec<&PathBuf> = files.iter().filter(|f| seen.insert(*f)).collect();
    let firsts: Vec<Option<FirstEvent>> = files.iter().map(|file| first_run(file)).collect();
    let held: HashSet<(&Path, &str)> = firsts
        .iter()
        .flatten()
        .map(|first| (dir_of(&first.file), first.run_id.as_str()))
        .collect();
    let is_root = |first: &Option<FirstEvent>| {
        first.as_ref().is_none_or(|first| {
            first
                .parent_run_id
                .as_deref()
                .is_none_or(|parent| !held.contains(&(dir_of(&first.file), parent)))
        })
    };
    let (mut roots, mut orphans) = (Vec::new(), Vec::new());
    for (file, first) in files.into_iter().zip(&firsts) {
        if is_root(first) {
            roots.push(file.clone());
        } else {
            orphans.push(file.clone());
        }
    }
    roots.append(&mut orphans);
    roots
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{EventType, ExchangeEvent, Payload, StepKind, StepPayload, encode_event};
    use crate::read::tree::forest;

    /// Writes `<dir>/<name>`: a `run.started` of `run_id` (naming `parent`), then `extra`.
    fn run_file(
        dir: &Path,
        name: &str,
        run_id: &str,
        parent: Option<&str>,
        extra: &str,
    ) -> PathBuf {
        let payload = Payload::Step(StepPayload::new("w", StepKind::Workflow));
        let mut event = ExchangeEvent::new(run_id, EventType::RunStarted, "", payload);
        event.seq = 1;
        event.parent_run_id = parent.map(str::to_owned);
        let mut bytes = Vec::new();
        encode_event(&event, &mut bytes).unwrap();
        bytes.push(b'\n');
        bytes.extend_from_slice(extra.as_bytes());
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("axt-unlinked-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Without links, the roots are the forest's, in its order: parentless runs and runs
    /// whose parent is elsewhere first, orphans after, an empty file a root, duplicates once.
    #[test]
    fn unlinked_roots_are_the_forest_s_roots_in_its_order() {
        let dir = temp_dir("order");
        let orphan = run_file(&dir, "b.jsonl", "b", Some("a"), "");
        let escaped = "{\"seq\":2,\"note\":\"\\u001b[0m call_workflow\"}\n";
        let parent = run_file(&dir, "a.jsonl", "a", None, escaped);
        let elsewhere = run_file(&dir, "c.jsonl", "c", Some("not-here"), "");
        let empty = dir.join("empty.jsonl");
        std::fs::write(&empty, "").unwrap();
        let files = [
            orphan.clone(),
            parent.clone(),
            elsewhere.clone(),
            empty.clone(),
            parent.clone(),
        ];
        assert!(files.iter().all(|file| !may_invoke_runs(file)));
        let expected = [parent, elsewhere, empty, orphan];
        assert_eq!(unlinked_roots(&files), expected);
        let forest_roots: Vec<PathBuf> = forest(&files)
            .roots
            .into_iter()
            .map(|run| run.file)
            .collect();
        assert_eq!(forest_roots, expected);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A link is found however it is spelled, and a line that cannot be ruled out counts.
    #[test]
    fn a_file_that_may_invoke_a_run_is_never_missed() {
        let nested = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/read/transcript/ok/nested");
        assert!(may_invoke_runs(&nested.join("nest-root.jsonl")));
        assert!(!may_invoke_runs(&nested.join("nest-grandchild.jsonl")));
        let dir = temp_dir("spelled");
        for (name, line) in [
            (
                "escaped-type",
                r#"{"type":"step.call\u005fworkflow.started"}"#,
            ),
            ("escaped-key", r#"{"type":"x","c\u0068ild_run_id":"k"}"#),
            ("not-json", r#"{"type": \u"#),
        ] {
            let file = run_file(
                &dir,
                &format!("{name}.jsonl"),
                name,
                None,
                &format!("{line}\n"),
            );
            assert!(may_invoke_runs(&file), "{name}");
        }
        assert!(may_invoke_runs(&dir.join("missing.jsonl")), "unreadable");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
