//! The corpus and golden trees as a whole: named by pipeline stage, every corpus in the same
//! shape, and no snapshot left behind by a fixture that is gone.

use std::path::Path;

use crate::support::{CORPUS_STAGES, GOLDEN_STAGES, PROVIDER_INPUTS, root, walk};

/// The names of the directories in `dir`, sorted.
fn directories(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .map(|path| path.file_name().unwrap().to_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

fn sorted<const N: usize>(names: [&str; N]) -> Vec<String> {
    let mut names: Vec<String> = names.iter().map(|name| (*name).to_owned()).collect();
    names.sort();
    names
}

/// `corpus/` and `golden/` hold one directory per stage and nothing else, so a newcomer
/// finds a stage's fixtures where the tree says they are.
#[test]
fn the_trees_are_named_by_stage() {
    assert_eq!(directories(&root().join("corpus")), sorted(CORPUS_STAGES));
    assert_eq!(directories(&root().join("golden")), sorted(GOLDEN_STAGES));
}

/// Every corpus has its `README.md`, its `ok/` and `err/` fixtures and nothing beside them
/// but its docs and the generator that writes its byte-exact files.
#[test]
fn every_corpus_has_a_readme_and_ok_and_err_fixtures() {
    let mut wrong = Vec::new();
    for stage in CORPUS_STAGES {
        for corpus in directories(&root().join("corpus").join(stage)) {
            let dir = root().join("corpus").join(stage).join(&corpus);
            let name = format!("corpus/{stage}/{corpus}");
            if directories(&dir) != ["err", "ok"] {
                wrong.push(format!(
                    "{name}: holds {:?}, not ok/ and err/",
                    directories(&dir)
                ));
            }
            if !dir.join("README.md").is_file() {
                wrong.push(format!("{name}: no README.md"));
            }
            for entry in std::fs::read_dir(&dir).unwrap() {
                let file = entry.unwrap().file_name().into_string().unwrap();
                let known = file.ends_with(".md")
                    || (file.starts_with("make-") && file.ends_with(".py"))
                    || file == "ok"
                    || file == "err";
                if !known {
                    wrong.push(format!(
                        "{name}/{file}: neither a doc, a generator nor ok/ or err/"
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Each corpus has its summary snapshot, so a change of coverage shows at a glance.
#[test]
fn every_corpus_has_a_summary_snapshot() {
    for stage in CORPUS_STAGES {
        for corpus in directories(&root().join("corpus").join(stage)) {
            let summary = root()
                .join("golden")
                .join(stage)
                .join(&corpus)
                .join("summary.snap");
            assert!(
                summary.is_file(),
                "golden/{stage}/{corpus}/summary.snap is missing"
            );
        }
    }
}

/// `make golden` can leave snapshots of deleted or renamed fixtures behind; they must go.
#[test]
fn no_snapshot_without_a_fixture() {
    let golden = root().join("golden");
    let mut orphans = Vec::new();
    for path in walk(&golden) {
        if path.extension().is_none_or(|e| e != "snap") {
            continue;
        }
        let relative = path.strip_prefix(&golden).unwrap();
        let parts: Vec<_> = relative.iter().map(|p| p.to_str().unwrap()).collect();
        let stem = path.file_stem().unwrap().to_str().unwrap();
        // A fixture in a subdirectory (ok/nested/a.jsonl) is nested__a.snap; a Claude Code
        // session known only by its agents' logs is its directory (ok/layout/<id>/).
        let fixture = |corpus: &str, outcome: &str| {
            let base = root().join("corpus").join(corpus).join(outcome);
            let path = stem.replace("__", "/");
            base.join(&path).is_dir()
                || PROVIDER_INPUTS
                    .iter()
                    .any(|ext| base.join(format!("{path}.{ext}")).exists())
        };
        let has_fixture = match parts.as_slice() {
            [_stage, _corpus, "summary.snap"] => true,
            [stage, corpus, outcome, _] => fixture(&format!("{stage}/{corpus}"), outcome),
            // An export snapshot: golden/export/agentlog/<corpus>/<outcome>/<fixture>.snap.
            ["export", "agentlog", "claude-code", outcome, _] => {
                fixture("import/claude-code", outcome)
            }
            ["export", "agentlog", "transcript", outcome, _] => fixture("read/transcript", outcome),
            ["export", "agentlog", provider, outcome, _] => {
                fixture(&format!("normalize/{provider}"), outcome)
            }
            // golden/export/atif/<corpus>/ok/<fixture>.snap, as AgentLog's.
            ["export", "atif", "claude-code", outcome, _] => fixture("import/claude-code", outcome),
            ["export", "atif", "transcript", outcome, _] => fixture("read/transcript", outcome),
            ["export", "atif", provider, outcome, _] => {
                fixture(&format!("normalize/{provider}"), outcome)
            }
            // golden/show/<stage>/<corpus>/<outcome>/<fixture>.snap: the corpus's fixture;
            // golden/show/ls/<name>.snap: a listing of a directory the harness made.
            ["show", "ls", _] => true,
            ["show", stage, corpus, outcome, _] => fixture(&format!("{stage}/{corpus}"), outcome),
            // golden/export/otlp/transcript/ok/<fixture>.snap: corpus/read/transcript.
            ["export", "otlp", "transcript", outcome, _] => fixture("read/transcript", outcome),
            ["export", "otlp", provider, outcome, _] => {
                fixture(&format!("normalize/{provider}"), outcome)
            }
            _ => false,
        };
        if !has_fixture {
            orphans.push(format!("golden/{}", relative.display()));
        }
    }
    assert!(
        orphans.is_empty(),
        "snapshots without a fixture in corpus/; delete them:\n{}",
        orphans.join("\n")
    );
}
