//! What every corpus harness shares: where the corpus and golden trees are, the fixed clock,
//! the fixture walk, the outcome a fixture's directory names, the README coverage check,
//! the insta settings, deferred failures, and scratch directories.
//!
//! It owns no assertion about axt's output: each harness (`golden_*.rs`) says what its stage
//! must do. It must not call `insta::assert_snapshot!` either: insta writes the calling file
//! into each snapshot's `source:` line, which should name the harness, not this module.
//!
//! The trees are named by pipeline stage (`corpus/<stage>/...`, `golden/<stage>/...`):
//! * `normalize/<provider>/`: provider output, normalized (`golden_normalize.rs`);
//! * `import/claude-code/`: agent session logs, imported (`golden_import.rs`);
//! * `read/transcript/`: canonical transcripts, read back (`golden_read.rs`);
//! * `golden/export/agentlog/<corpus>/`: the other corpora, exported (`golden_export.rs`);
//! * `golden/show/<stage>/<corpus>/`, `golden/show/ls/`: runs of the other corpora as
//!   `axt show` and `axt ls` print them (`golden_show.rs`).

use std::fmt::Display;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use axt::Timestamp;
use axt::model::Usage;

pub(crate) mod adapter;

/// The checkout: every corpus, golden and script path starts here.
pub(crate) const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The stages the corpus is named by, in pipeline order: the only directories of `corpus/`.
pub(crate) const CORPUS_STAGES: [&str; 3] = ["normalize", "import", "read"];

/// The stages the golden tree is named by: the corpus's, the exporters', and what a person
/// reads (`show`: `axt show` and `axt ls`).
pub(crate) const GOLDEN_STAGES: [&str; 5] = ["normalize", "import", "read", "export", "show"];

/// What a provider fixture's file name ends with: line-framed JSONL, SSE streams, JSON bodies.
pub(crate) const PROVIDER_INPUTS: [&str; 4] = ["jsonl", "json", "sse", "eventstream"];

pub(crate) fn root() -> &'static Path {
    Path::new(ROOT)
}

/// `corpus/normalize/<provider>/`: one provider's output.
pub(crate) fn normalize_corpus(provider: impl Display) -> PathBuf {
    root().join("corpus/normalize").join(provider.to_string())
}

/// `corpus/import/claude-code/`: Claude Code session logs.
pub(crate) fn import_corpus() -> PathBuf {
    root().join("corpus/import/claude-code")
}

/// `corpus/read/transcript/`: canonical transcripts, good and broken.
pub(crate) fn read_corpus() -> PathBuf {
    root().join("corpus/read/transcript")
}

/// `golden/normalize/<provider>/`.
pub(crate) fn normalize_golden(provider: impl Display) -> PathBuf {
    root().join("golden/normalize").join(provider.to_string())
}

/// `golden/import/claude-code/`.
pub(crate) fn import_golden() -> PathBuf {
    root().join("golden/import/claude-code")
}

/// `golden/read/transcript/`.
pub(crate) fn read_golden() -> PathBuf {
    root().join("golden/read/transcript")
}

/// `golden/export/agentlog/<corpus>/`: `corpus` is a provider or `claude-code`.
pub(crate) fn export_golden(corpus: &str) -> PathBuf {
    root().join("golden/export/agentlog").join(corpus)
}

/// `../shared/captures/<provider>/`: real captures kept beside the repository, not in it;
/// the tests that read them skip with a note where it is absent.
pub(crate) fn shared_captures(provider: &str) -> PathBuf {
    root().join("../shared/captures").join(provider)
}

/// The stand-in agent `axt exec` runs in the tests: it replays a fixture on stdout.
pub(crate) fn replay_agent() -> String {
    format!("{ROOT}/tests/axt/support/replay-agent.py")
}

/// The fixed time of every event a harness transcribes, so snapshots do not depend on the
/// moment they run.
pub(crate) fn now() -> Timestamp {
    Timestamp::parse("2026-06-08T08:14:42.123Z").unwrap()
}

/// Every file under `dir`, sorted, without walkdir: the tests should not need the CLI's
/// dependencies to find their fixtures.
pub(crate) fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(dir) = pending.pop() {
        let entries =
            std::fs::read_dir(&dir).unwrap_or_else(|error| panic!("{}: {error}", dir.display()));
        for entry in entries {
            let path = entry.expect("the corpus is readable").path();
            if path.is_dir() {
                pending.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// What a fixture's first directory says it must give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// `ok/`: clean input; no error.
    Ok,
    /// `err/`: input with a problem; at least one must be reported.
    Err,
}

impl Outcome {
    pub(crate) const ALL: [Outcome; 2] = [Outcome::Ok, Outcome::Err];

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Err => "err",
        }
    }

    /// The outcome the first component of `relative` (a path inside a corpus) names.
    pub(crate) fn of(relative: &Path) -> Outcome {
        match relative.iter().next().and_then(|first| first.to_str()) {
            Some("ok") => Outcome::Ok,
            Some("err") => Outcome::Err,
            _ => panic!("{}: fixtures live in ok/ or err/", relative.display()),
        }
    }
}

impl Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One fixture file of a corpus.
pub(crate) struct Fixture {
    pub(crate) path: PathBuf,
    /// The path inside the corpus directory: `ok/foo.jsonl`, `err/links/links-root.jsonl`.
    pub(crate) relative: PathBuf,
    pub(crate) outcome: Outcome,
}

impl Fixture {
    /// `ok/foo.jsonl` as a string.
    pub(crate) fn id(&self) -> &str {
        self.relative.to_str().expect("fixture paths are UTF-8")
    }

    pub(crate) fn file_name(&self) -> &str {
        self.path.file_name().unwrap().to_str().unwrap()
    }

    /// The snapshot's name: the path inside `ok/` or `err/` without its extension, a
    /// subdirectory joined with `__` (`err/links/links-root.jsonl` is `links__links-root`).
    pub(crate) fn name(&self) -> String {
        let inner = self
            .relative
            .strip_prefix(self.outcome.as_str())
            .unwrap()
            .with_extension("");
        inner.to_str().unwrap().replace('/', "__")
    }
}

/// The fixtures under `corpus` whose file name ends with one of `extensions`, sorted.
pub(crate) fn fixtures(corpus: &Path, extensions: &[&str]) -> Vec<Fixture> {
    walk(corpus)
        .into_iter()
        .filter(|path| {
            path.extension()
                .is_some_and(|e| extensions.iter().any(|x| e == *x))
        })
        .map(|path| {
            let relative = path.strip_prefix(corpus).unwrap().to_owned();
            let outcome = Outcome::of(&relative);
            Fixture {
                path,
                relative,
                outcome,
            }
        })
        .collect()
}

/// A corpus's `README.md`, which describes every fixture in it.
pub(crate) struct Readme {
    path: PathBuf,
    text: String,
}

impl Readme {
    pub(crate) fn of(corpus: &Path) -> Readme {
        let path = corpus.join("README.md");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("{} describes every fixture", path.display()));
        Readme { path, text }
    }

    /// Fails unless the README mentions `needle`, the way it names `fixture`.
    pub(crate) fn assert_describes(&self, needle: &str, fixture: &str) {
        assert!(
            self.text.contains(needle),
            "{} must describe {fixture}",
            self.path.strip_prefix(ROOT).unwrap_or(&self.path).display()
        );
    }
}

/// The insta settings of a corpus snapshot: stored in `dir` under the fixture's name alone,
/// without the expression; `input` is the fixture the snapshot's header names.
pub(crate) fn snapshot_settings(dir: &Path, input: Option<&Path>) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(dir);
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    if let Some(input) = input {
        settings.set_input_file(input);
    }
    settings
}

/// Failures of a corpus run, reported together at the end: one fixture that breaks an
/// invariant or differs from its snapshot must not hide what the others do.
#[derive(Default)]
pub(crate) struct Failures(Vec<(String, String)>);

impl Failures {
    /// Runs `test` for `fixture`; a panic is kept for [`Failures::finish`] and gives `None`.
    pub(crate) fn check<T>(&mut self, fixture: &str, test: impl FnOnce() -> T) -> Option<T> {
        match catch_unwind(AssertUnwindSafe(test)) {
            Ok(value) => Some(value),
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("(a panic without a message)");
                self.0.push((fixture.to_owned(), message.to_owned()));
                None
            }
        }
    }

    /// Fails with every failure kept, one per fixture, in the order they happened.
    pub(crate) fn finish(self) {
        let report: Vec<String> = self
            .0
            .iter()
            .map(|(fixture, message)| format!("{fixture}: {message}"))
            .collect();
        assert!(
            report.is_empty(),
            "{} fixture(s) failed:\n{}",
            report.len(),
            report.join("\n")
        );
    }
}

/// A fresh directory under the system temp dir, removed on drop.
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    pub(crate) fn new(name: &str) -> TempDir {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let unique = format!(
            "axt-{name}-{}-{nanos}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let path = std::env::temp_dir().join(unique);
        std::fs::create_dir(&path).unwrap();
        TempDir(path)
    }

    pub(crate) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A run's token counts, named as [`Usage`]'s fields: what a test compares `meta.usage`
/// with (`Usage` is `#[non_exhaustive]`, so no literal of it can be written outside axt).
#[derive(Debug)]
pub(crate) struct Tokens {
    pub(crate) input_tokens: u64,
    pub(crate) output_tokens: u64,
    pub(crate) cache_read_tokens: u64,
    pub(crate) cache_write_tokens: u64,
    pub(crate) reasoning_tokens: u64,
}

impl PartialEq<Tokens> for Usage {
    fn eq(&self, tokens: &Tokens) -> bool {
        let Tokens {
            input_tokens,
            output_tokens,
            cache_read_tokens,
            cache_write_tokens,
            reasoning_tokens,
        } = *tokens;
        (
            self.input_tokens,
            self.output_tokens,
            self.cache_read_tokens,
        ) == (input_tokens, output_tokens, cache_read_tokens)
            && (self.cache_write_tokens, self.reasoning_tokens)
                == (cache_write_tokens, reasoning_tokens)
    }
}

/// A real tmpfs of `size` bytes mounted on a fresh directory (unmounted when dropped), for
/// the tests of a full disk; `None` where this process may not mount one (not root, no
/// `mount`), after saying so: the caller's test then prints SKIPPED with that reason.
pub(crate) struct SmallDisk {
    dir: TempDir,
}

impl SmallDisk {
    pub(crate) fn mount(name: &str, size: u64) -> Result<SmallDisk, String> {
        let dir = TempDir::new(name);
        let mounted = std::process::Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0700"),
                "tmpfs",
            ])
            .arg(dir.path())
            .output();
        match mounted {
            Ok(output) if output.status.success() => Ok(SmallDisk { dir }),
            Ok(output) => Err(format!(
                "cannot mount a tmpfs (root is needed; CI runs as root): {}",
                String::from_utf8_lossy(&output.stderr).trim()
            )),
            Err(error) => Err(format!("cannot run mount: {error}")),
        }
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Fills the disk with `name` until a write fails (ENOSPC); returns its size.
    pub(crate) fn fill(&self, name: &str) -> u64 {
        use std::io::Write;
        let mut file = std::fs::File::create(self.path().join(name)).unwrap();
        let block = vec![0u8; 4096];
        let mut written = 0;
        loop {
            match file.write(&block) {
                Ok(0) | Err(_) => break,
                Ok(n) => written += n as u64,
            }
        }
        let _ = file.sync_all();
        written
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        // Lazily: a test that failed may still have a file open in it.
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}
