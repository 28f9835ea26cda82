//! A small workflow recorded through axt's executor seam, with every step kind.
//!
//! ```text
//! cargo run --release --example workflow -- DIR
//! ```
//!
//! Runs workflow `release` and writes its run files into DIR (created when missing): the
//! root run, its sub-workflow `build-pipeline` and that one's own sub-workflow `test-suite`,
//! one `<run-id>.jsonl` each. Prints each file's path on its own line. Then try
//! `axt check DIR/*.jsonl` and `axt tree DIR`.
//!
//! The steps, in order:
//!
//! * `plan` (agent): Claude Code's output replayed from a corpus fixture as if it were the
//!   agent's live stdout, with a prompt and a system prompt. The agent asks for `Bash`; the
//!   executor's router runs it (a builtin tool) when a live subscriber sees the request, so
//!   the call is seen on both channels and recorded once. The router also runs a plugin
//!   tool, `jira_lookup`, that the agent never mentions.
//! * `checks` (parallel): `branch_a` and `branch_b` on two threads at once.
//! * `files` (for_each): one `lint` step per file, at iterations 0, 1, 2.
//! * `poll` (while): `probe` until the service answers, iterations 0, 1, 2.
//! * `approval` (a custom kind, `human_approval`).
//! * `build` (call_workflow): sub-workflow `build-pipeline`, whose `test` step calls
//!   `test-suite`.
//! * `deploy` (command): fails with an error at iteration 0, is retried at iteration 1.
//! * `publish` (operation), then `done` (terminal).

use std::error::Error;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;
use std::thread;

use axt::model::{Block, EventType, StepKind};
use axt::normalize::{ProcessEnd, Provider};
use axt::record::Delivery;
use axt::workflow::{AgentOptions, AgentStep, RouterTools, Run, Step};
use serde_json::json;

/// The agent's stdout, replayed.
pub(crate) const AGENT_OUTPUT: &str =
    "corpus/normalize/claude/ok/plain-session-thinking-text-bash.jsonl";

fn main() -> ExitCode {
    // Written with `writeln!`, not `println!`: a closed stdout is not worth a panic.
    let Some(dir) = std::env::args_os().nth(1) else {
        let _ = writeln!(io::stderr(), "usage: workflow DIR");
        return ExitCode::from(2);
    };
    match run(Path::new(&dir)) {
        Ok(paths) => {
            let mut out = io::stdout().lock();
            for path in paths {
                let _ = writeln!(out, "{}", path.display());
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            let _ = writeln!(io::stderr(), "workflow: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the workflow into `dir`; returns the run files, root first.
pub(crate) fn run(dir: &Path) -> Result<Vec<PathBuf>, Box<dyn Error>> {
    let run = Run::create(dir, "release")?;
    let mut files = vec![run.path().expect("a file recorder").to_owned()];

    plan(&run)?;
    checks(&run)?;

    let files_step = run.step("files", StepKind::ForEach)?;
    for (i, file) in ["src/main.rs", "src/db.rs", "src/routes.rs"]
        .iter()
        .enumerate()
    {
        let lint = files_step.step_at("lint", StepKind::Command, i as u64)?;
        lint.complete(json!({ "file": file, "warnings": 0 }))?;
    }
    files_step.done()?;

    let poll = run.step("poll", StepKind::While)?;
    let mut attempt = 0;
    loop {
        let probe = poll.step_at("probe", StepKind::Operation, attempt)?;
        let up = attempt == 2;
        probe.complete(json!({ "status": if up { 200 } else { 503 } }))?;
        if up {
            break;
        }
        attempt += 1;
    }
    poll.complete(json!({ "iterations": attempt + 1 }))?;

    let approval = run.step("approval", StepKind::custom("human_approval"))?;
    approval.complete(json!({ "approved_by": "release-manager" }))?;

    files.extend(build(&run)?);

    // A failed step, retried: the same path at the next iteration.
    let deploy = run.step_at("deploy", StepKind::Command, 0)?;
    deploy.fail("exit status 1: registry.example.com: connection refused")?;
    let deploy = run.step_at("deploy", StepKind::Command, 1)?;
    deploy.complete(json!({ "exit_code": 0 }))?;

    run.step("publish", StepKind::Operation)?
        .complete(json!({ "release": "v1.4.0" }))?;
    run.step("done", StepKind::Terminal)?
        .complete(json!({ "state": "succeeded" }))?;
    run.done()?;
    Ok(files)
}

/// The agent step: replayed output, a router that serves `Bash` and a plugin tool.
fn plan(run: &Run) -> Result<(), Box<dyn Error>> {
    let options = AgentOptions::new()
        .prompt("List the Rust sources of todo-service.")
        .system_prompt("You are a release assistant. Use Bash for shell commands.")
        .router_tools(RouterTools::named(["Bash", "jira_lookup"]));
    let agent = run
        .step("plan", StepKind::Agent)?
        .agent(Provider::Claude, options)?;

    // The plugin tool: run by the router, never reported by the agent.
    agent
        .tool("jira_lookup", "plugin-1", json!({ "issue": "REL-42" }))?
        .ok(json!({ "status": "In Progress", "fix_version": "1.4.0" }))?;

    // The router: answers the agent's Bash request as soon as a live subscriber sees it.
    let mut live = run.subscribe();
    let (answered, wait_for_answer) = mpsc::channel();
    thread::scope(|threads| -> Result<(), Box<dyn Error>> {
        let agent: &AgentStep = &agent;
        let router = threads.spawn(move || -> Result<(), axt::workflow::RunError> {
            while let Some(delivery) = live.recv() {
                let Delivery::Event(event) = delivery else { continue };
                if event.event_type != EventType::MessageAssistant {
                    continue;
                }
                for block in event.payload.blocks() {
                    if let Block::ToolUse { tool_name, tool_id, tool_input, .. } = &block.block {
                        let call = agent.tool(tool_name, tool_id, tool_input.clone())?;
                        call.ok(json!("src/main.rs\nsrc/db.rs\nsrc/routes/mod.rs\nsrc/routes/todos.rs\ntests/api.rs\n"))?;
                        let _ = answered.send(());
                        return Ok(());
                    }
                }
            }
            Ok(())
        });
        // The agent: writes its output line by line, and waits for a tool's result after
        // asking for it, as a real agent does.
        let output = BufReader::new(std::fs::File::open(fixture(AGENT_OUTPUT))?);
        for line in output.split(b'\n') {
            let mut line = line?;
            line.push(b'\n');
            agent.feed(&line)?;
            if line.windows(10).any(|w| w == b"\"tool_use\"") {
                wait_for_answer.recv()?;
            }
        }
        router.join().expect("the router thread")?;
        Ok(())
    })?;
    agent.finish(ProcessEnd::exited(0))?;
    Ok(())
}

/// A parallel step: two branches, each on its own thread.
fn checks(run: &Run) -> Result<(), Box<dyn Error>> {
    let checks = run.step("checks", StepKind::Parallel)?;
    thread::scope(|threads| {
        let a = threads.spawn(|| branch(&checks, "branch_a", StepKind::Command, "cargo test"));
        let b = threads.spawn(|| branch(&checks, "branch_b", StepKind::Operation, "scan licences"));
        a.join().expect("branch_a")?;
        b.join().expect("branch_b")
    })?;
    checks.done()?;
    Ok(())
}

fn branch(
    parent: &Step,
    name: &str,
    kind: StepKind,
    what: &str,
) -> Result<(), axt::workflow::RunError> {
    let step = parent.step(name, kind)?;
    for i in 0..3 {
        step.step(&format!("part_{i}"), StepKind::Operation)?
            .done()?;
    }
    step.complete(json!({ "ran": what }))
}

/// A sub-workflow that calls one of its own: three runs, three files.
fn build(run: &Run) -> Result<Vec<PathBuf>, Box<dyn Error>> {
    let call = run.step("build", StepKind::CallWorkflow)?;
    let child = call.call_workflow("build-pipeline")?;
    let mut files = vec![child.path().expect("a file recorder").to_owned()];
    child
        .step("compile", StepKind::Command)?
        .complete(json!({ "artifacts": 3 }))?;
    let test = child.step("test", StepKind::CallWorkflow)?;
    let grandchild = test.call_workflow("test-suite")?;
    files.push(grandchild.path().expect("a file recorder").to_owned());
    grandchild
        .step("unit", StepKind::Command)?
        .complete(json!({ "passed": 41, "failed": 0 }))?;
    grandchild.done()?;
    test.done()?;
    child.done()?;
    call.done()?;
    Ok(files)
}

fn fixture(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}
