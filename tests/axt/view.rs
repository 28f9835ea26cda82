//! `axt view`: the page it writes, read back as data, linted, and driven in a real browser.
//!
//! The browser tests load pages `axt view` wrote (a fixture per provider, a three-level
//! workflow, a directory of runs, a run full of hostile markup) into Debian's Chromium,
//! headless, driven by playwright-core through `support/view-browser.mjs`, which reports what
//! it saw as JSON; the assertions are here. Each asserts no console message, no uncaught
//! error, no dialog, no request but the page's own file and no Content-Security-Policy
//! violation, and the exact numbers of runs, steps and tool calls the DOM shows (the same as
//! `axt tree --json` counts). Chromium (`/usr/bin/chromium`, or `AXT_CHROMIUM`) and the web
//! tools (`scripts/web-tools.sh`: `target/web`, or `AXT_WEB_TOOLS`) are installed by
//! `.ci/run`; where either is missing, the test says SKIPPED and why. Screenshots of a
//! workflow run and of a directory index are left in `target/view/`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

use crate::support::{TempDir, normalize_corpus, read_corpus, root};

fn axt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_axt"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("axt runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Writes the page of `inputs` to `out`; returns axt's exit code and stderr.
fn view(inputs: &[&Path], out: &Path) -> (i32, String) {
    let mut args = vec!["view", "-q", "-o", out.to_str().unwrap()];
    args.extend(inputs.iter().map(|p| p.to_str().unwrap()));
    let output = axt(&args);
    (output.status.code().unwrap(), stderr(&output))
}

/// The fixture of each provider the browser test shows, with a string its page must find
/// and how often, and the (seq, text) of an event a link must open.
const PROVIDERS: [(&str, &str, &str, usize, u64, &str); 11] = [
    (
        "claude",
        "ok/subagent-agent-tool-parent-tool-use-id.jsonl",
        // In the Agent call's input (shown on its card, not in the message that made the
        // call), the sub-agent's prompt and Grep call, and the answer.
        "useLegacyTheme",
        5,
        9,
        "Grep",
    ),
    (
        "codex",
        "ok/file-change-kind-string-and-object.jsonl",
        "println!(\"hello\")",
        1,
        8,
        "edit /work/app/src/main.rs",
    ),
    (
        "gemini",
        "ok/tool-error-and-edit-without-output.jsonl",
        "0 occurrences found",
        1,
        5,
        "Failed to edit",
    ),
    (
        "copilot",
        "ok/tool-failure-exit-code-and-permission-denied.jsonl",
        "Permission denied",
        2,
        8,
        "Permission denied",
    ),
    (
        "gemini-api",
        "ok/conversation-function-responses-in-request.jsonl",
        // In the failed call's result and in the answer that reports it.
        "time service is down",
        2,
        6,
        "time",
    ),
    (
        "bedrock",
        "ok/conversation-tool-results-in-request.jsonl",
        "time service is down",
        2,
        6,
        "time",
    ),
    (
        "anthropic",
        "ok/conversation-tool-results-in-request.jsonl",
        "parse::empty",
        2,
        6,
        "$ cargo test",
    ),
    (
        "acp",
        "ok/shared-scenario-shell-command.jsonl",
        "find src",
        2,
        8,
        "There are 12 Rust files in src.",
    ),
    (
        "opencode",
        "ok/shared-scenario-shell-command.jsonl",
        "find src",
        2,
        6,
        "There are 12 Rust files in src.",
    ),
    (
        "pi",
        "ok/shared-scenario-shell-command.jsonl",
        "find src",
        2,
        7,
        "There are 12 Rust files in src.",
    ),
    (
        "openai",
        "ok/parallel-tool-calls-interleaved-by-index.sse",
        "get_weather",
        4,
        6,
        "call_T2",
    ),
];

/// Normalizes a provider fixture into `dir` (undated records at a fixed time); returns the
/// run file.
fn normalize(provider: &str, fixture: &str, dir: &Path) -> PathBuf {
    let before: Vec<PathBuf> = list(dir);
    let input = normalize_corpus(provider).join(fixture);
    let output = axt(&[
        "-q",
        "normalize",
        "--clock",
        "fixed:2026-06-08T08:00:00Z",
        "--out",
        dir.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    assert!(
        output.status.code() == Some(0),
        "{fixture}: {}",
        stderr(&output)
    );
    let made: Vec<PathBuf> = list(dir)
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    assert_eq!(made.len(), 1, "{fixture}: {made:?}");
    made.into_iter().next().unwrap()
}

fn list(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

fn run_id(file: &Path) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    first["run_id"].as_str().unwrap().to_owned()
}

/// What `axt tree --json` counts in a run and its sub-runs: (runs, steps, tool calls,
/// failed tool calls), read with test-local code.
fn tree_counts(file: &Path) -> (u64, u64, u64, u64) {
    fn walk(node: &Value, counts: &mut (u64, u64, u64, u64)) {
        match node["node"].as_str() {
            Some("step") => counts.1 += 1,
            Some("tool") => {
                counts.2 += 1;
                if node["outcome"] != "ok" && node["outcome"] != "pending" {
                    counts.3 += 1;
                }
            }
            Some("run") | None if node.get("run_id").is_some() => counts.0 += 1,
            _ => {}
        }
        for child in node["children"].as_array().into_iter().flatten() {
            walk(child, counts);
        }
    }
    let output = axt(&["tree", "--json", file.to_str().unwrap()]);
    let tree: Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut counts = (0, 0, 0, 0);
    walk(&tree["root"], &mut counts);
    counts
}

/// Where the browser and its driver are, or why the test cannot run.
struct Browser {
    chromium: PathBuf,
    playwright: PathBuf,
}

/// `None`, having said SKIPPED and why, when the test cannot run here.
#[allow(clippy::print_stderr)] // SKIPPED belongs in the test's output, where cargo shows it
fn browser(test: &str) -> Option<Browser> {
    let chromium = PathBuf::from(
        std::env::var_os("AXT_CHROMIUM").unwrap_or_else(|| "/usr/bin/chromium".into()),
    );
    let tools = std::env::var_os("AXT_WEB_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/web"));
    let playwright = tools.join("node_modules/playwright-core/index.mjs");
    let node = Command::new("node").arg("--version").output();
    let missing = if !chromium.is_file() {
        Some(format!(
            "no Chromium at {} (apt-get install chromium; .ci/run does)",
            chromium.display()
        ))
    } else if node.is_err() {
        Some("no node on PATH".to_owned())
    } else if !playwright.is_file() {
        Some(format!(
            "no playwright-core at {} (scripts/web-tools.sh installs it; .ci/run does)",
            playwright.display()
        ))
    } else {
        None
    };
    if let Some(reason) = missing {
        eprintln!("SKIPPED {test}: {reason}");
        return None;
    }
    Some(Browser {
        chromium,
        playwright,
    })
}

/// Runs the driver over `cases`; returns what it saw of each.
fn drive(browser: &Browser, scratch: &Path, cases: Value) -> Vec<Value> {
    let plan = scratch.join("plan.json");
    let body = json!({
        "playwright": browser.playwright,
        "chromium": browser.chromium,
        "cases": cases,
    });
    std::fs::write(&plan, serde_json::to_vec(&body).unwrap()).unwrap();
    let output = Command::new("node")
        .arg(root().join("tests/axt/support/view-browser.mjs"))
        .arg(&plan)
        .output()
        .expect("node runs");
    assert!(
        output.status.success(),
        "the browser driver failed: {}",
        stderr(&output)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn url(page: &Path, hash: &str) -> String {
    format!("file://{}{hash}", page.display())
}

/// Nothing ran, failed, asked or was fetched that the page did not mean.
fn assert_quiet(seen: &Value) {
    let name = &seen["name"];
    for key in ["console", "errors", "dialogs", "requests", "csp"] {
        assert_eq!(seen[key], json!([]), "{name}: {key}");
    }
}

fn result<'a>(seen: &'a Value, action: &str, nth: usize) -> &'a Value {
    seen["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["do"] == action)
        .nth(nth)
        .unwrap_or_else(|| panic!("{}: no {action} result {nth}", seen["name"]))
}

fn shots() -> PathBuf {
    let dir = root().join("target/view");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every provider has its fixture in [`PROVIDERS`]: a new one fails here until it has.
#[test]
fn the_browser_test_has_a_fixture_of_every_provider() {
    let listed: Vec<&str> = PROVIDERS.iter().map(|p| p.0).collect();
    let all: Vec<&str> = axt::model::Provider::ALL
        .iter()
        .map(|p| p.as_str())
        .collect();
    assert_eq!(listed, all, "add a fixture of each provider to PROVIDERS");
}

#[test]
fn view_shows_a_run_of_each_provider_in_chromium() {
    let Some(browser) = browser("view_shows_a_run_of_each_provider_in_chromium") else {
        return;
    };
    let scratch = TempDir::new("view-providers");
    let mut cases = Vec::new();
    let mut expected = Vec::new();
    for (provider, fixture, query, matches, seq, text) in PROVIDERS {
        let dir = scratch.path().join(provider);
        std::fs::create_dir_all(&dir).unwrap();
        let file = normalize(provider, fixture, &dir);
        let page = scratch.path().join(format!("{provider}.html"));
        let (code, problems) = view(&[&file], &page);
        assert_eq!(code, 0, "{provider}: {problems}");
        let id = run_id(&file);
        let hash = format!("#run={id}&seq={seq}");
        cases.push(json!({
            "name": provider,
            "url": url(&page, ""),
            "actions": [
                {"do": "counts"},
                {"do": "search", "query": query},
                {"do": "goto", "hash": hash},
            ],
        }));
        expected.push((provider, tree_counts(&file), matches, seq, text));
    }
    let seen = drive(&browser, scratch.path(), json!(cases));
    // What each provider's run holds, as axt tree counts it: (runs, steps, tools, failed).
    let counts = [
        ("claude", (1, 2, 2, 0)),
        ("codex", (1, 1, 3, 1)),
        ("gemini", (1, 1, 3, 2)),
        ("copilot", (1, 1, 2, 2)),
        ("gemini-api", (1, 1, 2, 1)),
        ("bedrock", (1, 1, 2, 1)),
        ("anthropic", (1, 1, 2, 1)),
        ("acp", (1, 1, 1, 0)),
        ("opencode", (1, 1, 1, 0)),
        ("pi", (1, 1, 1, 0)),
        ("openai", (1, 1, 2, 0)),
    ];
    for ((provider, tree, matches, seq, text), seen) in expected.into_iter().zip(&seen) {
        assert_quiet(seen);
        let want = counts.iter().find(|(p, _)| *p == provider).unwrap().1;
        assert_eq!(tree, want, "{provider}: axt tree");
        let dom = result(seen, "counts", 0);
        assert_eq!(
            (
                dom["runs"].as_u64().unwrap(),
                dom["steps"].as_u64().unwrap(),
                dom["tools"].as_u64().unwrap(),
                dom["failedTools"].as_u64().unwrap()
            ),
            want,
            "{provider}: the DOM"
        );
        assert_eq!(
            dom["view"], "run",
            "{provider}: a one-run page opens on its run"
        );
        let search = result(seen, "search", 0);
        assert_eq!(search["matches"], matches, "{provider}: {search}");
        assert!(search["seq"].is_u64(), "{provider}: {search}");
        let found = search["marked"].as_str().unwrap().to_lowercase();
        let query = PROVIDERS.iter().find(|p| p.0 == provider).unwrap().2;
        assert_eq!(found, query.to_lowercase(), "{provider}");
        let link = result(seen, "goto", 0);
        assert_eq!(link["seq"], seq, "{provider}: {link}");
        assert_eq!(link["inView"], true, "{provider}: {link}");
        let shown = link["text"].as_str().unwrap();
        assert!(shown.contains(text), "{provider}: {shown:?} lacks {text:?}");
    }
}

#[test]
fn view_shows_a_three_level_workflow_in_chromium() {
    let Some(browser) = browser("view_shows_a_three_level_workflow_in_chromium") else {
        return;
    };
    let scratch = TempDir::new("view-workflow");
    let root_file = read_corpus().join("ok/nested/nest-root.jsonl");
    let page = scratch.path().join("workflow.html");
    let (code, problems) = view(&[&root_file], &page);
    assert_eq!(code, 0, "{problems}");
    let shot = shots().join("workflow-run.png");
    let seen = drive(
        &browser,
        scratch.path(),
        json!([{
            "name": "workflow",
            "url": url(&page, ""),
            "height": 1600,
            "actions": [
                {"do": "counts"},
                {"do": "screenshot", "path": shot},
                {"do": "search", "query": "run the unit tests"},
                {"do": "goto", "hash": "#run=nest-grandchild&seq=4"},
                {"do": "goto", "hash": "#run=nest-child&seq=5"},
                {"do": "key", "key": "Escape"},
                {"do": "key", "key": "j"},
                {"do": "key", "key": "t"},
                {"do": "key", "key": "t"},
                {"do": "key", "key": "t"},
            ],
        }]),
    );
    let seen = &seen[0];
    assert_quiet(seen);
    assert_eq!(tree_counts(&root_file), (3, 8, 5, 1));
    let dom = result(seen, "counts", 0);
    assert_eq!(
        (
            &dom["runs"],
            &dom["steps"],
            &dom["tools"],
            &dom["failedTools"],
            &dom["messages"]
        ),
        (&json!(3), &json!(8), &json!(5), &json!(1), &json!(4))
    );
    assert_eq!(dom["title"], "axt view: release");
    // The prompt of the grandchild, found from the root's page, in the grandchild's run
    // (the third run of the page, index 2).
    let search = result(seen, "search", 0);
    assert_eq!(
        (
            &search["matches"],
            &search["marked"],
            &search["seq"],
            &search["run"]
        ),
        (
            &json!(1),
            &json!("Run the unit tests"),
            &json!(3),
            &json!(2)
        )
    );
    // A link into the grandchild opens its Bash call; one into the child its failed call's
    // result, which is the same call's card.
    let grandchild = result(seen, "goto", 0);
    assert_eq!(
        (
            &grandchild["seq"],
            &grandchild["run"],
            &grandchild["inView"]
        ),
        (&json!(4), &json!(2), &json!(true))
    );
    assert!(grandchild["text"].as_str().unwrap().starts_with("Bash"));
    let child = result(seen, "goto", 1);
    assert_eq!((&child["seq"], &child["run"]), (&json!(4), &json!(1)));
    assert!(child["text"].as_str().unwrap().contains("exit status 1"));
    // Escape leaves the search box; j then moves to the first item of the run.
    assert_eq!(result(seen, "key", 1)["cursor"], "DIV");
    // The system's theme (headless Chromium's is light), then dark, light, and auto again.
    let themes: Vec<&Value> = (1..5).map(|n| &result(seen, "key", n)["theme"]).collect();
    assert_eq!(
        themes,
        [
            "light (auto), background rgb(255, 255, 255)",
            "dark (dark), background rgb(21, 24, 29)",
            "light (light), background rgb(255, 255, 255)",
            "light (auto), background rgb(255, 255, 255)",
        ]
    );
}

#[test]
fn view_indexes_a_directory_of_runs_in_chromium() {
    let Some(browser) = browser("view_indexes_a_directory_of_runs_in_chromium") else {
        return;
    };
    let scratch = TempDir::new("view-directory");
    let dir = scratch.path().join("runs");
    std::fs::create_dir_all(&dir).unwrap();
    let mut ids = Vec::new();
    for (provider, fixture, ..) in PROVIDERS {
        ids.push(run_id(&normalize(provider, fixture, &dir)));
    }
    for file in list(&read_corpus().join("ok/nested")) {
        std::fs::copy(&file, dir.join(file.file_name().unwrap())).unwrap();
    }
    let page = scratch.path().join("index.html");
    let (code, problems) = view(&[&dir], &page);
    assert_eq!(code, 0, "{problems}");
    let shot = shots().join("directory-index.png");
    let seen = drive(
        &browser,
        scratch.path(),
        json!([{
            "name": "directory",
            "url": url(&page, ""),
            "actions": [
                {"do": "counts"},
                {"do": "screenshot", "path": shot},
                {"do": "click", "selector": "th button[data-key='cost']"},
                {"do": "rows"},
                {"do": "fill", "selector": "#filter", "text": "gemini"},
                {"do": "rows"},
                {"do": "fill", "selector": "#filter", "text": ""},
                {"do": "click", "selector": "th button[data-key='tools']"},
                {"do": "rows"},
                {"do": "key", "key": "j"},
                {"do": "key", "key": "Enter"},
                {"do": "counts"},
                {"do": "key", "key": "u"},
                {"do": "search", "query": "Cargo.toml"},
            ],
        }]),
    );
    let seen = &seen[0];
    assert_quiet(seen);
    let index = result(seen, "counts", 0);
    // A run of each provider and the workflow's root: its child and grandchild are under it.
    let runs = PROVIDERS.len() + 1;
    assert_eq!(
        (&index["view"], &index["rows"]),
        (&json!("index"), &json!(runs))
    );
    assert_eq!(index["title"], format!("axt view: {runs} runs"));
    // Most expensive first (the workflow's $0.3024 with its sub-runs, Claude's $0.0874,
    // pi's $0.0118, OpenCode's $0 as it reported it); the runs whose cost no provider
    // reported after them, in the page's order (by file name, which is the run id).
    let by_cost = result(seen, "rows", 0)["ids"].clone();
    let at = |name: &str| PROVIDERS.iter().position(|p| p.0 == name).unwrap();
    let costed = [at("claude"), at("pi"), at("opencode")];
    let mut unknown: Vec<&String> = (ids.iter().enumerate())
        .filter(|(i, _)| !costed.contains(i))
        .map(|(_, id)| id)
        .collect();
    unknown.sort();
    let mut expected = vec![json!("nest-root")];
    expected.extend(costed.iter().map(|i| json!(ids[*i])));
    expected.extend(unknown.into_iter().map(|id| json!(id)));
    assert_eq!(by_cost, json!(expected), "{by_cost}");
    // "gemini" finds the Gemini CLI's run and the Gemini API's, in the page's order.
    let mut gemini = [&ids[at("gemini")], &ids[at("gemini-api")]];
    gemini.sort();
    assert_eq!(result(seen, "rows", 1)["ids"], json!(gemini));
    // Most tool calls first: the workflow's five, over its three runs.
    let by_tools = result(seen, "rows", 2)["ids"].clone();
    assert_eq!(by_tools[0], json!("nest-root"), "{by_tools}");
    // j selects the first row, Enter opens its run in the same page, u goes back.
    let opened = result(seen, "key", 1);
    assert_eq!(
        opened["hash"],
        format!("#run={}", by_tools[0].as_str().unwrap())
    );
    assert_eq!(result(seen, "counts", 1)["view"], "run");
    assert_eq!(result(seen, "key", 2)["view"], "index");
    // From the index, search covers every run: Cargo.toml is in the Gemini run only.
    let search = result(seen, "search", 0);
    assert!(search["matches"].as_u64().unwrap() >= 3, "{search}");
    assert_eq!(search["marked"], "Cargo.toml");
}

/// A run's problems are shown where they occurred: each between the events around its line,
/// in the step whose lines span it; the index counts them per run.
#[test]
fn view_shows_each_problem_at_its_line_in_chromium() {
    let Some(browser) = browser("view_shows_each_problem_at_its_line_in_chromium") else {
        return;
    };
    let scratch = TempDir::new("view-problems");
    let page = scratch.path().join("err.html");
    let (code, _) = view(&[&read_corpus().join("err")], &page);
    assert_eq!(code, 1);
    let seen = drive(
        &browser,
        scratch.path(),
        json!([{
            "name": "problems",
            "url": url(&page, "#run=invalid-json"),
            "actions": [{"do": "counts"}, {"do": "items"}],
        }]),
    );
    let seen = &seen[0];
    assert_quiet(seen);
    assert_eq!(result(seen, "counts", 0)["problems"], 3);
    // Lines 4, 6 and 7 are not events (a line cut short, a banner, an object that is not an
    // event): between the prompt (3) and the Bash call (5, its result 8), and before the
    // reply (9); the run's end is line 11.
    assert_eq!(
        result(seen, "items", 0)["items"],
        json!([
            "run-head 1",
            "step-head 2",
            "msg 3",
            "problem 4",
            "tool 5",
            "problem 6",
            "problem 7",
            "msg 9",
            "step-foot 11"
        ])
    );
}

/// The page of a run whose every field holds markup (scripts, styles, handlers, links,
/// a `</script>` to break out of the data): it is all shown as text and none of it runs.
#[test]
fn view_shows_hostile_markup_as_text_and_runs_none_of_it_in_chromium() {
    let Some(browser) =
        browser("view_shows_hostile_markup_as_text_and_runs_none_of_it_in_chromium")
    else {
        return;
    };
    let scratch = TempDir::new("view-hostile");
    let file = read_corpus().join("ok/hostile-markup-in-every-field.jsonl");
    let page = scratch.path().join("hostile.html");
    let (code, problems) = view(&[&file], &page);
    assert_eq!(code, 0, "{problems}");
    let seen = drive(
        &browser,
        scratch.path(),
        json!([{
            "name": "hostile",
            "url": url(&page, ""),
            "actions": [
                {"do": "elements"},
                {"do": "counts"},
                {"do": "text", "contains": [
                    "<script>window.__pwned=9</script><style>*{color:red !important}</style>",
                    "<b onmouseover=\"window.__pwned=10\">exit 1</b>",
                    "$ echo '<svg onload=window.__pwned=8>'",
                    "<img src=x onerror=\"window.__pwned=5\">",
                    "</script><script>window.__pwned=3</script><!-- <script>",
                    "<script>window.__pwned=1;alert(\"run\")</script>",
                ]},
                {"do": "search", "query": "<script>window.__pwned=7"},
                {"do": "goto", "hash": "#run=hostile-%22'%3C%26%3E&seq=6"},
                {"do": "elements"},
            ],
        }]),
    );
    let seen = &seen[0];
    assert_quiet(seen);
    for at in 0..2 {
        let elements = result(seen, "elements", at);
        assert_eq!(
            elements,
            &json!({
                "do": "elements",
                "scripts": 9 + 3, // the page's own code, and its data: events, run, index
                "codeScripts": 9,
                "styles": 1,
                "added": 0,
                "javascriptLinks": 0,
                "inlineHandlers": 0,
                "styleAttributes": 0,
                "bodyDisplay": "block",
                "pwned": "undefined",
            }),
        );
    }
    assert_eq!(
        result(seen, "text", 0)["contains"],
        json!([true, true, true, true, true, true])
    );
    let counts = result(seen, "counts", 0);
    assert_eq!(
        counts["title"],
        r#"axt view: <script>window.__pwned=1;alert("run")</script><img src=x onerror="window.__pwned=2">"#
    );
    // The fenced block of the assistant's Markdown is found and marked as text.
    let search = result(seen, "search", 0);
    assert_eq!(
        (&search["matches"], &search["marked"]),
        (&json!(1), &json!("<script>window.__pwned=7"))
    );
    let link = result(seen, "goto", 0);
    assert_eq!(link["seq"], 5, "{link}"); // seq 6 is the result: its call's card, #5
}

/// The checks above can fail: a page that breaks its own policy (an inline script without its
/// hash, an image from the network) is caught by the same driver.
#[test]
fn the_browser_harness_catches_a_page_that_breaks_its_policy() {
    let Some(browser) = browser("the_browser_harness_catches_a_page_that_breaks_its_policy") else {
        return;
    };
    let scratch = TempDir::new("view-control");
    let page = scratch.path().join("bad.html");
    std::fs::write(
        &page,
        "<!doctype html><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'\">\
         <body data-ready=1><script>alert(1)</script><img src=\"https://example.invalid/x.png\">\
         <p onclick=\"x()\">p</p></body>",
    )
    .unwrap();
    let seen = drive(
        &browser,
        scratch.path(),
        json!([{"name": "control", "url": url(&page, ""), "actions": [{"do": "elements"}]}]),
    );
    let seen = &seen[0];
    assert_eq!(seen["dialogs"], json!([]), "the policy stopped the alert");
    let csp = seen["csp"].as_array().unwrap();
    assert!(
        csp.iter()
            .any(|v| v.as_str().unwrap().starts_with("script-src")),
        "{csp:?}"
    );
    assert!(
        csp.iter()
            .any(|v| v.as_str().unwrap().starts_with("img-src")),
        "{csp:?}"
    );
    assert!(!seen["console"].as_array().unwrap().is_empty());
    let elements = result(seen, "elements", 0);
    assert_eq!(
        (&elements["added"], &elements["inlineHandlers"]),
        (&json!(1), &json!(1))
    );
}

/// ESLint, where `scripts/web-tools.sh` installed it; `None` (SKIPPED) elsewhere.
#[allow(clippy::print_stderr)] // SKIPPED belongs in the test's output, where cargo shows it
fn eslint(test: &str) -> Option<(PathBuf, PathBuf)> {
    let tools = std::env::var_os("AXT_WEB_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/web"));
    let eslint = tools.join("node_modules/.bin/eslint");
    if !eslint.is_file() {
        eprintln!(
            "SKIPPED {test}: no ESLint at {} (scripts/web-tools.sh installs it; .ci/run does)",
            eslint.display()
        );
        return None;
    }
    Some((eslint, tools))
}

/// The page's code and the browser driver pass the project's ESLint rules, and those rules
/// refuse what would let a transcript's text become markup or code: planted one at a time
/// into a page script, each is an error naming its rule.
#[test]
fn the_page_passes_eslint_which_refuses_markup_sinks() {
    let Some((eslint, tools)) = eslint("the_page_passes_eslint_which_refuses_markup_sinks") else {
        return;
    };
    let lint = |args: &[&str], stdin: Option<&str>| -> Output {
        use std::io::Write as _;
        let mut child = Command::new(&eslint)
            .args([
                "--config",
                "scripts/web/eslint.config.mjs",
                "--max-warnings",
                "0",
            ])
            .args(args)
            .env("AXT_WEB_TOOLS", &tools)
            .current_dir(root())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("eslint runs");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.unwrap_or("").as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    let clean = lint(
        &[
            "src/export/html/page/",
            "tests/axt/support/view-browser.mjs",
        ],
        None,
    );
    assert_eq!(
        clean.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&clean.stdout),
        stderr(&clean)
    );
    let planted = [
        ("node.innerHTML = text;", "no-restricted-properties"),
        ("node.outerHTML = text;", "no-restricted-properties"),
        (
            "node.insertAdjacentHTML(\"beforeend\", text);",
            "no-restricted-properties",
        ),
        ("document.write(text);", "no-restricted-properties"),
        (
            "new DOMParser().parseFromString(text, \"text/html\");",
            "no-restricted-properties",
        ),
        (
            "node.setAttribute(\"onclick\", text);",
            "no-restricted-syntax",
        ),
        (
            "node.setAttribute(\"style\", text);",
            "no-restricted-syntax",
        ),
        ("setTimeout(\"go()\", 1);", "no-restricted-syntax"),
        ("eval(text);", "no-eval"),
        ("new Function(text);", "no-new-func"),
    ];
    // One file, one planted line each (line 3 onwards), read back as ESLint's JSON report.
    let mut source = String::from("\"use strict\";\n(function (node, text) {\n");
    for (code, _) in planted {
        source.push_str(&format!("  {code}\n"));
    }
    source.push_str("})(document.body, location.hash);\n");
    let output = lint(
        &[
            "--format",
            "json",
            "--stdin",
            "--stdin-filename",
            "src/export/html/page/planted.js",
        ],
        Some(&source),
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let found: Vec<(u64, String)> = report[0]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["line"].as_u64().unwrap(),
                m["ruleId"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    for (n, (code, rule)) in planted.iter().enumerate() {
        let line = n as u64 + 3;
        assert!(
            found.contains(&(line, (*rule).to_owned())),
            "{code} (line {line}) is not refused by {rule}: {found:?}"
        );
    }
}

/// The data blocks of a page: (element id, text).
fn data_blocks(html: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let open = "<script type=\"application/json\" id=\"";
    let mut rest = html;
    while let Some(at) = rest.find(open) {
        let after = &rest[at + open.len()..];
        let (id, body) = after.split_once("\">").unwrap();
        let end = body.find("</script>").unwrap();
        blocks.push((id.to_owned(), body[..end].to_owned()));
        rest = &body[end..];
    }
    blocks
}

/// The page of the hostile run, as bytes: its data blocks hold no `<` (so nothing in them
/// can end the block or open a comment), every text comes back exactly as the transcript has
/// it, none of the markup appears raw anywhere in the page, and the page's policy names the
/// hash of each of its inline scripts and of its style and allows nothing else.
#[test]
fn view_page_carries_hostile_text_as_escaped_data_under_a_strict_policy() {
    use base64::Engine as _;
    use sha2::Digest as _;

    let scratch = TempDir::new("view-data");
    let file = read_corpus().join("ok/hostile-markup-in-every-field.jsonl");
    let page = scratch.path().join("page.html");
    let (code, problems) = view(&[&file], &page);
    assert_eq!((code, problems.as_str()), (0, ""));
    let html = std::fs::read_to_string(&page).unwrap();
    for raw in [
        "<script>window.__pwned",
        "</script><script>",
        "<img src=x",
        "<style>body",
    ] {
        assert!(!html.contains(raw), "{raw} is in the page as markup");
    }
    let blocks = data_blocks(&html);
    let ids: Vec<&str> = blocks.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["axt-run-0-0", "axt-run-0", "axt-index"]);
    for (id, text) in &blocks {
        assert!(!text.contains('<'), "{id} holds a '<'");
    }
    let run: Value = serde_json::from_str(&blocks[1].1).unwrap();
    assert_eq!(run["chunks"], 1);
    let lines: Vec<Value> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let events: Value = serde_json::from_str(&blocks[0].1).unwrap();
    let events = events.as_array().unwrap();
    assert_eq!(events.len(), lines.len());
    for (shown, line) in events.iter().zip(&lines) {
        assert_eq!(shown["s"], line["seq"]);
        assert_eq!(shown["p"], line["path"]);
        let (shown, line) = (&shown["d"], &line["payload"]);
        for key in ["name", "error", "output", "role"] {
            // A null input or output is left out of the page's data.
            let null = &Value::Null;
            assert_eq!(
                shown.get(key).unwrap_or(null),
                line.get(key).unwrap_or(null),
                "{key}"
            );
        }
        if let Some(blocks) = line.get("blocks") {
            for (a, b) in shown["blocks"]
                .as_array()
                .unwrap()
                .iter()
                .zip(blocks.as_array().unwrap())
            {
                for key in ["text", "thinking", "tool_input", "system_prompt"] {
                    assert_eq!(a.get(key), b.get(key), "{key}");
                }
            }
        }
    }
    let index: Value = serde_json::from_str(&blocks[2].1).unwrap();
    assert_eq!(index["runs"][0]["id"], "hostile-\"'<&>");
    assert_eq!(index["runs"][0]["name"], lines[0]["payload"]["name"]);

    // The policy: each inline script's and the style's hash, and nothing unsafe.
    let policy_start = html.find("content=\"default-src").unwrap() + "content=\"".len();
    let policy = &html[policy_start..policy_start + html[policy_start..].find('"').unwrap()];
    let hash = |text: &str| {
        let digest = sha2::Sha256::digest(text.as_bytes());
        format!(
            "'sha256-{}'",
            base64::engine::general_purpose::STANDARD.encode(digest)
        )
    };
    let mut inline = Vec::new();
    for (open, close) in [("<script>", "</script>"), ("<style>", "</style>")] {
        let mut rest = html.as_str();
        while let Some(at) = rest.find(open) {
            let body = &rest[at + open.len()..];
            let end = body.find(close).unwrap();
            inline.push(hash(&body[..end]));
            rest = &body[end..];
        }
    }
    assert_eq!(inline.len(), 10, "nine scripts and a style");
    let mut sources: Vec<&str> = policy
        .split(' ')
        .filter(|w| w.starts_with("'sha256-"))
        .map(|w| w.trim_end_matches(';'))
        .collect();
    sources.sort_unstable();
    let mut expected: Vec<&str> = inline.iter().map(String::as_str).collect();
    expected.sort_unstable();
    assert_eq!(sources, expected);
    assert!(
        policy.starts_with("default-src 'none'; script-src 'sha256-"),
        "{policy}"
    );
    assert!(
        !policy.contains("unsafe") && !policy.contains("http"),
        "{policy}"
    );
    assert!(
        policy.contains("require-trusted-types-for 'script'"),
        "{policy}"
    );
}

/// `axt view`'s exits and messages: a clean directory 0, problems 1 (each on stderr, as `axt
/// tree` reports them, and on the page), an unreadable input 2 (once), stdin, usage errors;
/// the page written private.
#[test]
fn view_exits_by_what_it_found_and_reports_it_like_tree() {
    use std::os::unix::fs::PermissionsExt as _;

    let scratch = TempDir::new("view-cli");
    let page = scratch.path().join("page.html");
    let nested = read_corpus().join("ok/nested");
    assert_eq!(view(&[&nested], &page), (0, String::new()));
    let mode = std::fs::metadata(&page).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);

    for fixture in [
        "err/seq-gap.jsonl",
        "err/invalid-json.jsonl",
        "err/links/links-root.jsonl",
    ] {
        let file = read_corpus().join(fixture);
        let tree = axt(&["tree", file.to_str().unwrap()]);
        let (code, said) = view(&[&file], &page);
        assert_eq!(code, 1, "{fixture}: {said}");
        assert_eq!(said, stderr(&tree), "{fixture}");
        let html = std::fs::read_to_string(&page).unwrap();
        let index: Value = serde_json::from_str(&data_blocks(&html).last().unwrap().1).unwrap();
        // In the runs it shows, and (an orphan of a file not given) in the index.
        let on_page: u64 = index["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["problems"].as_u64().unwrap())
            .sum::<u64>()
            + index["problems"].as_array().unwrap().len() as u64;
        assert_eq!(on_page as usize, said.lines().count(), "{fixture}");
    }

    let (code, said) = view(&[Path::new("no/such.jsonl")], &page);
    assert_eq!(code, 2);
    assert_eq!(
        said,
        "no/such.jsonl:1: byte 0: io-error: No such file or directory (os error 2)\n"
    );

    let empty = scratch.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let (code, said) = view(&[&empty], &page);
    assert_eq!(code, 1);
    assert!(
        said.ends_with("no-run: no transcript (*.jsonl) found: the page shows no run\n"),
        "{said}"
    );

    // stdin: the root run, its children from the current directory.
    let root_file = nested.join("nest-root.jsonl");
    let output = Command::new(env!("CARGO_BIN_EXE_axt"))
        .args(["view", "-"])
        .current_dir(&nested)
        .stdin(std::fs::File::open(&root_file).unwrap())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let html = String::from_utf8(output.stdout).unwrap();
    assert!(html.starts_with("<!doctype html>"));
    let ids: Vec<String> = data_blocks(&html).into_iter().map(|(id, _)| id).collect();
    assert_eq!(
        ids,
        [
            "axt-run-0-0",
            "axt-run-0",
            "axt-run-1-0",
            "axt-run-1",
            "axt-run-2-0",
            "axt-run-2",
            "axt-index"
        ]
    );

    let both = axt(&["view", "-", root_file.to_str().unwrap()]);
    assert_eq!(both.status.code(), Some(2));
    assert_eq!(
        stderr(&both),
        "axt: `-` (stdin) is one run: give it alone\n"
    );

    // On a terminal (a pseudo-terminal from util-linux's script), without -o: refused.
    let command = format!(
        "{} --color never view {}",
        env!("CARGO_BIN_EXE_axt"),
        root_file.display()
    );
    let tty = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
        .expect("script (util-linux) runs");
    assert_eq!(tty.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&tty.stdout).replace('\r', ""),
        "axt: the page is HTML, not for a terminal: give -o FILE, or redirect stdout\n"
    );
}
