//! The executor's seam in Python: `Run`, `Step`, `AgentStep`, `ToolCall` and
//! `Subscription`, each a thin handle on the crate's scope of the same name.
//!
//! Every handle holds its Rust scope in an `RwLock<Option<...>>`: shared (read) for what the
//! Rust scope does through `&self` (opening steps from several threads, feeding an agent
//! while another thread records a tool call), taken (write) to end it; `None` is "ended".
//! The locks are only ever taken with the GIL released, and nothing runs Python code while
//! holding one, so no thread can wait on a lock while holding the GIL another needs.
//!
//! As context managers: a block that ends normally ends its scope successfully (a step
//! done, a tool call with no output, a run done); a block that raises ends it as failed
//! with the exception's message, and the exception goes on.

use std::path::PathBuf;
use std::sync::{Mutex, PoisonError, RwLock, RwLockReadGuard};
use std::time::Duration;

use axt::model::{StepKind, encode_event};
use axt::normalize::{ProcessEnd, RunMeta};
use axt::record::{Delivery, Recorder, RecorderOptions, Subscription as AxtSubscription};
use axt::workflow::{
    AgentOptions, AgentStep as AxtAgentStep, RouterTools, Run as AxtRun, RunError, Step as AxtStep,
    ToolCall as AxtToolCall,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use serde_json::Value;

use crate::convert;
use crate::errors::{InputError, RecordError, StepError, record_error, run_error};
use crate::normalize::provider_named;

fn read<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

fn take<T>(lock: &RwLock<Option<T>>) -> Option<T> {
    lock.write().unwrap_or_else(PoisonError::into_inner).take()
}

/// What a `with` block's exception makes of its scope: `None` when the block ended
/// normally, else the failure's text.
fn failure_of(exception: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    if exception.is_none() {
        Ok(None)
    } else {
        message_of(exception).map(Some)
    }
}

/// The message a scope ends with when its block raised: the exception's own text, or its
/// type's name when it has none.
fn message_of(exception: &Bound<'_, PyAny>) -> PyResult<String> {
    let text = exception.str()?.to_string();
    if text.is_empty() {
        Ok(exception.get_type().name()?.to_string())
    } else {
        Ok(text)
    }
}

/// A scope's copy in a forked child ends nothing: the run is its parent's, and the child's
/// `with` block leaving it is no error (using the copy otherwise raises `StepError`).
fn forked_copy(error: &RunError) -> bool {
    matches!(error, RunError::OtherProcess { .. })
}

/// Ending a scope that something else (its parent, its run) ended first is no error for a
/// block that is already failing.
fn already_ended(error: &RunError) -> bool {
    matches!(
        error,
        RunError::RunEnded { .. } | RunError::StepEnded { .. }
    )
}

fn optional_value(object: Option<&Bound<'_, PyAny>>) -> PyResult<Value> {
    match object {
        Some(object) => convert::to_value(object),
        None => Ok(Value::Null),
    }
}

/// A fresh call id for a router tool call that was given none.
fn new_call_id(py: Python<'_>) -> PyResult<String> {
    let hex: String = py
        .import("uuid")?
        .call_method0("uuid4")?
        .getattr("hex")?
        .extract()?;
    Ok(format!("call_{hex}"))
}

/// A workflow run, recorded in `<dir>/<run-id>.jsonl`.
#[pyclass(module = "axt", name = "Run", frozen)]
pub(crate) struct Run {
    run: RwLock<Option<AxtRun>>,
    run_id: String,
    parent_run_id: Option<String>,
    path: Option<PathBuf>,
}

impl Run {
    fn wrap(run: AxtRun) -> Run {
        Run {
            run_id: run.run_id().to_owned(),
            parent_run_id: run.parent_run_id().map(str::to_owned),
            path: run.path().map(PathBuf::from),
            run: RwLock::new(Some(run)),
        }
    }

    fn ended(&self) -> PyErr {
        StepError::new_err(format!("run {} has ended", self.run_id))
    }

    fn end(&self, py: Python<'_>, error: Option<String>, result: Value) -> PyResult<()> {
        py.detach(|| match take(&self.run) {
            Some(run) => run.end(error, result).map_err(run_error),
            None => Err(self.ended()),
        })
    }
}

#[pymethods]
impl Run {
    #[new]
    #[pyo3(signature = (dir, run_id = None, name = "workflow"))]
    fn new(py: Python<'_>, dir: PathBuf, run_id: Option<String>, name: &str) -> PyResult<Run> {
        let run = py.detach(|| match run_id {
            Some(run_id) => {
                let recorder = Recorder::create(&dir, &run_id, RecorderOptions::default())
                    .map_err(record_error)?;
                AxtRun::start(recorder, name).map_err(run_error)
            }
            None => AxtRun::create(&dir, name).map_err(run_error),
        })?;
        Ok(Run::wrap(run))
    }

    /// The run id.
    #[getter]
    fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The run that invoked this one, for a sub-workflow.
    #[getter]
    fn parent_run_id(&self) -> Option<&str> {
        self.parent_run_id.as_deref()
    }

    /// The transcript file.
    #[getter]
    fn path(&self) -> Option<PathBuf> {
        self.path.clone()
    }

    /// Whether `run.completed` has been written.
    #[getter]
    fn has_ended(&self) -> bool {
        read(&self.run).as_ref().is_none_or(AxtRun::has_ended)
    }

    /// Opens top-level step `name` of `kind`, at `iteration` (0 unless given).
    #[pyo3(signature = (name, kind = "command", iteration = None))]
    fn step(
        &self,
        py: Python<'_>,
        name: &str,
        kind: &str,
        iteration: Option<u64>,
    ) -> PyResult<Step> {
        let kind = StepKind::custom(kind);
        let step = py.detach(|| {
            let run = read(&self.run);
            let run = run.as_ref().ok_or_else(|| self.ended())?;
            match iteration {
                Some(iteration) => run.step_at(name, kind, iteration),
                None => run.step(name, kind),
            }
            .map_err(run_error)
        })?;
        Ok(Step::wrap(step))
    }

    /// A live view of the events recorded from now on.
    fn subscribe(&self, py: Python<'_>) -> PyResult<Subscription> {
        let subscription = py.detach(|| {
            read(&self.run)
                .as_ref()
                .map(AxtRun::subscribe)
                .ok_or_else(|| self.ended())
        })?;
        Ok(Subscription {
            subscription: Mutex::new(subscription),
        })
    }

    /// Ends the run with `result` (any JSON-serializable value).
    #[pyo3(signature = (result = None))]
    fn complete(&self, py: Python<'_>, result: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let result = optional_value(result)?;
        self.end(py, None, result)
    }

    /// Ends the run with no result.
    fn done(&self, py: Python<'_>) -> PyResult<()> {
        self.end(py, None, Value::Null)
    }

    /// Ends the run as failed with `error`.
    fn fail(&self, py: Python<'_>, error: &str) -> PyResult<()> {
        let error = if error.is_empty() {
            "the run failed"
        } else {
            error
        };
        self.end(py, Some(error.to_owned()), Value::Null)
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (_kind, exception, _traceback))]
    fn __exit__(
        &self,
        py: Python<'_>,
        _kind: &Bound<'_, PyAny>,
        exception: &Bound<'_, PyAny>,
        _traceback: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let failure = failure_of(exception)?;
        let failing = failure.is_some();
        let ended = py.detach(|| match take(&self.run) {
            Some(run) => run.end(failure, Value::Null),
            None => Ok(()),
        });
        match ended {
            Err(error) if !(forked_copy(&error) || (failing && already_ended(&error))) => {
                Err(run_error(error))
            }
            _ => Ok(false),
        }
    }

    fn __repr__(&self) -> String {
        format!("Run(run_id={:?})", self.run_id)
    }
}

/// What a `Step` handle holds: its open scope, the agent step it became, or nothing.
enum StepState {
    Open(AxtStep),
    Agent(Py<AgentStep>),
    Ended,
}

/// A step in flight.
#[pyclass(module = "axt", name = "Step", frozen)]
pub(crate) struct Step {
    state: RwLock<StepState>,
    path: String,
    name: String,
    kind: String,
    iteration: u64,
    run_id: String,
}

impl Step {
    fn wrap(step: AxtStep) -> Step {
        Step {
            path: step.path().to_owned(),
            name: step.name().to_owned(),
            kind: step.kind().as_str().to_owned(),
            iteration: step.iteration(),
            run_id: step.run_id().to_owned(),
            state: RwLock::new(StepState::Open(step)),
        }
    }

    fn ended(&self) -> PyErr {
        StepError::new_err(format!(
            "step {} (iteration {}) has ended",
            self.path, self.iteration
        ))
    }

    /// Runs `f` on the open step, with the GIL released.
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&AxtStep) -> Result<T, RunError> + Send,
    ) -> PyResult<T> {
        py.detach(|| match &*read(&self.state) {
            StepState::Open(step) => f(step).map_err(run_error),
            StepState::Agent(_) => Err(StepError::new_err(format!(
                "step {} is an agent step now: use the AgentStep it returned",
                self.path
            ))),
            StepState::Ended => Err(self.ended()),
        })
    }

    /// Takes the open step out, to end it or turn it into an agent step.
    fn take_open(&self) -> Option<AxtStep> {
        let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
        match std::mem::replace(&mut *state, StepState::Ended) {
            StepState::Open(step) => Some(step),
            other => {
                *state = other;
                None
            }
        }
    }

    fn end(&self, py: Python<'_>, error: Option<String>, result: Value) -> PyResult<()> {
        py.detach(|| match self.take_open() {
            Some(step) => match error {
                Some(error) => step.fail(error),
                None => step.complete(result),
            }
            .map_err(run_error),
            None => Err(self.ended()),
        })
    }
}

#[pymethods]
impl Step {
    /// Its path: its parent's path, a `.`, and its name.
    #[getter]
    fn path(&self) -> &str {
        &self.path
    }

    /// Its name.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// Its kind.
    #[getter]
    fn kind(&self) -> &str {
        &self.kind
    }

    /// Its loop or retry iteration.
    #[getter]
    fn iteration(&self) -> u64 {
        self.iteration
    }

    /// The run it belongs to.
    #[getter]
    fn run_id(&self) -> &str {
        &self.run_id
    }

    /// Whether it is still open (not ended by itself, its parent or its run).
    #[getter]
    fn is_open(&self, py: Python<'_>) -> bool {
        py.detach(|| match &*read(&self.state) {
            StepState::Open(step) => step.is_open(),
            StepState::Agent(_) | StepState::Ended => false,
        })
    }

    /// Opens child step `name` of `kind` at `iteration` (this step's unless given).
    #[pyo3(signature = (name, kind = "command", iteration = None))]
    fn step(
        &self,
        py: Python<'_>,
        name: &str,
        kind: &str,
        iteration: Option<u64>,
    ) -> PyResult<Step> {
        let kind = StepKind::custom(kind);
        let step = self.with(py, |step| match iteration {
            Some(iteration) => step.step_at(name, kind, iteration),
            None => step.step(name, kind),
        })?;
        Ok(Step::wrap(step))
    }

    /// Opens a tool call captured at the executor's router, in this step.
    #[pyo3(signature = (name, call_id = None, input = None))]
    fn tool(
        &self,
        py: Python<'_>,
        name: &str,
        call_id: Option<String>,
        input: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<ToolCall> {
        let input = optional_value(input)?;
        let call_id = match call_id {
            Some(id) => id,
            None => new_call_id(py)?,
        };
        let call = self.with(py, |step| step.tool(name, call_id, input))?;
        Ok(ToolCall::wrap(call))
    }

    /// Starts the sub-workflow `name` of this `call_workflow` step: a child run in a file
    /// of its own.
    #[pyo3(signature = (name, run_id = None))]
    fn call_workflow(&self, py: Python<'_>, name: &str, run_id: Option<String>) -> PyResult<Run> {
        let run = self.with(py, |step| match &run_id {
            Some(id) => step.call_workflow_with_id(id, name),
            None => step.call_workflow(name),
        })?;
        Ok(Run::wrap(run))
    }

    /// Turns this `agent` step into a live capture of its agent's output.
    #[pyo3(signature = (provider, prompt = None, system_prompt = None, router_tools = None, *, raw_file = None))]
    fn agent(
        slf: &Bound<'_, Self>,
        provider: &str,
        prompt: Option<String>,
        system_prompt: Option<String>,
        router_tools: Option<&Bound<'_, PyAny>>,
        raw_file: Option<PathBuf>,
    ) -> PyResult<Py<AgentStep>> {
        let py = slf.py();
        let this = slf.get();
        let provider = provider_named(provider)?;
        let mut options = AgentOptions::new().router_tools(router_tools_of(router_tools)?);
        if let Some(prompt) = prompt {
            options = options.prompt(prompt);
        }
        if let Some(system_prompt) = system_prompt {
            options = options.system_prompt(system_prompt);
        }
        if let Some(path) = raw_file {
            options = options.raw_file(path);
        }
        let agent = py.detach(|| match this.take_open() {
            Some(step) => step.agent(provider, options).map_err(run_error),
            None => Err(this.ended()),
        })?;
        let agent = Py::new(py, AgentStep::wrap(agent))?;
        let mut state = this.state.write().unwrap_or_else(PoisonError::into_inner);
        *state = StepState::Agent(agent.clone_ref(py));
        Ok(agent)
    }

    /// Completes the step with `result` (any JSON-serializable value).
    #[pyo3(signature = (result = None))]
    fn complete(&self, py: Python<'_>, result: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let result = optional_value(result)?;
        self.end(py, None, result)
    }

    /// Completes the step with no result.
    fn done(&self, py: Python<'_>) -> PyResult<()> {
        self.end(py, None, Value::Null)
    }

    /// Completes the step as failed with `error`.
    fn fail(&self, py: Python<'_>, error: &str) -> PyResult<()> {
        self.end(py, Some(error.to_owned()), Value::Null)
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (_kind, exception, _traceback))]
    fn __exit__(
        &self,
        py: Python<'_>,
        _kind: &Bound<'_, PyAny>,
        exception: &Bound<'_, PyAny>,
        _traceback: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let failure = failure_of(exception)?;
        let agent = match &*read(&self.state) {
            StepState::Agent(agent) => Some(agent.clone_ref(py)),
            _ => None,
        };
        if let Some(agent) = agent {
            agent.get().exit(py, failure)?;
            return Ok(false);
        }
        let failing = failure.is_some();
        let ended = py.detach(|| match self.take_open() {
            Some(step) => match failure {
                Some(error) => step.fail(error),
                None => step.done(),
            },
            None => Ok(()),
        });
        match ended {
            Err(error) if !(forked_copy(&error) || (failing && already_ended(&error))) => {
                Err(run_error(error))
            }
            _ => Ok(false),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "Step(path={:?}, kind={:?}, iteration={})",
            self.path, self.kind, self.iteration
        )
    }
}

/// `router_tools`: None or "all" (every call may come through the router), "none", or
/// the names of the tools the router serves.
fn router_tools_of(tools: Option<&Bound<'_, PyAny>>) -> PyResult<RouterTools> {
    let Some(tools) = tools else {
        return Ok(RouterTools::All);
    };
    if let Ok(word) = tools.cast::<PyString>() {
        return match &*word.to_cow()? {
            "all" => Ok(RouterTools::All),
            "none" => Ok(RouterTools::None),
            other => Err(PyValueError::new_err(format!(
                "router_tools {other:?}: \"all\", \"none\", or a list of tool names"
            ))),
        };
    }
    let names: Vec<String> = tools
        .try_iter()
        .map_err(|_| PyTypeError::new_err("router_tools: \"all\", \"none\", or tool names"))?
        .map(|name| name.and_then(|n| n.extract::<String>()))
        .collect::<PyResult<_>>()?;
    Ok(RouterTools::named(names))
}

/// An agent step capturing its agent's output live.
#[pyclass(module = "axt", name = "AgentStep", frozen)]
pub(crate) struct AgentStep {
    agent: RwLock<Option<AxtAgentStep>>,
    path: String,
    /// The metadata `finish` returned.
    finished: Mutex<Option<RunMeta>>,
}

impl AgentStep {
    fn wrap(agent: AxtAgentStep) -> AgentStep {
        AgentStep {
            path: agent.step().path().to_owned(),
            agent: RwLock::new(Some(agent)),
            finished: Mutex::new(None),
        }
    }

    fn ended(&self) -> PyErr {
        StepError::new_err(format!("agent step {} has finished", self.path))
    }

    fn with<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&AxtAgentStep) -> Result<T, RunError> + Send,
    ) -> PyResult<T> {
        py.detach(|| match &*read(&self.agent) {
            Some(agent) => f(agent).map_err(run_error),
            None => Err(self.ended()),
        })
    }

    fn end(&self, py: Python<'_>, end: ProcessEnd) -> PyResult<Option<RunMeta>> {
        py.detach(|| match take(&self.agent) {
            Some(agent) => {
                let meta = agent.finish(end).map_err(run_error)?;
                *self.finished.lock().unwrap_or_else(PoisonError::into_inner) = Some(meta.clone());
                Ok(Some(meta))
            }
            None => Ok(None),
        })
    }

    /// The end of a `with` block (its own, or its step's): a failure is the process's
    /// note; without one, the output's own status stands.
    fn exit(&self, py: Python<'_>, failure: Option<String>) -> PyResult<()> {
        let end = match failure {
            Some(note) => ProcessEnd {
                note: Some(note),
                ..ProcessEnd::default()
            },
            None => ProcessEnd::exited(0),
        };
        let ended = py.detach(|| match take(&self.agent) {
            Some(agent) => agent.finish(end).map(Some),
            None => Ok(None),
        });
        match ended {
            Ok(meta) => {
                if meta.is_some() {
                    *self.finished.lock().unwrap_or_else(PoisonError::into_inner) = meta;
                }
                Ok(())
            }
            Err(error) if forked_copy(&error) => Ok(()),
            Err(error) => Err(run_error(error)),
        }
    }
}

#[pymethods]
impl AgentStep {
    /// The step's path.
    #[getter]
    fn path(&self) -> &str {
        &self.path
    }

    /// Whether it is still capturing (not finished).
    #[getter]
    fn is_open(&self, py: Python<'_>) -> bool {
        py.detach(|| read(&self.agent).is_some())
    }

    /// Feeds the next bytes of the agent's stdout, split anywhere.
    fn feed(&self, py: Python<'_>, data: &[u8]) -> PyResult<()> {
        self.with(py, |agent| agent.feed(data))
    }

    /// Feeds everything a binary stream yields until its end: `proc.stdout` of a `Popen`.
    fn feed_from(&self, py: Python<'_>, stream: &Bound<'_, PyAny>) -> PyResult<()> {
        let read1 = stream.hasattr("read1")?;
        loop {
            let chunk = if read1 {
                stream.call_method1("read1", (65536,))?
            } else {
                stream.call_method1("read", (65536,))?
            };
            if chunk.is_none() {
                // A non-blocking stream with nothing ready.
                continue;
            }
            let bytes: &[u8] = chunk.extract()?;
            if bytes.is_empty() {
                return Ok(());
            }
            self.feed(py, bytes)?;
        }
    }

    /// Runs an ACP agent (`command`, an argv) as its ACP client, this step (of provider
    /// ``acp``) recording the exchange: ``initialize``, ``session/new`` in ``workdir`` (default
    /// the current directory), one ``session/prompt``; permission requests answered by
    /// ``permission`` (``"deny"`` or ``"allow"``), file and terminal requests served inside
    /// ``workdir`` only. Then the agent's stdin is closed, the agent waited for (killed after
    /// ``grace_secs``), and the step finished with how it ended; returns the run's metadata.
    #[pyo3(signature = (command, prompt, permission = "deny", workdir = None, grace_secs = 10))]
    fn converse_acp<'py>(
        &self,
        py: Python<'py>,
        command: Vec<String>,
        prompt: String,
        permission: &str,
        workdir: Option<PathBuf>,
        grace_secs: u64,
    ) -> PyResult<Bound<'py, PyAny>> {
        use axt::capture::acp::{AcpOptions, PermissionPolicy, converse};
        let policy = match permission {
            "deny" => PermissionPolicy::Deny,
            "allow" => PermissionPolicy::Allow,
            other => {
                return Err(PyValueError::new_err(format!(
                    "permission must be \"deny\" or \"allow\", not {other:?}"
                )));
            }
        };
        let Some(program) = command.first() else {
            return Err(PyValueError::new_err("command is empty"));
        };
        let workdir = match workdir {
            Some(dir) => dir,
            None => std::env::current_dir().map_err(|e| InputError::new_err(e.to_string()))?,
        };
        let grace = Duration::from_secs(grace_secs);
        let end = py.detach(|| -> PyResult<ProcessEnd> {
            let mut child = std::process::Command::new(program)
                .args(&command[1..])
                .current_dir(&workdir)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .map_err(|e| InputError::new_err(format!("cannot run {program}: {e}")))?;
            let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
                return Err(InputError::new_err("the agent's stdio is not piped"));
            };
            let mut options = AcpOptions::new(prompt, workdir.clone());
            options.permission = policy;
            options.grace = grace;
            let recorded = match &*read(&self.agent) {
                Some(agent) => {
                    let mut record = |line: &[u8]| agent.feed(line);
                    converse(stdin, stdout, &mut record, options)
                        .map_err(|e| RecordError::new_err(e.to_string()))
                }
                None => Err(self.ended()),
            };
            let deadline = std::time::Instant::now() + grace;
            let status = loop {
                if let Some(status) = child.try_wait().map_err(record_error)? {
                    break Some(status);
                }
                if std::time::Instant::now() >= deadline {
                    break None;
                }
                std::thread::sleep(Duration::from_millis(10));
            };
            let end = match status {
                Some(status) => ProcessEnd::from_status(status),
                None => {
                    let _ = child.kill();
                    let status = child.wait().map_err(record_error)?;
                    let mut end = ProcessEnd::from_status(status);
                    end.note = Some(
                        "the agent was still running after its stdin was closed; killed".into(),
                    );
                    end
                }
            };
            recorded.map(|_| end)
        })?;
        match self.end(py, end)? {
            Some(meta) => convert::serialize(py, &meta),
            None => Err(self.ended()),
        }
    }

    /// Records a follow-up turn of the conversation: a `message.user` with `prompt`.
    fn follow_up(&self, py: Python<'_>, prompt: String) -> PyResult<Option<u64>> {
        self.with(py, |agent| agent.follow_up(prompt))
    }

    /// Opens a tool call captured at the executor's router, inside this step.
    #[pyo3(signature = (name, call_id = None, input = None))]
    fn tool(
        &self,
        py: Python<'_>,
        name: &str,
        call_id: Option<String>,
        input: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<ToolCall> {
        let input = optional_value(input)?;
        let call_id = match call_id {
            Some(id) => id,
            None => new_call_id(py)?,
        };
        let call = self.with(py, |agent| agent.tool(name, call_id, input))?;
        Ok(ToolCall::wrap(call))
    }

    /// The agent run's metadata as its output has told it so far (final once finished).
    #[getter]
    fn meta<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let meta = py.detach(|| match &*read(&self.agent) {
            Some(agent) => Some(agent.meta()),
            None => self
                .finished
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone(),
        });
        match meta {
            Some(meta) => convert::serialize(py, &meta),
            None => Ok(PyDict::new(py).into_any()),
        }
    }

    /// Ends the step: the output ended and the agent's process ended with `exit_code`
    /// (a `Popen.returncode`: negative for a signal) or `signal`; returns the agent run's
    /// metadata.
    #[pyo3(signature = (exit_code = None, signal = None, note = None))]
    fn finish<'py>(
        &self,
        py: Python<'py>,
        exit_code: Option<i32>,
        signal: Option<i32>,
        note: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let end = match (exit_code, signal, note) {
            (None, None, None) => ProcessEnd::exited(0),
            (Some(code), None, note) if code < 0 => ProcessEnd {
                exit_code: None,
                signal: Some(code.saturating_neg()),
                note,
            },
            (exit_code, signal, note) => ProcessEnd {
                exit_code,
                signal,
                note,
            },
        };
        match self.end(py, end)? {
            Some(meta) => convert::serialize(py, &meta),
            None => Err(self.ended()),
        }
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (_kind, exception, _traceback))]
    fn __exit__(
        &self,
        py: Python<'_>,
        _kind: &Bound<'_, PyAny>,
        exception: &Bound<'_, PyAny>,
        _traceback: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let failure = failure_of(exception)?;
        self.exit(py, failure)?;
        Ok(false)
    }

    fn __repr__(&self) -> String {
        format!("AgentStep(path={:?})", self.path)
    }
}

/// A tool call captured at the executor's router.
#[pyclass(module = "axt", name = "ToolCall", frozen)]
pub(crate) struct ToolCall {
    call: RwLock<Option<AxtToolCall>>,
    name: String,
    call_id: String,
}

impl ToolCall {
    fn wrap(call: AxtToolCall) -> ToolCall {
        ToolCall {
            name: call.name().to_owned(),
            call_id: call.call_id().to_owned(),
            call: RwLock::new(Some(call)),
        }
    }

    fn finish(
        &self,
        py: Python<'_>,
        output: Value,
        error: Option<String>,
        exit_code: Option<i64>,
    ) -> PyResult<()> {
        py.detach(|| match take(&self.call) {
            Some(call) => call.finish(output, error, exit_code).map_err(run_error),
            None => Err(StepError::new_err(format!(
                "tool call {} has its result",
                self.call_id
            ))),
        })
    }
}

#[pymethods]
impl ToolCall {
    /// The tool's name.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The call id its `tool.call` and `tool.result` carry.
    #[getter]
    fn call_id(&self) -> &str {
        &self.call_id
    }

    /// Records the tool's result: its `output`, `error` when it failed (the output is
    /// kept too), `exit_code` for a shell command.
    #[pyo3(signature = (output = None, error = None, exit_code = None))]
    fn result(
        &self,
        py: Python<'_>,
        output: Option<&Bound<'_, PyAny>>,
        error: Option<String>,
        exit_code: Option<i64>,
    ) -> PyResult<()> {
        let output = optional_value(output)?;
        self.finish(py, output, error, exit_code)
    }

    /// Records that the tool failed with `message`.
    fn error(&self, py: Python<'_>, message: String) -> PyResult<()> {
        let message = if message.is_empty() {
            "the tool failed".to_owned()
        } else {
            message
        };
        self.finish(py, Value::Null, Some(message), None)
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (_kind, exception, _traceback))]
    fn __exit__(
        &self,
        py: Python<'_>,
        _kind: &Bound<'_, PyAny>,
        exception: &Bound<'_, PyAny>,
        _traceback: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let error = failure_of(exception)?;
        let failing = error.is_some();
        let ended = py.detach(|| match take(&self.call) {
            Some(call) => call.finish(Value::Null, error, None),
            None => Ok(()),
        });
        match ended {
            Err(error) if !(forked_copy(&error) || (failing && already_ended(&error))) => {
                Err(run_error(error))
            }
            _ => Ok(false),
        }
    }

    fn __repr__(&self) -> String {
        format!("ToolCall(name={:?}, call_id={:?})", self.name, self.call_id)
    }
}

/// A live view of a run's events: an iterator of dicts, each an event's canonical JSON, or
/// `{"missed": {"from_seq": n, "count": k}}` where this subscriber fell behind (the events
/// are in the file). Ends when the run ends.
#[pyclass(module = "axt", name = "Subscription", frozen)]
pub(crate) struct Subscription {
    subscription: Mutex<AxtSubscription>,
}

/// How long a wait for the next event lasts before Python gets a chance to handle a
/// signal (Ctrl-C).
const POLL: Duration = Duration::from_millis(100);

enum Next {
    Event(Vec<u8>),
    Missed(u64, u64),
    Waiting,
    End,
}

#[pymethods]
impl Subscription {
    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        use std::sync::mpsc::RecvTimeoutError;
        loop {
            let next = py.detach(|| {
                let mut subscription = self
                    .subscription
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                match subscription.recv_timeout(POLL) {
                    Ok(Delivery::Event(event)) => {
                        let mut line = Vec::new();
                        match encode_event(&event, &mut line) {
                            Ok(()) => Next::Event(line),
                            // The recorder wrote it through the same encoder.
                            Err(_) => Next::Waiting,
                        }
                    }
                    Ok(Delivery::Missed { from_seq, count }) => Next::Missed(from_seq, count),
                    Err(RecvTimeoutError::Timeout) => Next::Waiting,
                    Err(RecvTimeoutError::Disconnected) => Next::End,
                }
            });
            match next {
                Next::Event(line) => return convert::from_json(py, &line).map(Some),
                Next::Missed(from_seq, count) => {
                    let missed = PyDict::new(py);
                    missed.set_item("from_seq", from_seq)?;
                    missed.set_item("count", count)?;
                    let marker = PyDict::new(py);
                    marker.set_item("missed", missed)?;
                    return Ok(Some(marker.into_any()));
                }
                Next::Waiting => py.check_signals()?,
                Next::End => return Ok(None),
            }
        }
    }

    /// Stops receiving; the iterator ends.
    fn close(&self, py: Python<'_>) {
        py.detach(|| {
            self.subscription
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .close();
        });
    }

    /// How many events were dropped for this subscriber so far.
    #[getter]
    fn dropped(&self, py: Python<'_>) -> u64 {
        py.detach(|| {
            self.subscription
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .dropped()
        })
    }
}
