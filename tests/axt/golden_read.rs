//! The transcript corpus: every fixture under `corpus/read/transcript/{ok,err}/` is read back with
//! the tolerant reader, its links checked and its tree rebuilt, checked against invariants,
//! and compared with its snapshot in `golden/read/transcript/{ok,err}/` (a fixture in a
//! subdirectory, such as `ok/nested/nest-root.jsonl`, is `nested__nest-root.snap`).
//!
//! Invariants first: `ok/` fixtures give no problem at all (reader, links, tree), `err/`
//! fixtures at least one; every problem points at a line and byte of the file; the events
//! yielded are exactly the lines that decode; every fixture is described in the README.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use axt::model::decode_event;
use axt::read::tree::{Links, Node, Run, build, check_links};
use axt::read::{ReadItem, Reader};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn corpus() -> PathBuf {
    Path::new(ROOT).join("corpus/read/transcript")
}

fn fixtures() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = walkdir::WalkDir::new(corpus())
        .into_iter()
        .map(|entry| entry.expect("corpus is readable").into_path())
        .filter(|path| path.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    found.sort();
    found
}

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
            Node::Tool(tool) => writeln!(
                text,
                "{pad}tool {} {} {}",
                tool.name,
                tool.call_id,
                tool.outcome.as_str()
            )
            .unwrap(),
        }
    }
}

fn ms(duration: Option<u64>) -> String {
    duration.map_or_else(|| "-".to_owned(), |ms| format!("{ms}ms"))
}

#[test]
fn transcript_corpus() {
    let readme = std::fs::read_to_string(corpus().join("README.md"))
        .expect("corpus/read/transcript/README.md describes every fixture");
    let mut summary: BTreeMap<String, usize> = BTreeMap::new();
    let mut per_fixture = Vec::new();
    let mut failures = Vec::new();
    for path in fixtures() {
        let relative = path.strip_prefix(corpus()).unwrap();
        let outcome = relative.iter().next().unwrap().to_str().unwrap().to_owned();
        let inner = relative.strip_prefix(&outcome).unwrap().with_extension("");
        let name = inner.to_str().unwrap().replace('/', "__");
        let file_name = path.file_name().unwrap().to_str().unwrap();
        assert!(
            readme.contains(file_name),
            "the README must describe {}",
            relative.display()
        );

        let bytes = std::fs::read(&path).unwrap();
        let line_count = bytes.split(|b| *b == b'\n').count() as u64;
        let mut text = format!("# corpus/transcript/{}\n\n## Events\n", relative.display());
        let mut problems = Vec::new();
        let mut links = Links::default();
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

        let link_problems = check_links(&path, &links);
        let tree = build(&path);
        // The tree repeats the reader's problems of every file; count only its own.
        let tree_own = tree
            .problems
            .iter()
            .filter(|p| !matches!(p.kind, axt::read::tree::LinkKind::Read(_)))
            .count();
        let total = problems.len() + link_problems.len() + tree_own;
        match outcome.as_str() {
            "ok" => assert_eq!(total, 0, "{name}: an ok fixture has no problem"),
            "err" => assert!(total > 0, "{name}: an err fixture has a problem"),
            other => panic!("fixtures live in ok/ or err/, not {other}/"),
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

        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(
            Path::new(ROOT)
                .join("golden/read/transcript")
                .join(&outcome),
        );
        settings.set_prepend_module_to_snapshot(false);
        settings.set_input_file(&path);
        settings.set_omit_expression(true);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            settings.bind(|| insta::assert_snapshot!(name.clone(), text));
        }));
        if result.is_err() {
            failures.push(name);
        }
    }
    let mut text = String::from("# transcript corpus\n\n## Problems by kind\n");
    for (kind, count) in &summary {
        writeln!(text, "{kind}: {count}").unwrap();
    }
    writeln!(text, "\n## Per fixture").unwrap();
    for line in &per_fixture {
        writeln!(text, "{line}").unwrap();
    }
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(Path::new(ROOT).join("golden/read/transcript"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!("summary", text));
    assert!(failures.is_empty(), "snapshots differ for: {failures:#?}");
}
