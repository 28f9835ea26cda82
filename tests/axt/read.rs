//! Reading back what the recorder wrote: `axt tree` rebuilds the step graph a test recorded
//! (the seed's "tree reconstruction tool produces the same step graph" test), and `axt
//! check` / `axt stats` exit codes and reports. The tree is decoded from `axt tree --json`
//! with test-local code, not the library's types.

use std::fmt::Write as _;
use std::process::Command;

use axt::model::{EventType, ExchangeEvent, Fidelity, Payload, StepPayload, Text, ToolPayload};
use axt::record::{Recorder, RecorderOptions};
use serde_json::{Value, json};

fn axt(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_axt"))
        .args(args)
        .current_dir(crate::support::ROOT)
        .output()
        .expect("axt runs")
}

/// Records events and, alongside, the outline the tree must show.
struct Recording<'a> {
    rec: &'a Recorder,
    depth: usize,
    expected: &'a mut String,
}

fn step(event_type: EventType, path: &str, kind: &str, iteration: u64) -> ExchangeEvent {
    let payload = Payload::Step(StepPayload::new(path.to_owned(), kind.into()));
    let mut event = ExchangeEvent::new("", event_type, path, payload);
    event.iteration = iteration;
    event
}

impl Recording<'_> {
    fn line(&mut self, depth: usize, text: String) {
        writeln!(self.expected, "{}{text}", "  ".repeat(depth)).unwrap();
    }

    fn run(&mut self, name: &str, body: impl FnOnce(&mut Self)) {
        let id = self.rec.run_id().to_owned();
        self.line(self.depth, format!("run {id}"));
        self.rec
            .record(step(EventType::RunStarted, "", "workflow", 0))
            .unwrap();
        self.depth += 1;
        body(self);
        self.depth -= 1;
        let mut done = step(EventType::RunCompleted, "", "workflow", 0);
        if let Payload::Step(payload) = &mut done.payload {
            payload.name = name.to_owned();
        }
        self.rec.record(done).unwrap();
    }

    fn step(&mut self, path: &str, kind: &str, iteration: u64, body: impl FnOnce(&mut Self)) {
        self.line(
            self.depth,
            format!("step {path} [{kind}] #{iteration} completed"),
        );
        self.rec
            .record(step(EventType::StepStarted, path, kind, iteration))
            .unwrap();
        self.depth += 1;
        body(self);
        self.depth -= 1;
        self.rec
            .record(step(EventType::StepCompleted, path, kind, iteration))
            .unwrap();
    }

    fn tool(&mut self, path: &str, name: &str, call_id: &str, error: Option<&str>) {
        let outcome = if error.is_some() { "error" } else { "ok" };
        self.line(self.depth, format!("tool {name} {outcome}"));
        for event_type in [EventType::ToolCall, EventType::ToolResult] {
            let result = event_type == EventType::ToolResult;
            let payload = Payload::Tool({
                let mut tool = ToolPayload::call(
                    name.to_owned(),
                    call_id.to_owned(),
                    json!({"cmd": name}),
                    Fidelity::Router,
                );
                tool.error = error.filter(|_| result).map(Text::from);
                tool
            });
            self.rec
                .record(ExchangeEvent::new("", event_type, path, payload))
                .unwrap();
        }
    }

    /// A call_workflow step whose sub-run is recorded by `body` into its own file.
    fn call(&mut self, path: &str, child_id: &str, body: impl FnOnce(&mut Recording<'_>)) {
        self.line(
            self.depth,
            format!("step {path} [call_workflow] #0 completed"),
        );
        self.rec
            .record(step(EventType::StepStarted, path, "call_workflow", 0))
            .unwrap();
        let mut started = step(EventType::CallWorkflowStarted, path, "call_workflow", 0);
        started.child_run_id = Some(child_id.to_owned());
        self.rec.record(started).unwrap();
        let child = self
            .rec
            .create_child(child_id, RecorderOptions::default())
            .unwrap();
        {
            let mut inner = Recording {
                rec: &child,
                depth: self.depth + 1,
                expected: self.expected,
            };
            body(&mut inner);
        }
        child.close().unwrap();
        let mut completed = step(EventType::CallWorkflowCompleted, path, "call_workflow", 0);
        completed.child_run_id = Some(child_id.to_owned());
        self.rec.record(completed).unwrap();
        self.rec
            .record(step(EventType::StepCompleted, path, "call_workflow", 0))
            .unwrap();
    }
}

/// The outline of `axt tree --json`, decoded here from plain JSON.
fn outline(node: &Value, depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    match node["node"].as_str() {
        None | Some("run") => {
            writeln!(out, "{pad}run {}", node["run_id"].as_str().unwrap()).unwrap();
        }
        Some("step") => writeln!(
            out,
            "{pad}step {} [{}] #{} {}",
            node["path"].as_str().unwrap(),
            node["kind"].as_str().unwrap(),
            node["iteration"],
            node["status"].as_str().unwrap()
        )
        .unwrap(),
        Some("tool") => writeln!(
            out,
            "{pad}tool {} {}",
            node["name"].as_str().unwrap(),
            node["outcome"].as_str().unwrap()
        )
        .unwrap(),
        Some(other) => panic!("unexpected node {other}"),
    }
    for child in node["children"].as_array().into_iter().flatten() {
        outline(child, depth + 1, out);
    }
}

#[test]
fn axt_tree_rebuilds_the_step_graph_the_recorder_wrote_three_levels_deep() {
    let dir = std::env::temp_dir().join(format!("axt-read-tree-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let root = Recorder::create(&dir, "root-run", RecorderOptions::default()).unwrap();
    let mut expected = String::new();
    let mut rec = Recording {
        rec: &root,
        depth: 0,
        expected: &mut expected,
    };
    rec.run("release", |r| {
        r.step("plan", "agent", 0, |r| r.tool("plan", "Read", "c1", None));
        r.call("build", "child-run", |r| {
            r.run("build", |r| {
                for iteration in 0..2 {
                    r.step("loop", "for_each", iteration, |r| {
                        r.step("loop.cc", "command", iteration, |r| {
                            let error = (iteration == 0).then_some("exit 1");
                            r.tool("loop.cc", "Bash", &format!("b{iteration}"), error);
                        });
                    });
                }
                r.call("loop2", "grandchild-run", |r| {
                    r.run("test", |r| {
                        r.step("unit", "agent", 0, |r| r.tool("unit", "Grep", "g1", None));
                    });
                });
            });
        });
        r.step("ship", "command", 0, |_| {});
    });
    root.close().unwrap();

    let file = root.path().to_str().unwrap().to_owned();
    let output = axt(&["tree", "--json", &file]);
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    assert_eq!(output.status.code(), Some(0));
    let tree: Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut rebuilt = String::new();
    outline(&tree["root"], 0, &mut rebuilt);
    assert_eq!(rebuilt, expected);
    assert_eq!(
        expected
            .lines()
            .filter(|l| l.trim().starts_with("run "))
            .count(),
        3
    );

    // Every file of the tree is clean for `axt check`, links included.
    let files: Vec<String> = ["root-run", "child-run", "grandchild-run"]
        .iter()
        .map(|id| dir.join(format!("{id}.jsonl")).to_str().unwrap().to_owned())
        .collect();
    let mut args = vec!["check"];
    args.extend(files.iter().map(String::as_str));
    let output = axt(&args);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_exits_1_with_problems_and_reports_json() {
    let output = axt(&["check", "corpus/read/transcript/ok/plain-run.jsonl"]);
    assert_eq!(output.status.code(), Some(0));
    let output = axt(&[
        "check",
        "--json",
        "corpus/read/transcript/err/seq-gap.jsonl",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["clean"], false);
    assert_eq!(report["files"][0]["problem_count"], 1);
    assert_eq!(
        report["files"][0]["problems_by_kind"],
        json!({"seq-gap": 1})
    );
    // The problems themselves go to stderr, one JSON object per line.
    let problem: Value = serde_json::from_slice(&output.stderr).unwrap();
    assert_eq!(
        problem,
        json!({"file": "corpus/read/transcript/err/seq-gap.jsonl", "line": 4, "offset": 526,
            "kind": "seq-gap", "severity": "error", "message": "seq 6, expected 4: 2 missing"})
    );
    let output = axt(&["check", "no/such.jsonl"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "axt: no/such.jsonl: No such file or directory (os error 2)\n"
    );
}

#[test]
fn stats_walks_a_directory_and_totals() {
    let output = axt(&["stats", "--json", "corpus/read/transcript/ok"]);
    assert_eq!(output.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["files"].as_array().unwrap().len(), 11);
    let total = &report["total"];
    assert_eq!(total["files"], 11);
    assert_eq!(total["runs"], 11);
    // 3 in the nested runs, 1 seen on both channels (both-channels-agent-first), 1 full of
    // markup (hostile-markup-in-every-field).
    assert_eq!(total["tools"]["Bash"], json!({"calls": 5, "failures": 3}));
    assert_eq!(total["sightings"], 4);
    // The nested runs' 15,000 and web-fetch-search-and-to-do-list's 31,840 (and its $0.0342).
    assert_eq!(total["tokens"]["cache_read"], 15000 + 31840);
    // Every run of the corpus that names a provider reports its cost, or has no tokens and
    // a model the price table does not know.
    let cost = total["cost"]["reported_usd"].as_f64().unwrap();
    assert!((cost - (0.3024 + 0.0342)).abs() < 1e-9, "{cost}");
    assert_eq!(total["cost"]["reported"], 4);
    assert_eq!(total["cost"]["estimated_usd"], 0.0);
}

/// The reader keeps its own line limit (it imports the model alone); it must stay the
/// normalizers' record limit, so a line `axt normalize` wrote is a line `axt cat` reads.
#[test]
fn the_reader_s_line_limit_is_the_normalizers_record_limit() {
    assert_eq!(
        axt::read::DEFAULT_MAX_LINE_BYTES,
        axt::normalize::DEFAULT_MAX_RECORD_BYTES
    );
}

/// A tree keeps at most `MAX_TREE_NODES` nodes and says how many it left out: memory is
/// bounded whatever the transcript's length. Past the limit every event is still read: the
/// run's end, a step opened and closed (no false problem), the call made before the limit
/// whose result comes after it, and a sub-run invoked there (its link still checked).
#[test]
fn a_tree_keeps_its_first_nodes_and_counts_the_rest() {
    use axt::read::tree::{MAX_TREE_NODES, Node, build};
    let tmp = crate::support::TempDir::new("tree-bounded");
    let rec = Recorder::create(tmp.path(), "big", RecorderOptions::default()).unwrap();
    rec.record(step(EventType::RunStarted, "", "workflow", 0))
        .unwrap();
    let call = |id: &str| {
        let payload = ToolPayload::call("Bash", id, json!({"command": "ls"}), Fidelity::Router);
        ExchangeEvent::new("", EventType::ToolCall, "", Payload::Tool(payload))
    };
    rec.record(call("early")).unwrap();
    let message = || {
        let block = axt::ContentBlock::text(Fidelity::AgentEmitted, "hi");
        let payload = Payload::Message(axt::MessagePayload::new(axt::Role::Assistant, vec![block]));
        ExchangeEvent::new("", EventType::MessageAssistant, "", payload)
    };
    for _ in 0..MAX_TREE_NODES + 10 {
        rec.record(message()).unwrap();
    }
    rec.record(step(EventType::StepStarted, "late", "command", 0))
        .unwrap();
    rec.record(call("late-call")).unwrap();
    rec.record(step(EventType::StepCompleted, "late", "command", 0))
        .unwrap();
    let mut result = ToolPayload::call("Bash", "early", Value::Null, Fidelity::Router);
    result.error = Some("failed".into());
    rec.record(ExchangeEvent::new(
        "",
        EventType::ToolResult,
        "",
        Payload::Tool(result),
    ))
    .unwrap();
    let mut invoke = step(EventType::CallWorkflowStarted, "sub", "call_workflow", 0);
    invoke.child_run_id = Some("missing-child".into());
    rec.record(invoke).unwrap();
    rec.record(step(EventType::RunCompleted, "", "workflow", 0))
        .unwrap();
    rec.close().unwrap();

    let tree = build(rec.path());
    let root = &tree.root;
    assert_eq!(root.children.len(), MAX_TREE_NODES);
    // 11 messages, the step, the late call and the call_workflow step left out.
    assert_eq!(root.elided, 14);
    assert_eq!(root.status.as_str(), "completed");
    let Node::Tool(early) = &root.children[0] else {
        panic!("{:?}", root.children[0])
    };
    assert_eq!(
        early.outcome.as_str(),
        "error",
        "its result, past the limit, still counts"
    );
    let problems: Vec<String> = tree.problems.iter().map(ToString::to_string).collect();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("missing-child"), "{problems:?}");
    let json = tree.to_json();
    assert_eq!(json["root"]["elided"], 14);
    let output = axt(&["tree", rec.path().to_str().unwrap()]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.ends_with(
            "… and 14 more not kept: a tree keeps its first 100000 steps, messages and tool calls \
             (every event was read)\n"
        ),
        "{}",
        &text[text.len().saturating_sub(300)..]
    );
}

/// The tree's line bookkeeping for readers that place every event (the HTML view): a tool
/// node holds the lines of all its call's events, sightings included, however the two
/// channels were ordered or named; a step holds the line of the event that completed it.
#[test]
fn tree_nodes_hold_the_lines_of_every_event_of_their_call_and_step() {
    use axt::read::tree::{Node, build};

    fn tools(nodes: &[Node], out: &mut Vec<(String, Vec<u64>)>) {
        for node in nodes {
            match node {
                Node::Tool(tool) => out.push((tool.name.clone(), tool.lines.clone())),
                Node::Step(step) => tools(&step.children, out),
                _ => {}
            }
        }
    }
    /// (fixture, each tool node's name and lines, the first step's start and end lines)
    type Case = (
        &'static str,
        &'static [(&'static str, &'static [u64])],
        (u64, Option<u64>),
    );
    let cases: [Case; 3] = [
        (
            "both-channels-router-first.jsonl",
            &[("Read", &[4, 5, 7, 8]), ("Grep", &[10, 11])],
            (2, Some(13)),
        ),
        (
            "both-channels-agent-first.jsonl",
            &[("Bash", &[5, 6, 7, 8])],
            (2, Some(10)),
        ),
        (
            "both-channels-agent-call-id.jsonl",
            &[("search", &[5, 6, 7, 8]), ("read_file", &[9, 11, 12, 13])],
            (2, Some(15)),
        ),
    ];
    for (fixture, expected, step_lines) in cases {
        let tree = build(&crate::support::read_corpus().join("ok").join(fixture));
        assert!(tree.problems.is_empty(), "{fixture}: {:?}", tree.problems);
        let mut found = Vec::new();
        tools(&tree.root.children, &mut found);
        let expected: Vec<(String, Vec<u64>)> = expected
            .iter()
            .map(|(name, lines)| ((*name).to_owned(), lines.to_vec()))
            .collect();
        assert_eq!(found, expected, "{fixture}");
        let Node::Step(step) = &tree.root.children[0] else {
            panic!("{fixture}: no step first");
        };
        assert_eq!((step.line, step.end_line), step_lines, "{fixture}");
    }
}

/// Without links between runs, the roots an exporter takes without building the forest are
/// the forest's, in its order: parentless runs and runs whose parent is elsewhere first,
/// orphans after, a file without an event a root, duplicates once.
#[test]
fn unlinked_roots_are_the_forest_s_roots_in_its_order() {
    use axt::model::{StepKind, encode_event};
    use axt::read::tree::{forest, may_invoke_runs, unlinked_roots};
    let tmp = crate::support::TempDir::new("unlinked-roots");
    let dir = tmp.path();
    let run_file = |name: &str, run_id: &str, parent: Option<&str>, extra: &str| {
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
    };
    let orphan = run_file("b.jsonl", "b", Some("a"), "");
    let escaped = "{\"seq\":2,\"note\":\"\\u001b[0m call_workflow\"}\n";
    let parent = run_file("a.jsonl", "a", None, escaped);
    let elsewhere = run_file("c.jsonl", "c", Some("not-here"), "");
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
    let forest_roots: Vec<_> = forest(&files)
        .roots
        .into_iter()
        .map(|run| run.file)
        .collect();
    assert_eq!(forest_roots, expected);
}

/// Trees built over one shared set of directory indexes (`build_indexed`, as the OTLP
/// batch export builds a tree per root on its workers) are the trees `build` gives (links,
/// orphans, cycles and missing children alike), the directory read once for all of them:
/// an orphan written after the first tree is not seen by the next tree of the batch
/// (`build` of a single tree, indexing again, sees it).
#[test]
fn trees_sharing_their_directory_s_index_are_the_trees_built_alone() {
    use axt::read::tree::{Indexes, build, build_indexed};
    let tmp = crate::support::TempDir::new("shared-index");
    let dir = tmp.path();
    for entry in std::fs::read_dir(crate::support::read_corpus().join("err/links")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
    }
    let mut files: Vec<_> = (std::fs::read_dir(dir).unwrap())
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 4, "{files:?}");
    let indexes = Indexes::default();
    for file in &files {
        assert_eq!(
            build_indexed(file, &indexes),
            build(file),
            "{}",
            file.display()
        );
    }
    let root = dir.join("links-root.jsonl");
    let late = std::fs::read_to_string(dir.join("links-orphan.jsonl")).unwrap();
    let late = late.replace("links-orphan", "links-late-orphan");
    std::fs::write(dir.join("links-late-orphan.jsonl"), late).unwrap();
    let orphans = |tree: &axt::read::tree::Tree| -> Vec<String> {
        let orphans = tree.problems.iter().filter(|p| p.kind.as_str() == "orphan");
        let names = orphans.map(|p| p.file.file_name().unwrap().to_string_lossy().into_owned());
        names.collect()
    };
    assert_eq!(
        orphans(&build_indexed(&root, &indexes)),
        ["links-orphan.jsonl"]
    );
    assert_eq!(
        orphans(&build(&root)),
        ["links-late-orphan.jsonl", "links-orphan.jsonl"]
    );
}

/// `Reader::open_head` (a small read buffer, for a file's first events) reads what
/// `Reader::open` reads, lines far longer than its buffer included.
#[test]
fn a_reader_of_a_file_s_head_reads_long_lines_whole() {
    use axt::model::encode_event;
    use axt::read::Reader;
    let tmp = crate::support::TempDir::new("head-reader");
    let path = tmp.path().join("long.jsonl");
    let mut bytes = Vec::new();
    for (seq, size) in [(1, 100_000), (2, 10), (3, 40_000)] {
        let kind = if seq == 1 { "workflow" } else { "task" };
        let payload = Payload::Step(StepPayload::new("n".repeat(size), kind.into()));
        let mut event = ExchangeEvent::new("long", EventType::StepStarted, "a", payload);
        event.seq = seq;
        if seq == 1 {
            (event.event_type, event.path) = (EventType::RunStarted, String::new());
        }
        encode_event(&event, &mut bytes).unwrap();
        bytes.push(b'\n');
    }
    std::fs::write(&path, &bytes).unwrap();
    let read = |reader: Reader<std::fs::File>| -> Vec<String> {
        reader.into_iter().map(|item| format!("{item:?}")).collect()
    };
    let whole = read(Reader::open(&path).unwrap());
    let starts: Vec<&str> = whole.iter().map(|w| &w[..w.len().min(200)]).collect();
    assert_eq!(whole.len(), 3, "{starts:?}");
    assert!(whole[0].contains(&"n".repeat(100_000)), "{starts:?}");
    assert_eq!(read(Reader::open_head(&path).unwrap()), whole);
}

/// A directory's runs as a forest: each file once, as a root or under the run that invokes
/// it; an orphan is a root of its own after the others, and reported; the directory is read
/// once for all its roots.
#[test]
fn a_forest_holds_every_file_once_and_reports_what_does_not_fit() {
    use axt::read::tree::{Node, Run, forest};

    fn outline(run: &Run, depth: usize, out: &mut Vec<String>) {
        let file = run.file.file_name().unwrap().to_string_lossy();
        out.push(format!("{}{} ({file})", "  ".repeat(depth), run.run_id));
        fn under(children: &[Node], depth: usize, out: &mut Vec<String>) {
            for node in children {
                match node {
                    Node::Run(run) => outline(run, depth, out),
                    Node::Step(step) => under(&step.children, depth, out),
                    _ => {}
                }
            }
        }
        under(&run.children, depth + 1, out);
    }
    let corpus = crate::support::read_corpus();
    let files = |dir: &str| -> Vec<std::path::PathBuf> {
        let mut files: Vec<_> = std::fs::read_dir(corpus.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        files
    };

    let nested = forest(&files("ok/nested"));
    let mut found = Vec::new();
    for root in &nested.roots {
        outline(root, 0, &mut found);
    }
    assert_eq!(
        found,
        [
            "nest-root (nest-root.jsonl)",
            "  nest-child (nest-child.jsonl)",
            "    nest-grandchild (nest-grandchild.jsonl)",
        ]
    );
    assert!(nested.problems.is_empty(), "{:?}", nested.problems);

    let links = forest(&files("err/links"));
    let mut found = Vec::new();
    for root in &links.roots {
        outline(root, 0, &mut found);
    }
    // links-wrong-parent names a parent no file holds: a root. links-root invokes it, and
    // links-loop (whose cycle back to links-root is not followed); links-orphan names
    // links-root, which never invokes it: a root of its own, after the others.
    assert_eq!(
        found,
        [
            "links-root (links-root.jsonl)",
            "  links-wrong-parent (links-wrong-parent.jsonl)",
            "  links-loop (links-loop.jsonl)",
            "links-orphan (links-orphan.jsonl)",
        ]
    );
    let mut kinds: Vec<(String, &str)> = links
        .problems
        .iter()
        .map(|p| {
            let file = p.file.file_name().unwrap().to_string_lossy().into_owned();
            (file, p.kind.as_str())
        })
        .collect();
    kinds.sort();
    assert_eq!(
        kinds,
        [
            ("links-loop.jsonl".to_owned(), "cycle"),
            ("links-orphan.jsonl".to_owned(), "orphan"),
            ("links-root.jsonl".to_owned(), "missing-child"),
            ("links-wrong-parent.jsonl".to_owned(), "parent-mismatch"),
        ]
    );
}

/// Claude Code 2.1.277+ restarts a resumed session's totals from what its log saved, so a
/// resumed run's `modelUsage` and cost hold the earlier runs too (the published 2.1.280
/// shape in `corpus/normalize/claude/ok/resumed-session-2.1.280-...`). Two runs of one
/// session, normalized, then counted by `axt stats` and exported as one AgentLog tree:
/// the session is counted once, by its larger running total, and the repeat is said.
#[test]
fn a_resumed_claude_sessions_running_total_is_counted_once() {
    let dir = crate::support::TempDir::new("resumed-session-stats");
    let resumed = format!(
        "{}/corpus/normalize/claude/ok/resumed-session-2.1.280-result-carries-earlier-runs-totals.jsonl",
        crate::support::ROOT
    );
    let resumed = std::fs::read_to_string(resumed).unwrap();
    // The session's first run: haiku alone, the totals the resumed run starts from.
    let first = resumed
        .replace("claude-sonnet-5\"", "claude-haiku-4-5-20251001\"")
        .lines()
        .map(|line| {
            let mut record: Value = serde_json::from_str(line).unwrap();
            if record["type"] == "result" {
                let haiku = record["modelUsage"]["claude-haiku-4-5-20251001"].clone();
                record["modelUsage"] = json!({"claude-haiku-4-5-20251001": haiku});
                record["total_cost_usd"] = json!(0.0401218);
            }
            record.to_string() + "\n"
        })
        .collect::<String>();
    for (run, input) in [("first", first), ("resumed", resumed)] {
        let output = crate::cli::axt(
            &[
                "normalize",
                "--provider",
                "claude",
                "--run-id",
                run,
                "--out",
                dir.path().to_str().unwrap(),
            ],
            input.as_bytes(),
        );
        assert_eq!(output.status.code(), Some(0), "{output:?}");
    }
    let output = axt(&["stats", "--json", dir.path().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let total = &report["total"];
    assert_eq!(total["runs"], 2);
    // The resumed run's total (haiku 31/241/44120/6218 + sonnet 4/16/18406/2310) alone,
    // not the first run's haiku added again.
    assert_eq!(
        total["tokens"],
        json!({"input": 35, "output": 257, "cache_read": 62526, "cache_write": 8528, "reasoning": 0})
    );
    let cost = total["cost"]["reported_usd"].as_f64().unwrap();
    assert!((cost - 0.1391536).abs() < 1e-9, "{cost}");
    // The first run's cost, counted and taken back: one agent reported, none estimated.
    assert_eq!(total["cost"]["reported"], 1);
    assert_eq!(total["cost"]["estimated"], 0);
    assert_eq!(total["repeated_session_totals"], 1);
    let text = axt(&["stats", dir.path().to_str().unwrap()]);
    let text = crate::cli::text(&text.stdout);
    assert!(
        text.contains("(0 reasoning) (1 run of a resumed session: its running total counted once)"),
        "{text}"
    );
}
