//! OpenTelemetry traces in the GenAI semantic conventions: every run viewable in Jaeger,
//! Tempo, Phoenix, Langfuse or anything else that ingests OTLP.
//!
//! The files: [`map`] (events in, in order, finished spans out: what a live exporter on the
//! recorder's fan-out reuses event by event), [`ids`] (deterministic trace and span ids),
//! [`messages`] (message content in the conventions' JSON shapes), [`span`] (the finished
//! span, in plain types), [`batch`] (files and directories in, linked runs followed), and,
//! with the `otlp` feature, `encode` (the collector protocol's messages, OTLP/JSON or
//! protobuf), `send` (OTLP/HTTP with retries) and `live` (a run's spans sent while it is
//! recorded, from the recorder's fan-out, never blocking it). This module owns the mapping below; it
//! reads only canonical events, never a provider's dialect, and never changes a transcript.
//!
//! The GenAI conventions are in *development* (the `semantic-conventions-genai`
//! repository). This exporter follows them as stored on 2026-11-25: the agent spans at
//! `docs/gen-ai/gen-ai-agent-spans.md` @ `e9de14b` (PR #571's state), the spans at
//! `docs/gen-ai/gen-ai-spans.md` @ `e9de14b`, the events at `gen-ai-events.md` @ `1572d33`
//! (PR #535), with the changelog fragments #440 (`cache_write`), #469 (no cache tokens on
//! in-process invocations), #543 (the content capture setting), #574 (command tools) and
//! #584 (generic parts); the message attributes validate against the schemas of that
//! store (`scripts/validate-genai-messages.py`: `model/gen-ai/` input messages @ `c4437e5`,
//! the output messages and system instructions of `docs/gen-ai/`). Output messages keep
//! their `finish_reason`: the stored output schema requires it, though #363 deprecates it
//! for `gen_ai.response.finish_reasons`, which every `chat` span carries too. A name the
//! conventions do not define is under `axt.`.
//!
//! # The mapping
//!
//! One trace per run tree: every span of a run and of its sub-runs, at any depth, has the
//! root run's trace id ([`ids`]). Span times are the events' timestamps (the provider's own
//! stamps where it writes them, see the wire format's `timestamp`), in nanoseconds since
//! the Unix epoch; a span never ends before it starts.
//!
//! ## The run: `invoke_agent` or `invoke_workflow`
//!
//! One span per run file, from `run.started` (or the file's first event) to `run.completed`
//! (or the file's last event), under the `call_workflow` step that invoked
//! it for a sub-run, else a root span.
//!
//! * kind: `INTERNAL` for a workflow run (the executor runs it in process: the
//!   conventions' `gen_ai.invocation.internal`), `CLIENT` for an agent's run (the agent CLI
//!   runs out of the executor's process: a remote agent's `gen_ai.invoke_agent.client`).
//! * name: `invoke_workflow {name}` when `run.started`'s `kind` is `workflow`, else
//!   `invoke_agent {name}` (`name` of `run.started`: the adapter, `claude`, for a normalized
//!   run); the operation alone when the name is empty.
//! * `gen_ai.operation.name`: `invoke_workflow` or `invoke_agent`.
//! * `gen_ai.workflow.name` / `gen_ai.agent.name`: the run's name; `gen_ai.agent.version`
//!   (agent runs): the agent CLI's version, when its output says it.
//! * `gen_ai.provider.name` (agent runs): the conventions' well-known value for the model's
//!   maker when the model name says it (`claude*` `anthropic`, `gpt*`/`o1`/`o3`/`o4`/`codex*`
//!   `openai`, `gemini*` `gcp.gemini`, `grok*` `x_ai`, `deepseek*`, `mistral*`/`magistral*`
//!   `mistral_ai`, `sonar*` `perplexity`), else the one of the adapter's vendor
//!   ([`Provider::vendor`](crate::model::Provider::vendor): Anthropic `anthropic`, OpenAI
//!   `openai`, Google `gcp.gemini`, GitHub `github.copilot`; none for an unknown vendor, the
//!   adapters whose agent may run any model).
//! * `gen_ai.request.model`, `gen_ai.response.model`: the run metadata's `model` (axt
//!   knows one model per run, so both are it).
//! * `gen_ai.conversation.id`: the metadata's `session_id`.
//! * `gen_ai.response.finish_reasons`: the metadata's `stop_reason.kind` as a finish reason
//!   (`end_turn` and `stop_sequence` `stop`, `tool_use` `tool_call`, `max_tokens`
//!   `length`, `refusal` `content_filter`, `error` `error`; `max_turns`, `aborted` as they
//!   are; another kind its provider's raw value).
//! * `gen_ai.usage.input_tokens`: the **whole prompt**, `input_tokens + cache_read_tokens +
//!   cache_write_tokens` of the metadata's `usage` (the conventions count cached tokens
//!   inside it; axt's `input_tokens` counts them apart); `gen_ai.usage.output_tokens`:
//!   `output_tokens` (reasoning included); `gen_ai.usage.cache_read.input_tokens`,
//!   `gen_ai.usage.cache_write.input_tokens` (#440's name): `cache_read_tokens`,
//!   `cache_write_tokens`; `gen_ai.usage.reasoning.output_tokens`: `reasoning_tokens` (a
//!   name instrumentations use; the registry has none yet). Only when the run has usage:
//!   transcripts carry usage per run, not per model turn, so the `chat` spans carry none.
//!   `axt.usage.scope` `session` when that usage (and `axt.cost_usd`) is the provider
//!   session's running total, earlier runs that resumed it included (the metadata's
//!   `usage_scope`: Claude Code 2.1.277 and later): a backend adding spans up counts one
//!   such span per `gen_ai.conversation.id`, the largest.
//! * `axt.run.id`, `axt.run.parent_id`; `axt.cost_usd` (the metadata's `cost_usd`);
//!   `axt.duration_ms` (its `duration_ms`, else the payload's).
//! * status `ERROR` with `error.type` `run_failed` when `run.completed` has an `error` or
//!   the metadata's `status` is `failed` (message, with content only: the error, else the
//!   first of the metadata's `errors`; without content `the run failed`); left unset
//!   otherwise, as the conventions ask.
//! * `axt.incomplete` `true` when the file has no `run.completed`.
//!
//! ## Steps
//!
//! `step.started` to the `step.completed` of the same path and iteration (else the latest
//! open step of that path), kind `INTERNAL`, under the latest open step whose path is a
//! prefix of it (`a` for `a.b`), else the run. Named by the step's `name` (its path when
//! empty); an `agent` step of a *workflow* run is an agent invocation: `invoke_agent
//! {name}`, kind `CLIENT` (the agent CLI runs out of process), with `gen_ai.operation.name`
//! `invoke_agent`, `gen_ai.agent.name` and, from its result, `gen_ai.agent.version` and the
//! run attributes below (the `agent` step of a normalized agent run is a plain step: its
//! run is the agent).
//! Attributes `axt.step.path`, `axt.step.kind`, `axt.step.iteration`, `axt.duration_ms`;
//! status `ERROR` with `error.type` `step_failed` and the step's `error` (with content;
//! without, `the step failed`). Steps left open
//! inside a completed step end with it, and steps open at the end of the file with the file,
//! marked `axt.incomplete`. A `step.call_workflow.started` with no open step at its path is
//! a step span of its own, to its `step.call_workflow.completed`.
//!
//! ## Model turns: `chat`
//!
//! A model turn is a run of consecutive `message.assistant` events with the same
//! `message_id` (or none); `tool.call` events between them do not end it, any other event
//! does. Its span, kind `CLIENT`, starts at the event before the turn (when the model was
//! asked: the prompt, the last tool result, the step's start) and ends at its last
//! message, under the open step of its path.
//!
//! * name `chat {model}`; `gen_ai.operation.name` `chat`; `gen_ai.provider.name`,
//!   `gen_ai.request.model`, `gen_ai.response.model`, `gen_ai.conversation.id` as on the
//!   run (the model is the run's; in a workflow run, the agent step's that holds the turn,
//!   from its `step.completed` result); `gen_ai.response.id`: the `message_id`.
//! * `gen_ai.response.finish_reasons`: `tool_call` when the turn asked for a tool (a
//!   `tool_use` block that is not a server tool's), else the run's finish reason, else
//!   `stop`.
//! * With content on spans: `gen_ai.input.messages` (what the transcript shows was added since
//!   the previous turn: the prompts of `message.user` events as `user` messages, the
//!   results of `tool.result` events as `tool` messages; the transcript does not hold the
//!   whole request; absent when it shows none), `gen_ai.system_instructions` (the system
//!   prompt blocks of those `message.user` events), `gen_ai.output.messages` (one `assistant` message of the
//!   turn's blocks, with the finish reason). JSON text, as the conventions allow; the part
//!   mapping is in [`messages`]. With content in events ([`RunContext::content_events`]),
//!   the same three attributes on a `gen_ai.client.inference.operation.details` event at
//!   the turn's end instead (or as well).
//!
//! ## Tool calls: `execute_tool`
//!
//! `tool.call` to the `tool.result` of its `call_id`, kind `INTERNAL`, under the open step
//! of its path (a sibling of the `chat` span that asked for it, as the conventions draw
//! agents).
//!
//! * name `execute_tool {name}`; `gen_ai.operation.name` `execute_tool`;
//!   `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type` `function`.
//! * a command (a result with an `exit_code`): `process.exit.code` (#574).
//! * status `ERROR` when the result has an `error` (the message with content; without,
//!   `exit status N` or `the tool failed`) or a non-zero `exit_code` (`exit status N`), with
//!   `error.type` the exit code as text when it is non-zero, else `tool_error`;
//!   `axt.duration_ms`, `axt.tool.fidelity`.
//! * a decision on the call, where the transcript has one: a `gen_ai.tool.call.decision`
//!   event (#535) at the call's start, with `gen_ai.tool.call.decision.outcome` `deny` for a
//!   call the provider denied for want of permission (the run metadata's `denied_calls`),
//!   `allow` or `deny` for an approval call's answer (the Responses API's
//!   `mcp_approval_request`, about the tool it names), and `gen_ai.tool.call.id`,
//!   `gen_ai.tool.name`.
//! * With content only: `gen_ai.tool.call.arguments` (the input as JSON text) and
//!   `gen_ai.tool.call.result` (the output: a string as it is, else JSON text).
//! * A call seen on both channels (a `router` `tool.call` and an `agent_emitted` one of the
//!   same call id, or whose id the router's `agent_call_id` names) is **one** span: the
//!   router's, by the readers' rule ([`read::Calls`](crate::read::Calls)). The batch
//!   exporter judges the whole run before mapping and drops the agent's events of such a
//!   call, wherever they are; a live exporter asks the rule event by event: an agent's call
//!   still open when the router's copy names it becomes the router's span, and the agent's
//!   events after that are dropped, but an agent's call that ended before (its result came
//!   first) was sent as a span of its own, which nothing can take back.
//! * A call with no result ends with its run, marked `axt.incomplete`; a result with no
//!   call is a span of no length marked `axt.tool.no_call`.
//!
//! ## Sub-runs
//!
//! A `step.call_workflow.started` names its child run; the child's run span goes under the
//! span of the step open at that path (the `call_workflow` step), in the same trace. The
//! batch exporter follows the links with [`read::tree`](crate::read::tree).
//!
//! ## Content and secrets
//!
//! Transcripts hold secrets. Without [`RunContext::content`] or
//! [`RunContext::content_events`] no message text, tool argument or tool result leaves
//! axt, and without [`RunContext::content`] no error text: only names, ids, counts, times,
//! exit statuses and the fixed status messages above (an error's text is the agent's or
//! the tool's own words: a result message, a command's stderr). `axt export --to otlp`
//! turns the first on with `--content`, and otherwise reads the conventions' content
//! capture setting, `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` ([`Capture`]:
//! `NO_CONTENT`, the default; `SPAN_ONLY`; `EVENT_ONLY`; `SPAN_AND_EVENT`; any other value
//! is no content, with a warning, as the conventions ask).
//! Every event goes through the recorder's credential redactor
//! ([`Redactor::credentials`](crate::record::Redactor::credentials)) before it is mapped,
//! content or not, so with content the error texts are masked too.
//!
//! ## Resource and scope
//!
//! One resource, `service.name` `axt`, and one instrumentation scope, `axt`.

pub mod batch;
pub mod capture;
#[cfg(feature = "otlp")]
pub mod encode;
pub mod ids;
#[cfg(feature = "otlp")]
pub mod live;
pub mod map;
pub mod messages;
#[cfg(feature = "otlp")]
pub mod send;
pub mod span;

pub use batch::{Batch, BatchError, BatchOptions, Plan, export, export_each, export_on};
pub use capture::{CAPTURE_VARIABLE, Capture};
pub use ids::{SpanId, SpanRole, TraceId};
pub use map::{AgentContext, Mapper, RunContext, provider_name};
pub use span::{AttrValue, Span, SpanEvent, SpanKind, Status};
