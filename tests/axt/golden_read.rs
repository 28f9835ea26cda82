//! The transcript corpus: every fixture under `corpus/read/transcript/{ok,err}/` is read back with
//! the tolerant reader, its links checked, its tool calls judged by the rule for calls seen
//! on both channels and its tree rebuilt, checked against invariants,
//! and compared with its snapshot in `golden/read/transcript/{ok,err}/` (a fixture in a
//! subdirectory, such as `ok/nested/nest-root.jsonl`, is `nested__nest-root.snap`).
//!
//! Invariants first: `ok/` fixtures give no problem at all (reader, links, tree, and no
//! call id repeated on one channel), `err/` fixtures at least one; every problem points at a line and byte of the file; the events
//! yielded are exactly the lines that decode; every fixture is described in the README. A
//! fixture that breaks one is reported with all the others at the end.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use axt::model::{Payload, decode_event};
use axt::read::tree::{Links, Node, Run, build, check_links};
use axt::read::{Calls, ReadItem, Reader, Verdict};

use crate::support::{
    Failures, Fixture, Outcome, Readme, fixtures, read_corpus, read_golden, snapshot_settings,
};

/// The outline of a tree, file names only, so snapshots do not depend on the checkout.
fn outline(run: &Run, depth: usize, text: &mut String) {
    let pad = "  ".repeat(depth);
    let file = run.file.file_name().unwrap().to_string_lossy();
    writeln!(
        text,
        "{pad}run {} ({file}) {} {} {} events",
        run.run_id,
        run.status.as_str(),
        ms(run.duration_ms),
        run.events
    )
    .unwrap();
    nodes(&run.children, depth + 1, text);
}

fn nodes(children: &[Node], depth: usize, text: &mut String) {
    let pad = "  ".repeat(depth);
    for node in children {
        match node {
            Node::Run(run) => outline(run, depth, text),
            Node::Step(step) => {
                writeln!(
                    text,
                    "{pad}step {} [{}] #{} {} {}{}",
                    step.path,
                    step.kind,
                    step.iteration,
                    step.status.as_str(),
                    ms(step.duration_ms),
                    step.child_run_id
                        .as_deref()
                        .map(|c| format!(" -> {c}"))
                        .unwrap_or_default()
                )
                .unwrap();
                nodes(&step.children, depth + 1, text);
            }
            Node::Message(message) => {
                writeln!(text, "{pad}{}: {}", message.role, message.blocks.join(", ")).unwrap()
            }
            Node::Tool(tool) => {
                let sighted = match (tool.sighted_by_agent, &tool.agent_call_id) {
                    (false, _) => String::new(),
                    (true, None) => " (sighted by the agent)".to_owned(),
                    (true, Some(id)) => format!(" (sighted by the agent as {id})"),
                };
                writeln!(
                    text,
                    "{pad}tool {} {} {}{sighted}",
                    tool.name,
                    tool.call_id,
                    tool.outcome.as_str()
                )
                .unwrap()
            }
        }
    }
}

fn ms(duration: Option<u64>) -> String {
    duration.map_or_else(|| "-".to_owned(), |ms| format!("{ms}ms"))
}

#[test]
fn transcript_corpus() {
    let corpus = read_corpus();
    let golden = read_golden();
    let readme = Readme::of(&corpus);
    let mut summary: BTreeMap<String, usize> = BTreeMap::new();
    let mut per_fixture = Vec::new();
    let mut failures = Failures::default();
    for fixture in fixtures(&corpus, &["jsonl"]) {
        failures.check(fixture.id(), || {
            let text = check(&readme, &fixture, &mut summary, &mut per_fixture);
            snapshot_settings(&golden.join(fixture.outcome.as_str()), Some(&fixture.path))
                .bind(|| insta::assert_snapshot!(fixture.name(), text));
        });
    }
    let mut text = String::from("# transcript corpus\n\n## Problems by kind\n");
    for (kind, count) in &summary {
        writeln!(text, "{kind}: {count}").unwrap();
    }
    writeln!(text, "\n## Per fixture").unwrap();
    for line in &per_fixture {
        writeln!(text, "{line}").unwrap();
    }
    failures.check("summary", || {
        snapshot_settings(&golden, None).bind(|| insta::assert_snapshot!("summary", text));
    });
    failures.finish();
}

/// One fixture: read back, its links checked, its tree built. Counts its problems and adds
/// its line to the summary, then gives its snapshot's text.
fn check(
    readme: &Readme,
    fixture: &Fixture,
    summary: &mut BTreeMap<String, usize>,
    per_fixture: &mut Vec<String>,
) -> String {
    let path = &fixture.path;
    let relative = &fixture.relative;
    let name = fixture.name();
    readme.assert_describes(fixture.file_name(), fixture.id());
    let bytes = std::fs::read(path).unwrap();
    let line_count = bytes.split(|b| *b == b'\n').count() as u64;
    // The title keeps the name the fixture had before the corpus was split by stage, so
    // that moving the corpus left every snapshot byte-identical.
    let mut text = format!("# corpus/transcript/{}\n\n## Events\n", relative.display());
    let mut problems = Vec::new();
    let mut links = Links::default();
    let mut calls = Calls::default();
    let mut judged = Vec::new();
    let mut repeated = 0;
    let mut decoded = 0;
    for item in Reader::new(&bytes[..]) {
        match item {
            ReadItem::Event {
                line,
                offset,
                event,
            } => {
                let raw = &bytes[offset as usize..];
                let raw = &raw[..raw.iter().position(|b| *b == b'\n').unwrap_or(raw.len())];
                let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
                assert_eq!(decode_event(raw).as_ref(), Ok(&*event), "{name}: L{line}");
                decoded += 1;
                links.add(line, offset, &event);
                if let (Some(seen), Payload::Tool(tool)) = (calls.see(&event), &event.payload) {
                    let verdict = match seen.verdict {
                        Verdict::Call => "call",
                        Verdict::Sighting => "sighting",
                        Verdict::Repeated => {
                            repeated += 1;
                            "repeated"
                        }
                    };
                    let demoted = seen.demoted.map_or_else(String::new, |d| {
                        format!(
                            ", the agent's {} call counted before is a sighting now",
                            d.name
                        )
                    });
                    judged.push(format!(
                        "L{line} {} {} {} {}: {verdict}{demoted}",
                        event.event_type,
                        tool.name,
                        tool.call_id,
                        tool.fidelity.as_str()
                    ));
                }
                writeln!(
                    text,
                    "L{line} #{} {} {}",
                    event.seq, event.event_type, event.path
                )
                .unwrap();
            }
            ReadItem::Problem(problem) => {
                assert!(
                    (1..=line_count).contains(&problem.line),
                    "{name}: {problem}"
                );
                assert!(problem.offset <= bytes.len() as u64, "{name}: {problem}");
                problems.push(problem);
            }
        }
    }
    let good = bytes
        .split(|b| *b == b'\n')
        .filter(|l| decode_event(l.strip_suffix(b"\r").unwrap_or(l)).is_ok())
        .count();
    assert_eq!(decoded, good, "{name}: every line that decodes is yielded");

    let link_problems = check_links(path, &links);
    let tree = build(path);
    // The tree repeats the reader's problems of every file; count only its own.
    let tree_own = tree
        .problems
        .iter()
        .filter(|p| !matches!(p.kind, axt::read::tree::LinkKind::Read(_)))
        .count();
    let total = problems.len() + link_problems.len() + tree_own + repeated;
    match fixture.outcome {
        Outcome::Ok => assert_eq!(total, 0, "{name}: an ok fixture has no problem"),
        Outcome::Err => assert!(total > 0, "{name}: an err fixture has a problem"),
    }

    writeln!(text, "\n## Problems").unwrap();
    if problems.is_empty() {
        writeln!(text, "(none)").unwrap();
    }
    for problem in &problems {
        writeln!(text, "{problem}").unwrap();
        *summary.entry(problem.kind.as_str().to_owned()).or_default() += 1;
    }
    writeln!(text, "\n## Links").unwrap();
    if link_problems.is_empty() {
        writeln!(text, "(none)").unwrap();
    }
    for problem in &link_problems {
        let line = problem.line;
        writeln!(
            text,
            "L{line} {}: {}",
            problem.kind.as_str(),
            problem.message
        )
        .unwrap();
        *summary.entry(problem.kind.as_str().to_owned()).or_default() += 1;
    }
    writeln!(text, "\n## Calls").unwrap();
    if judged.is_empty() {
        writeln!(text, "(none)").unwrap();
    }
    for line in &judged {
        writeln!(text, "{line}").unwrap();
    }
    if calls.on_both_channels() > 0 {
        writeln!(text, "on both channels: {}", calls.on_both_channels()).unwrap();
    }
    writeln!(text, "\n## Tree").unwrap();
    outline(&tree.root, 0, &mut text);
    for problem in &tree.problems {
        let file = problem.file.file_name().unwrap().to_string_lossy();
        let line = problem.line;
        writeln!(
            text,
            "! {file}:{line} {}: {}",
            problem.kind.as_str(),
            problem.message
        )
        .unwrap();
    }
    per_fixture.push(format!(
        "{}: {} events, {total} problems",
        relative.display(),
        decoded
    ));
    text
}
