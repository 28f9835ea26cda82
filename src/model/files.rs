//! The names of a run's files in its directory, so that what writes them and every reader
//! that walks a directory agree on which files are transcripts.
//!
//! | file | what it holds | who writes it |
//! |---|---|---|
//! | `<run-id>.jsonl` | the transcript | the recorder |
//! | `<run-id>.raw` | an agent's stdout, byte for byte (masked under `--redact`: see `record::RawMasker`) | a capture (`axt exec`) |
//! | `<run-id>.jsonl.torn-<offset>` | a final line torn by a crash, moved aside | the recorder, on reopen |
//!
//! The raw capture is named `.raw`, with no JSON extension, because it is whatever the agent
//! wrote: JSON Lines for most agents, an SSE stream for an OpenAI-compatible server, stray
//! text when an agent misbehaves. An extension a reader globs for (`*.jsonl`, `*.ndjson`)
//! would promise a format the file may not have, and `axt stats DIR` took it for a broken
//! transcript. Captures made before this name was chosen are `<run-id>.raw.jsonl`; a reader
//! walking a directory skips such a file when the transcript `<run-id>.jsonl` is beside it
//! ([`is_transcript`]), so a run whose own id ends in `.raw` is still read.
//!
//! This file names files; it opens none (beyond the one `stat` that tells an old raw capture
//! from a transcript).

use std::path::Path;

/// The extension of a transcript file.
pub const TRANSCRIPT_EXTENSION: &str = "jsonl";

/// The extension of an agent's raw output kept beside its transcript.
pub const RAW_EXTENSION: &str = "raw";

/// The suffix raw captures had before they were named `.raw`.
const LEGACY_RAW_SUFFIX: &str = ".raw.jsonl";

/// The transcript file of `run_id`: `<run-id>.jsonl`.
pub fn transcript_name(run_id: &str) -> String {
    format!("{run_id}.{TRANSCRIPT_EXTENSION}")
}

/// The raw capture of `run_id`'s agent output: `<run-id>.raw`.
pub fn raw_name(run_id: &str) -> String {
    format!("{run_id}.{RAW_EXTENSION}")
}

/// Whether a directory walk takes `path` for a transcript: a `*.jsonl` file that is not a
/// raw capture of the old name (`<run-id>.raw.jsonl` beside `<run-id>.jsonl`).
pub fn is_transcript(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|name| name.to_str()) else {
        // Not UTF-8: no name axt writes, but a transcript may have been renamed so.
        return path
            .extension()
            .is_some_and(|extension| extension == TRANSCRIPT_EXTENSION);
    };
    if !name.ends_with(".jsonl") {
        return false;
    }
    match name.strip_suffix(LEGACY_RAW_SUFFIX) {
        Some(run_id) if !run_id.is_empty() => {
            !path.with_file_name(transcript_name(run_id)).is_file()
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(transcript_name("r-1"), "r-1.jsonl");
        assert_eq!(raw_name("r-1"), "r-1.raw");
    }

    #[test]
    fn an_old_raw_capture_is_skipped_only_beside_its_transcript() {
        let dir = std::env::temp_dir().join(format!("axt-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in [
            "run.jsonl",
            "run.raw.jsonl",
            "lonely.raw.jsonl",
            "run.raw",
            "x.txt",
        ] {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        let taken: Vec<bool> = [
            "run.jsonl",
            "run.raw.jsonl",
            "lonely.raw.jsonl",
            "run.raw",
            "x.txt",
        ]
        .iter()
        .map(|name| is_transcript(&dir.join(name)))
        .collect();
        // `lonely.raw.jsonl` has no `lonely.jsonl`: it is the transcript of run `lonely.raw`.
        assert_eq!(taken, [true, false, true, false, false]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
