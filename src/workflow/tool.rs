//! [`ToolCall`]: a tool call captured at the executor's router, recorded with fidelity
//! `router`.

use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use super::calls::Slot;
use super::core::{RunCore, StepInfo};
use super::error::RunError;
use crate::model::{EventType, Text};

/// A tool call in flight, opened with [`Step::tool`](super::Step::tool): its `tool.call`
/// is written, and exactly one `tool.result` will be, by [`ok`](ToolCall::ok),
/// [`error`](ToolCall::error) or [`finish`](ToolCall::finish), or else when the handle is
/// dropped (an early return, `?`, a panic) or its step ends, as failed with the reason.
///
/// `Send` and `'static`: a router may hand it to the thread that runs the tool.
#[must_use = "a tool call records its result when ended; dropping it records a failure"]
pub struct ToolCall {
    core: Arc<RunCore>,
    step: Arc<StepInfo>,
    // Shared with the step's call ledger and the run's set of call ids: one copy of each
    // per call, whatever tables know it; the name is also shared by the calls of the same
    // tool one after another (StepCtx::tool_name), so it is allocated once per run of them.
    name: Arc<str>,
    call_id: Arc<str>,
    /// Where the step's call ledger keeps it while it runs, in a step no agent watches.
    slot: Option<Slot>,
    /// When its `tool.call` was written, on the monotonic clock: a duration must not move
    /// with the wall clock (an NTP step during the call), so it is not the difference of the
    /// two events' timestamps.
    started: Instant,
    ended: bool,
}

impl ToolCall {
    pub(super) fn open(
        core: Arc<RunCore>,
        step: Arc<StepInfo>,
        name: &str,
        call_id: &str,
        input: Value,
    ) -> Result<ToolCall, RunError> {
        let call_id: Arc<str> = Arc::from(call_id);
        let (name, slot) = core.with_step(&step, |ctx| {
            if !ctx.call_ids.insert(&call_id) {
                return Err(RunError::CallIdUsed {
                    run_id: core.run_id().to_owned(),
                    call_id: call_id.to_string(),
                });
            }
            let name = ctx.tool_name(name);
            let (agent_call_id, slot) = ctx.step.ledger.router_call(&name, &call_id, &input);
            ctx.write_router_tool(EventType::ToolCall, &name, &call_id, |payload| {
                payload.input = input;
                payload.agent_call_id = agent_call_id;
            })?;
            Ok((name, slot))
        })?;
        Ok(ToolCall {
            core,
            step,
            name,
            call_id,
            slot,
            started: Instant::now(),
            ended: false,
        })
    }

    /// The call id its `tool.call` and `tool.result` carry.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The tool returned `output`.
    pub fn ok(self, output: Value) -> Result<(), RunError> {
        self.finish(output, None, None)
    }

    /// The tool failed with `error` (and no output).
    pub fn error(self, error: impl fmt::Display) -> Result<(), RunError> {
        self.finish(Value::Null, Some(error.to_string()), None)
    }

    /// The tool ended with `output`, `error` when it failed (its output is still kept),
    /// and `exit_code` for a shell command.
    pub fn finish(
        mut self,
        output: Value,
        error: Option<String>,
        exit_code: Option<i64>,
    ) -> Result<(), RunError> {
        self.ended = true;
        self.result(output, error.filter(|e| !e.is_empty()), exit_code)
    }

    // The name and id of each tool event are written into the buffers the last one left
    // (StepCtx::write_router_tool), the ledger's open calls are a flag, a new call id is one
    // hash lookup. The recorder bench's pairs row (10,000 calls, callgrind,
    // AXT_BENCH_ROWS=pairs AXT_BENCH_EVENTS=20000): 94.4M instructions -> 88.8M for the
    // flag and the lookup, 87.8M with the buffers (jemalloc's malloc and free are cheap in
    // instructions; their cost is cache misses). In CPU time at load 10-17 the same change
    // timed alone was within the noise (git show 8081507): the write(2) is two thirds of
    // that row's time. Since: the payloads built in the scratch event's own (no
    // `ToolPayload` built and moved), the open calls of a step no agent watches kept at a
    // slot (no map), and the step's info shared (one reference per call, not a copy):
    // 6,818 instructions a call -> 6,002 (the same row, callgrind).
    fn result(
        &self,
        output: Value,
        error: Option<String>,
        exit_code: Option<i64>,
    ) -> Result<(), RunError> {
        let duration_ms = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.core.with_step(&self.step, |ctx| {
            let Some(agent_call_id) = ctx.step.ledger.router_result(&self.call_id, self.slot)
            else {
                // Its step ended first and wrote the result for it.
                return Err(RunError::StepEnded {
                    path: self.step.path.to_string(),
                    iteration: self.step.iteration,
                });
            };
            ctx.write_router_tool(
                EventType::ToolResult,
                &self.name,
                &self.call_id,
                |payload| {
                    payload.output = output.into();
                    payload.error = error.map(Text::from);
                    payload.exit_code = exit_code;
                    payload.duration_ms = Some(duration_ms);
                    payload.agent_call_id = agent_call_id;
                },
            )
            .map(drop)
        })
    }
}

impl Drop for ToolCall {
    fn drop(&mut self) {
        if self.ended {
            return;
        }
        let reason = if std::thread::panicking() {
            "the tool call was unwound by a panic"
        } else {
            "the tool call was dropped without a result"
        };
        match self.result(Value::Null, Some(reason.to_owned()), None) {
            Ok(()) | Err(RunError::StepEnded { .. }) => {}
            Err(failure) => {
                tracing::warn!(call_id = &*self.call_id, %failure, "recording a dropped tool call failed");
            }
        }
    }
}

impl fmt::Debug for ToolCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolCall")
            .field("name", &self.name)
            .field("call_id", &self.call_id)
            .field("step", &self.step.path)
            .finish_non_exhaustive()
    }
}
