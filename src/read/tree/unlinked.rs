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
//! (the caller then asks [`forest`](super::forest)); [`unlinked_roots`](super::unlinked_roots)
//! orders the roots as the forest would. It builds no tree and reports no problem: the
//! forest's readers do.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use memchr::memmem;
use serde::Deserialize;

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

#[cfg(test)]
mod tests {
    use super::*;

    /// A link is found however it is spelled, and a line that cannot be ruled out counts.
    #[test]
    fn a_file_that_may_invoke_a_run_is_never_missed() {
        let nested = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/read/transcript/ok/nested");
        assert!(may_invoke_runs(&nested.join("nest-root.jsonl")));
        assert!(!may_invoke_runs(&nested.join("nest-grandchild.jsonl")));
        let dir = std::env::temp_dir().join(format!("axt-unlinked-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let first = "{\"seq\":1,\"type\":\"run.started\"}\n";
        for (name, line, links) in [
            (
                "escaped-type",
                r#"{"type":"step.call\u005fworkflow.started"}"#,
                true,
            ),
            (
                "escaped-key",
                r#"{"type":"x","c\u0068ild_run_id":"k"}"#,
                true,
            ),
            ("not-json", r#"{"type": \u"#, true),
            (
                "content",
                r#"{"type":"message.user","text":"\u001b call_workflow"}"#,
                false,
            ),
        ] {
            let file = dir.join(format!("{name}.jsonl"));
            std::fs::write(&file, format!("{first}{line}\n")).unwrap();
            assert_eq!(may_invoke_runs(&file), links, "{name}");
        }
        assert!(may_invoke_runs(&dir.join("missing.jsonl")), "unreadable");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
