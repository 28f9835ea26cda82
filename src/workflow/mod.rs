//! The executor's seam: a whole workflow run recorded as it happens, through scopes that
//! cannot leave a step dangling.
//!
//! An executor opens a [`Run`], opens a [`Step`] for every step it executes (nested steps,
//! loop bodies, retries, parallel branches on other threads), feeds an agent step's output
//! to an [`AgentStep`] as the agent writes it, records every tool call its router runs with
//! a [`ToolCall`], and starts sub-workflows from `call_workflow` steps, each in a file of
//! its own. The scopes write the lifecycle events, compose paths and iterations, time
//! every step and call, and keep the transcript's promises:
//!
//! * every `step.started` has exactly one `step.completed`, and every router `tool.call`
//!   exactly one `tool.result`, whatever ends them: the owner, an early return or `?`, a
//!   panic (a dropped scope completes as failed, saying why), its parent step, or its run;
//! * every event recorded inside a scope carries the scope's path and iteration;
//! * a call the router captured and the agent also reported is recorded once;
//! * a sub-workflow's run is linked both ways, to any depth.
//!
//! Storage is behind the [`RunRecorder`](crate::record::RunRecorder) port: a
//! [`Recorder`](crate::record::Recorder) writes `<dir>/<run-id>.jsonl` (the default;
//! [`Run::create`]), a [`MemoryRecorder`](crate::record::MemoryRecorder) keeps the same
//! lines in memory for an executor's own tests. Every scope is `Send + Sync + 'static`.
//!
//! # Guide
//!
//! ## Record one agent step
//!
//! An agent step records the prompt and the system prompt it was given, then normalizes
//! the agent's stdout live, inside the step. Here the "agent" is two lines of Claude Code
//! stream-json; an executor would hand over each chunk its read of the pipe returns (or
//! the pipe itself, with [`AgentStep::run`]).
//!
//! ```
//! use axt::model::{EventType, StepKind};
//! use axt::model::{ProcessEnd, Provider};
//! use axt::record::{MemoryRecorder, RecorderOptions};
//! use axt::workflow::{AgentOptions, Run};
//!
//! let recorder = MemoryRecorder::new("run-1", RecorderOptions::default())?;
//! let store = recorder.store();
//! let run = Run::start(recorder, "review")?;
//!
//! let step = run.step("review", StepKind::Agent)?;
//! let agent = step.agent(
//!     Provider::Claude,
//!     AgentOptions::new()
//!         .prompt("Review main.go.")
//!         .system_prompt("You are a careful reviewer."),
//! )?;
//! agent.feed(br#"{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Looks good."}]}}
//! {"type":"result","subtype":"success","is_error":false,"result":"Looks good."}
//! "#)?;
//! let meta = agent.finish(ProcessEnd::exited(0))?;
//! assert_eq!(meta.answer.as_deref(), Some("Looks good."));
//! run.done()?;
//!
//! let types: Vec<String> = store.events("run-1").iter().map(|e| e.event_type.to_string()).collect();
//! assert_eq!(types, [
//!     "run.started", "step.started", "message.user", "message.assistant",
//!     "step.completed", "run.completed",
//! ]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Steps end exactly once
//!
//! [`Step::complete`], [`Step::done`] and [`Step::fail`] end a step with its result or its
//! error; its `step.completed` carries its `duration_ms` too. A step that is dropped
//! instead (an early return, a `?`, a panic) completes as failed with the reason, and so
//! does every step still open under a step or a run that ends.
//!
//! ```
//! use axt::model::{Payload, StepKind};
//! use axt::record::{MemoryRecorder, RecorderOptions};
//! use axt::workflow::{Run, RunError};
//!
//! fn build(run: &Run) -> Result<(), Box<dyn std::error::Error>> {
//!     let step = run.step("build", StepKind::Command)?;
//!     std::fs::read("no/such/Makefile")?; // fails: `step` is dropped, and completed as failed
//!     step.done()?;
//!     Ok(())
//! }
//!
//! let recorder = MemoryRecorder::new("run-2", RecorderOptions::default())?;
//! let store = recorder.store();
//! let run = Run::start(recorder, "ci")?;
//! assert!(build(&run).is_err());
//! run.fail("build failed")?;
//!
//! let events = store.events("run-2");
//! let Payload::Step(completed) = &events[2].payload else { unreachable!() };
//! assert_eq!(completed.error.as_deref(), Some("the step was dropped without being completed"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Paths and iterations
//!
//! A step's path is its parent's plus its name (`deploy.push`). Loop bodies and retries
//! carry their iteration ([`Step::step_at`], [`Run::step_at`]); a step inherits its
//! parent's. Two steps with the same path and iteration cannot run at once
//! ([`RunError::StepRunning`]): a tree could not tell them apart.
//!
//! ```
//! use axt::model::StepKind;
//! use axt::record::{MemoryRecorder, RecorderOptions};
//! use axt::workflow::Run;
//!
//! let recorder = MemoryRecorder::new("run-3", RecorderOptions::default())?;
//! let run = Run::start(recorder, "lint")?;
//! let files = run.step("files", StepKind::ForEach)?;
//! for (i, file) in ["a.rs", "b.rs"].iter().enumerate() {
//!     let body = files.step_at("check", StepKind::Command, i as u64)?;
//!     let parse = body.step("parse", StepKind::Operation)?; // path files.check.parse, iteration i
//!     assert_eq!((parse.path(), parse.iteration()), ("files.check.parse", i as u64));
//!     parse.done()?;
//!     body.complete(serde_json::json!({ "file": file }))?;
//! }
//! files.done()?;
//! run.done()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Parallel branches
//!
//! `&Step` is all a branch needs, so branches open their steps from their own threads.
//!
//! ```
//! use axt::model::StepKind;
//! use axt::record::{MemoryRecorder, RecorderOptions};
//! use axt::workflow::Run;
//!
//! let recorder = MemoryRecorder::new("run-4", RecorderOptions::default())?;
//! let run = Run::start(recorder, "checks")?;
//! let parallel = run.step("parallel_block", StepKind::Parallel)?;
//! std::thread::scope(|threads| {
//!     for branch in ["branch_a", "branch_b"] {
//!         let parallel = &parallel;
//!         threads.spawn(move || parallel.step(branch, StepKind::Command)?.done());
//!     }
//! });
//! parallel.done()?;
//! run.done()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Tools captured at the router
//!
//! [`Step::tool`] (or [`AgentStep::tool`]) records a call the executor's router runs:
//! `tool.call` now, `tool.result` when the scope ends ([`ToolCall::ok`],
//! [`ToolCall::error`], [`ToolCall::finish`], or dropped: failed), fidelity `router`, with
//! its duration. Builtin and plugin tools alike.
//!
//! ```
//! use axt::model::StepKind;
//! use axt::record::{MemoryRecorder, RecorderOptions};
//! use axt::workflow::Run;
//! use serde_json::json;
//!
//! let recorder = MemoryRecorder::new("run-5", RecorderOptions::default())?;
//! let run = Run::start(recorder, "fetch")?;
//! let step = run.step("fetch", StepKind::Operation)?;
//! let call = step.tool("http_get", "call-1", json!({ "url": "https://example.com" }))?;
//! call.ok(json!({ "status": 200 }))?;
//! step.done()?;
//! run.done()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ### Calls seen on both channels
//!
//! Inside an agent step, the agent usually reports the calls the router runs for it. The
//! step's call ledger records each such call once, as the router's pair, whichever
//! channel sees it first; the agent's `tool_use` block stays in its message as
//! provenance. The rule and how sightings are matched (same id; else same tool and input,
//! the agent's id then written as `agent_call_id`) are in the [wire
//! format](crate::model#calls-seen-on-both-channels); how the order is handled (the
//! agent's calls are held until the router claims them or their result arrives) is
//! [`RouterTools`]'s.
//!
//! ## Sub-workflows
//!
//! A `call_workflow` step starts a child [`Run`] in a file of its own
//! ([`Step::call_workflow`]): the parent records `step.call_workflow.started` and
//! `.completed` with `child_run_id`, every event of the child carries `parent_run_id`,
//! and the child can call workflows of its own.
//!
//! ```
//! use axt::model::StepKind;
//! use axt::record::{MemoryRecorder, RecorderOptions};
//! use axt::workflow::Run;
//!
//! let recorder = MemoryRecorder::new("root", RecorderOptions::default())?;
//! let store = recorder.store();
//! let run = Run::start(recorder, "release")?;
//! let call = run.step("build", StepKind::CallWorkflow)?;
//! let child = call.call_workflow("build-pipeline")?;
//! child.step("compile", StepKind::Command)?.done()?;
//! child.done()?;
//! call.done()?;
//! run.done()?;
//! assert_eq!(store.runs().len(), 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## When the disk refuses a write
//!
//! A full disk or an I/O error does not end a run, nor leave a step open: the event the
//! disk refused is kept, with its time, and every later event queues behind it, to be
//! written in order (and numbered then, so `seq` stays continuous) as soon as the disk
//! has room: retried with a backoff on the next event, when the executor asks
//! ([`Run::retry_writes`]), and for a while when the run ends ([`WriteRetry`]). A scope
//! method whose event waits returns as if it was written (a `seq` it returns is `None`);
//! [`Run::write_report`] says what waits, what was written late and what was lost. What
//! cannot be kept (past [`WriteRetry::max_bytes`], or still refused when the end's retries
//! run out) is counted by type, said in `run.completed` when that gets written, and
//! ending the run returns [`RunError::Unwritten`]. An agent step's raw output file keeps
//! the same promise for its bytes. A run belongs to the process that started it: after
//! `fork()`, the child's copies of its scopes write nothing ([`RunError::OtherProcess`]).
//!
//! ## Files, and testing without them
//!
//! [`Run::create`] records into `<dir>/<run-id>.jsonl` with a fresh run id;
//! [`Run::start`] takes any recorder (a [`Recorder`](crate::record::Recorder) with your
//! run id and [options](crate::record::RecorderOptions): durability, masking, subscriber
//! buffers). In tests, a [`MemoryRecorder`](crate::record::MemoryRecorder) keeps the exact
//! lines; [`MemoryStore::write_to`](crate::record::MemoryStore::write_to) puts them on disk
//! for `axt check` and `axt tree`. [`Run::subscribe`] watches a run live.
//!
//! `examples/workflow.rs` runs a workflow with every step kind, parallel branches on two
//! threads, a three-level sub-workflow, a live agent step and router tools:
//! `cargo run --release --example workflow -- DIR`.

mod agent;
mod backlog;
mod calls;
mod core;
mod error;
mod ids;
mod raw;
mod run;
mod step;
mod tool;

pub use agent::{AgentOptions, AgentStep, OnDiagnostic};
pub(crate) use agent::{read_chunks, user};
pub use backlog::{WriteReport, WriteRetry};
pub use calls::RouterTools;
pub use error::RunError;
pub(crate) use raw::{RawOut, open_raw};
pub use run::Run;
pub use step::Step;
pub use tool::ToolCall;
