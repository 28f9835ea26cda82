//! ATIF export: one fixture per provider corpus (the shared shell-command scenario), the
//! three-level workflow of `corpus/read/transcript/ok/nested/` and a Claude Code session
//! with nested sub-agents are exported; the trajectories are golden snapshots in
//! `golden/export/atif/<corpus>/ok/`. Invariants are checked before each snapshot: steps
//! numbered from 1, every observation result naming a call of its own step, every
//! sub-agent reference resolving to an embedded trajectory, one agent step per model
//! response. Then every transcript the corpus makes is exported and validated by the
//! format's own Python models (PyPI `atif`, strict: unknown fields are errors).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use axt::export::{Options, Output, Target, export};
use axt::import::claude_code::{convert, write};
use axt::normalize::Provider;
use serde_json::Value;

use crate::golden_import::sessions;
use crate::support::{
    Failures, Outcome, PROVIDER_INPUTS, TempDir, fixtures, normalize_corpus, read_corpus, root,
    snapshot_settings,
};

const SCENARIO: &str = "shared-scenario-shell-command.jsonl";

fn golden(corpus: &str) -> PathBuf {
    root().join("golden/export/atif").join(corpus).join("ok")
}

fn atif(file: &Path) -> Value {
    let exported = export(Target::Atif, &[file.to_owned()], &Options::default()).unwrap();
    assert!(exported.problems.is_empty(), "{:?}", exported.problems);
    let Output::Document(document) = exported.output else {
        panic!("ATIF is a document")
    };
    document
}

fn snapshot(corpus: &str, name: &str, document: &Value) {
    let text = serde_json::to_string_pretty(document).unwrap();
    snapshot_settings(&golden(corpus), None)
        .bind(|| insta::assert_snapshot!(name.to_owned(), text));
}

/// What the format requires beyond its models' field types, and what axt promises.
fn check(name: &str, document: &Value) {
    assert_eq!(document["schema_version"], "ATIF-v1.8", "{name}");
    let steps = document["steps"].as_array().unwrap();
    let mut responses = BTreeSet::new();
    for (n, step) in steps.iter().enumerate() {
        assert_eq!(
            step["step_id"],
            n as u64 + 1,
            "{name}: steps are numbered from 1"
        );
        let calls: BTreeSet<&str> = step["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| c["tool_call_id"].as_str().unwrap())
            .collect();
        for result in step["observation"]["results"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if let Some(id) = result["source_call_id"].as_str() {
                assert!(
                    calls.contains(id),
                    "{name}: result for {id} outside its step"
                );
            }
            for reference in result["subagent_trajectory_ref"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let id = &reference["trajectory_id"];
                let embedded = document["subagent_trajectories"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|sub| &sub["trajectory_id"] == id);
                assert!(embedded, "{name}: sub-agent {id} is not embedded");
            }
        }
        if step["llm_call_count"] == 1
            && let Some(id) = step["extra"]["axt"]["message_id"].as_str()
        {
            assert!(
                responses.insert(id.to_owned()),
                "{name}: response {id} in two steps"
            );
        }
    }
    for sub in document["subagent_trajectories"]
        .as_array()
        .into_iter()
        .flatten()
    {
        check(name, sub);
    }
}

fn record(provider: Provider, fixture: &Path, dir: &Path) -> PathBuf {
    crate::golden_otlp::record(provider, fixture, dir)
}

#[test]
fn atif_golden_trajectories() {
    let mut failures = Failures::default();
    for provider in Provider::ALL {
        let fixture = normalize_corpus(provider).join("ok").join(SCENARIO);
        let name = SCENARIO.trim_end_matches(".jsonl");
        failures.check(&format!("{provider}/{name}"), || {
            let scratch = TempDir::new(&format!("atif-{provider}"));
            let file = record(provider, &fixture, scratch.path());
            let document = atif(&file);
            check(name, &document);
            snapshot(provider.as_str(), name, &document);
        });
    }
    failures.check("transcript/nested", || {
        let document = atif(&read_corpus().join("ok/nested/nest-root.jsonl"));
        check("nested", &document);
        assert_eq!(
            document["subagent_trajectories"][0]["trajectory_id"],
            "nest-child"
        );
        assert_eq!(
            document["subagent_trajectories"][0]["subagent_trajectories"][0]["trajectory_id"],
            "nest-grandchild"
        );
        snapshot("transcript", "nested__nest-root", &document);
    });
    failures.check("claude-code/nested-subagents", || {
        let files = sessions(Outcome::Ok)
            .into_iter()
            .find(|f| {
                f.main
                    .as_ref()
                    .is_some_and(|m| m.to_string_lossy().contains("nested-subagents"))
            })
            .expect("the corpus has nested-subagents");
        let scratch = TempDir::new("atif-claude-code");
        let written = write(&convert(&files).unwrap(), scratch.path(), false).unwrap();
        let document = atif(&written[0]);
        check("nested-subagents", &document);
        assert!(
            !document["subagent_trajectories"]
                .as_array()
                .unwrap()
                .is_empty()
        );
        snapshot("claude-code", "nested-subagents", &document);
    });
    failures.finish();
}

/// Every transcript the corpus makes, exported to ATIF, and the documents validated by the
/// `atif` package's Pydantic models.
#[test]
#[allow(clippy::print_stderr)]
fn atif_documents_validate_against_the_format_s_own_models() {
    let python = root().join("target/readers/venv/bin/python");
    if !python.is_file() {
        eprintln!(
            "SKIPPED atif_documents_validate_against_the_format_s_own_models: no \
             target/readers/venv (`.ci/run` installs it: python3 -m venv \
             target/readers/venv && target/readers/venv/bin/pip install atif)"
        );
        return;
    }
    let scratch = TempDir::new("atif-validate");
    let (transcripts, documents) = (scratch.path().join("t"), scratch.path().join("atif"));
    std::fs::create_dir_all(&transcripts).unwrap();
    std::fs::create_dir_all(&documents).unwrap();
    let mut roots: Vec<PathBuf> = Vec::new();
    for provider in Provider::ALL {
        for fixture in fixtures(&normalize_corpus(provider), &PROVIDER_INPUTS) {
            if fixture.outcome == Outcome::Ok && fixture.relative.components().count() == 2 {
                roots.push(record(provider, &fixture.path, &transcripts));
            }
        }
    }
    for files in sessions(Outcome::Ok) {
        if let Ok(session) = convert(&files) {
            let dir = transcripts.join(format!("session-{}", roots.len()));
            std::fs::create_dir(&dir).unwrap();
            roots.push(write(&session, &dir, false).unwrap().remove(0));
        }
    }
    for fixture in fixtures(&read_corpus(), &["jsonl"]) {
        if fixture.outcome == Outcome::Ok {
            roots.push(fixture.path.clone());
        }
    }
    for (n, file) in roots.iter().enumerate() {
        let exported = export(
            Target::Atif,
            std::slice::from_ref(file),
            &Options::default(),
        )
        .unwrap();
        let Output::Document(document) = exported.output else {
            panic!("ATIF is a document")
        };
        check(&file.display().to_string(), &document);
        std::fs::write(documents.join(format!("{n:03}.json")), document.to_string()).unwrap();
    }
    let output = std::process::Command::new(&python)
        .arg(root().join("tests/axt/support/validate-atif.py"))
        .arg(&documents)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        stdout.trim(),
        format!("{} valid ATIF-v1.8 trajectories", roots.len())
    );
}
