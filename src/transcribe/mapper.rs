//! How a normalized agent run becomes transcript events.
//!
//! One agent run is one transcript run. The mapping, in the order events are produced:
//!
//! | when | event | `path` | payload |
//! |------|-------|--------|---------|
//! | before the first item | `run.started` | `""` | step: `name` = provider, `kind` = `agent` |
//! |  | `step.started` | `agent` | step: `name` = `agent`, `kind` = `agent` |
//! | when an executor starts the run with its prompt ([`EventMapper::start_run`]) | `message.user` | `agent` | message: the resolved prompt, then the system prompt, as `text` blocks with fidelity `router` |
//! | first item of a sub-agent | `step.started` | `agent.<id>` | step: `name` = the sub-agent's type when the spawning call said it, `kind` = `agent` |
//! | assistant blocks of one record | `message.assistant` | the scope's path | message: the blocks (`text`, `thinking`, `tool_use`, `command`, server tool results), `message_id` |
//! | each `tool_use` in it | `tool.call` | same | tool: `name`, `call_id` = `tool_id`, `input`, fidelity `agent_emitted` |
//! | user text of one record | `message.user` | same | message: the text blocks |
//! | each user-side `tool_result` | `tool.result` | same | tool: `name` of the call, `call_id`, `output` = `tool_content`, `error` when it failed, `exit_code` |
//! | the result that ends a sub-agent's spawning call (user-side, or in the assistant's message when the provider ran the call: a program of OpenAI's programmatic tool calling, whose sub-calls are its scope) | `step.completed` | `agent.<id>` | step |
//! | end of input | `step.completed` for every open sub-agent, then for `agent` | | step: `error` when the run failed or was incomplete |
//! |  | `run.completed` | `""` | step: `error` as above, `result` = the [`RunMeta`] as JSON (with how the agent's process ended, when an executor says it did not exit cleanly: [`Transcriber::finish_process`](super::Transcriber::finish_process)) |
//!
//! A sub-agent's path is `agent.` followed by the id of the tool call that spawned it
//! (Claude `parent_tool_use_id`; the program's call id for the calls an OpenAI program made),
//! so its events sit under the spawning step in a tree.
//! Blocks are grouped into one `message.*` event per input record (and message), which
//! makes the events the same however the input was chunked, and lets each record's blocks
//! be written as soon as they are complete. Every block the agent's output produced is
//! `agent_emitted`; only the executor's prompt blocks are `router`.
//!
//! The run id is the caller's, else the provider's session id if it is known when the first
//! event is made, else a fresh UUID v4. Events leave here with `seq` 0; whoever writes them
//! numbers them.
//!
//! **Times.** Where the provider stamps its records (Gemini, Copilot, OpenAI `created`, Claude
//! Code session logs), an event carries the source time of what it was made from: the events
//! of a group of items take the items' time ([`Item::time`]: the latest stamp seen when they
//! were completed, so a record without a stamp takes the last one before it, and times never
//! go backwards), `run.started` and the agent's `step.started` the first item's, the closing
//! events the latest stamp of the run ([`RunMeta::source_times`]). So normalizing the same
//! input twice gives the same bytes, and step durations are the provider's. Where there is no
//! stamp (Claude Code stream-json, Codex, OpenAI bodies without `created`, an executor's prompt
//! before any output, records before the first stamp), the time is the clock's: the moment of
//! emission by default, or whatever [`EventOptions::clock`] gives (a fixed time makes batch
//! output reproducible; tests use one).

// foldhash, not std's SipHash: every tool call and result of a run is looked up by its id
// here, and the tables are still seeded per run (foldhash's RandomState).
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use serde_json::Value;

use crate::model::{
    Block, ContentBlock, EventType, ExchangeEvent, Fidelity, MessagePayload, Payload, Role,
    StepKind, StepPayload, Text, Timestamp, ToolPayload,
};
use crate::model::{Provider, RunMeta, RunStatus};
use crate::normalize::Item;

/// Where timestamps come from.
pub type Clock = Box<dyn FnMut() -> Timestamp + Send>;

/// How events are made.
pub struct EventOptions {
    /// The run id; see the module docs for the default.
    pub run_id: Option<String>,
    /// The time of events the input does not date; `Timestamp::now` by default.
    pub clock: Clock,
}

impl Default for EventOptions {
    fn default() -> Self {
        EventOptions {
            run_id: None,
            clock: Box::new(Timestamp::now),
        }
    }
}

impl std::fmt::Debug for EventOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventOptions")
            .field("run_id", &self.run_id)
            .finish_non_exhaustive()
    }
}

/// The step path of the main agent thread.
pub const AGENT_PATH: &str = "agent";

/// Turns items into events incrementally, as described in the module docs.
pub struct EventMapper {
    provider: Provider,
    options: EventOptions,
    run_id: Option<String>,
    /// Tool names by call id, for `tool.result` events.
    tool_names: HashMap<String, String>,
    /// Sub-agent types by the id of the call that spawns them.
    subagent_names: HashMap<String, String>,
    /// Sub-agent scopes whose step has started and not completed, in start order.
    open_scopes: Vec<String>,
    closed_scopes: HashSet<String>,
    /// The source time of the events being made, when the input dates them.
    time: Option<Timestamp>,
    finished: bool,
    /// The items of the group being mapped, kept for its allocation: a group is made per
    /// input record.
    group: Vec<Item>,
}

impl std::fmt::Debug for EventMapper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventMapper")
            .field("provider", &self.provider)
            .field("run_id", &self.run_id)
            .finish_non_exhaustive()
    }
}

impl EventMapper {
    /// A mapper for one run of `provider`.
    pub fn new(provider: Provider, options: EventOptions) -> Self {
        EventMapper {
            provider,
            options,
            run_id: None,
            tool_names: HashMap::new(),
            subagent_names: HashMap::new(),
            open_scopes: Vec::new(),
            closed_scopes: HashSet::new(),
            time: None,
            finished: false,
            group: Vec::new(),
        }
    }

    /// The run id, once the first event has been made.
    pub fn run_id(&self) -> Option<&str> {
        self.run_id.as_deref()
    }

    /// Maps completed items, taking them out of `items` (their blocks move into the events:
    /// tool outputs, the largest strings of a run, are not copied); `meta` is the
    /// normalizer's metadata so far.
    pub fn items(&mut self, items: &mut Vec<Item>, meta: &RunMeta, out: &mut Vec<ExchangeEvent>) {
        let Some(first) = items.first() else {
            return;
        };
        self.time = first.time.clone();
        self.start(meta, out);
        let mut group = std::mem::take(&mut self.group);
        let mut items = items.drain(..).peekable();
        while let Some(first) = items.next() {
            group.push(first);
            while let Some(next) = items.next_if(|item| same_group(&group[0], item)) {
                group.push(next);
            }
            self.group(&mut group, out);
        }
        self.group = group;
    }

    /// Starts the run before any output: `run.started`, `step.started`, then, when `user`
    /// has blocks, a `message.user` carrying them (an executor's resolved prompt and system
    /// prompt). Does nothing once the run has started, so call it before the first items.
    pub fn start_run(
        &mut self,
        meta: &RunMeta,
        user: Vec<ContentBlock>,
        out: &mut Vec<ExchangeEvent>,
    ) {
        if self.run_id.is_some() {
            return;
        }
        self.time = None;
        self.start(meta, out);
        if !user.is_empty() {
            let message = MessagePayload {
                role: Role::User,
                blocks: user,
                message_id: None,
            };
            let payload = Payload::Message(message);
            out.push(self.event(EventType::MessageUser, AGENT_PATH.into(), payload));
        }
    }

    /// Ends the run: closes open steps and writes the run's metadata.
    pub fn finish(&mut self, meta: &RunMeta, out: &mut Vec<ExchangeEvent>) {
        if self.finished {
            return;
        }
        self.time = meta.source_times.as_ref().map(|times| times.last.clone());
        self.start(meta, out);
        self.finished = true;
        let error = match meta.status {
            RunStatus::Completed => None,
            // A fatal error without a message (Copilot's `session.error` with empty data)
            // still fails the step: the writer takes no empty `error`.
            RunStatus::Failed => Some(
                meta.errors
                    .iter()
                    .rev()
                    .find(|error| error.fatal)
                    .map(|error| error.message.clone())
                    .filter(|message| !message.is_empty())
                    .unwrap_or_else(|| "the run failed".to_owned()),
            ),
            RunStatus::Incomplete => {
                Some("incomplete: the output ended before the run's terminal record".to_owned())
            }
        };
        for scope in std::mem::take(&mut self.open_scopes) {
            let name = self.subagent_name(&scope);
            let payload = step(
                &name,
                Some("the sub-agent's spawning call never returned".into()),
                Value::Null,
            );
            let path = scope_path(Some(&scope));
            out.push(self.event(EventType::StepCompleted, path, payload));
        }
        let agent = step(AGENT_PATH, error.clone(), Value::Null);
        out.push(self.event(EventType::StepCompleted, AGENT_PATH.into(), agent));
        let result = serde_json::to_value(meta).unwrap_or(Value::Null);
        let run = step(self.provider.as_str(), error, result);
        out.push(self.event(EventType::RunCompleted, String::new(), run));
    }

    fn start(&mut self, meta: &RunMeta, out: &mut Vec<ExchangeEvent>) {
        if self.run_id.is_some() {
            return;
        }
        let run_id = self
            .options
            .run_id
            .clone()
            .or_else(|| meta.session_id.clone())
            .unwrap_or_else(new_run_id);
        self.run_id = Some(run_id);
        let run = step(self.provider.as_str(), None, Value::Null);
        out.push(self.event(EventType::RunStarted, String::new(), run));
        let agent = step(AGENT_PATH, None, Value::Null);
        out.push(self.event(EventType::StepStarted, AGENT_PATH.into(), agent));
    }

    /// Maps one group of items (see [`same_group`]), taking them out of `group`.
    fn group(&mut self, group: &mut Vec<Item>, out: &mut Vec<ExchangeEvent>) {
        // Taken, not copied: the group has been told apart from the next already.
        let (role, message_id, agent) = {
            let first = &mut group[0];
            self.time = first.time.take();
            (
                first.role.clone(),
                first.message_id.take(),
                first.agent.take(),
            )
        };
        let scope = agent.as_deref();
        if let Some(scope) = scope
            && !self.closed_scopes.contains(scope)
            && !self.open_scopes.iter().any(|s| s == scope)
        {
            self.open_scopes.push(scope.to_owned());
            let name = self.subagent_name(scope);
            let payload = step(&name, None, Value::Null);
            out.push(self.event(EventType::StepStarted, scope_path(Some(scope)), payload));
        }
        let path = scope_path(scope);
        for item in group.iter() {
            if let (Some(name), Block::ToolUse { tool_id, .. }) =
                (&item.subagent, &item.block.block)
            {
                self.subagent_names.insert(tool_id.clone(), name.clone());
            }
        }
        let (results, blocks): (Vec<ContentBlock>, Vec<ContentBlock>) =
            group.drain(..).map(|item| item.block).partition(|block| {
                role == Role::User && matches!(block.block, Block::ToolResult { .. })
            });
        // The calls are read before the blocks move into their message event.
        let calls: Vec<ToolPayload> = blocks
            .iter()
            .filter_map(|block| self.tool_call(block))
            .collect();
        // A result in the assistant's own message: a call the provider ran (a program of
        // programmatic tool calling, whose sub-calls are a scope of their own).
        let ran: Vec<String> = blocks
            .iter()
            .filter_map(|block| match &block.block {
                Block::ToolResult { tool_id, .. } => Some(tool_id.clone()),
                _ => None,
            })
            .collect();
        if !blocks.is_empty() {
            let (event_type, role) = match role {
                Role::User => (EventType::MessageUser, Role::User),
                _ => (EventType::MessageAssistant, Role::Assistant),
            };
            let message = MessagePayload {
                role,
                blocks,
                // A provider's `"id": ""` is no id: the writer takes no empty `message_id`
                // (found by the `import_claude_code` fuzz target).
                message_id: message_id.filter(|id| !id.is_empty()),
            };
            out.push(self.event(event_type, path.clone(), Payload::Message(message)));
        }
        for call in calls {
            out.push(self.event(EventType::ToolCall, path.clone(), Payload::Tool(call)));
        }
        for block in results {
            let Block::ToolResult {
                tool_id,
                tool_content,
                is_error,
                exit_code,
            } = block.block
            else {
                continue;
            };
            let name = self.tool_names.get(&tool_id).cloned().unwrap_or_default();
            let error = is_error.then(|| {
                // A string output held as its JSON gives its error the same bytes, copied:
                // neither unescaped here nor escaped again by the writer.
                let text = match tool_content.to_text() {
                    Some(text) => text,
                    None => Text::new(content_text(&tool_content)),
                };
                if text.is_empty() {
                    Text::from("the tool reported an error")
                } else {
                    text
                }
            });
            let ends_scope = self.open_scopes.contains(&tool_id).then(|| tool_id.clone());
            let result = ToolPayload {
                name,
                call_id: tool_id,
                input: Value::Null,
                output: tool_content,
                error,
                fidelity: Fidelity::AgentEmitted,
                exit_code,
                duration_ms: None,
                agent_call_id: None,
            };
            out.push(self.event(EventType::ToolResult, path.clone(), Payload::Tool(result)));
            // The result of a call that spawned a sub-agent ends that sub-agent.
            if let Some(scope) = ends_scope {
                self.close_scope(&scope, out);
            }
        }
        for tool_id in ran {
            self.close_scope(&tool_id, out);
        }
    }

    /// Ends the scope a call opened (its sub-agent or sub-calls), if it is open.
    fn close_scope(&mut self, tool_id: &str, out: &mut Vec<ExchangeEvent>) {
        let Some(at) = self.open_scopes.iter().position(|s| s == tool_id) else {
            return;
        };
        let scope = self.open_scopes.remove(at);
        self.closed_scopes.insert(scope.clone());
        let name = self.subagent_name(&scope);
        let payload = step(&name, None, Value::Null);
        out.push(self.event(EventType::StepCompleted, scope_path(Some(&scope)), payload));
    }

    /// The `tool.call` payload of a `tool_use` block; remembers the call's name for its
    /// result.
    fn tool_call(&mut self, block: &ContentBlock) -> Option<ToolPayload> {
        let Block::ToolUse {
            tool_name,
            tool_id,
            tool_input,
            ..
        } = &block.block
        else {
            return None;
        };
        self.tool_names.insert(tool_id.clone(), tool_name.clone());
        Some(ToolPayload::call(
            tool_name.clone(),
            tool_id.clone(),
            tool_input.clone(),
            Fidelity::AgentEmitted,
        ))
    }

    fn subagent_name(&self, scope: &str) -> String {
        self.subagent_names
            .get(scope)
            .cloned()
            .unwrap_or_else(|| "subagent".to_owned())
    }

    fn event(&mut self, event_type: EventType, path: String, payload: Payload) -> ExchangeEvent {
        ExchangeEvent {
            seq: 0,
            run_id: self.run_id.clone().unwrap_or_default(),
            parent_run_id: None,
            child_run_id: None,
            event_type,
            path,
            iteration: 0,
            timestamp: match &self.time {
                Some(time) => time.clone(),
                None => (self.options.clock)(),
            },
            payload,
        }
    }
}

/// Items from one record, of one role, message and scope, make one message event.
fn same_group(first: &Item, item: &Item) -> bool {
    item.source == first.source
        && item.role == first.role
        && item.message_id == first.message_id
        && item.agent == first.agent
}

fn scope_path(scope: Option<&str>) -> String {
    match scope {
        None => AGENT_PATH.to_owned(),
        Some(id) => format!("{AGENT_PATH}.{id}"),
    }
}

fn step(name: &str, error: Option<String>, result: Value) -> Payload {
    Payload::Step(StepPayload {
        error,
        result,
        ..StepPayload::new(name, StepKind::Agent)
    })
}

/// The text of a tool result's content: a string, or the text parts of a block array.
fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A random UUID v4 from the operating system's generator.
pub(crate) fn new_run_id() -> String {
    let mut bytes = [0u8; 16];
    let random = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes));
    if random.is_err() {
        // No /dev/urandom: time and process id still make a run id unique in practice.
        let nanos = Timestamp::now().unix_nanos().unwrap_or(0) as u128;
        bytes = (nanos ^ (u128::from(std::process::id()) << 64)).to_le_bytes();
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ProcessEnd;

    #[test]
    fn run_ids_are_uuid_v4() {
        let id = new_run_id();
        assert_eq!(id.len(), 36);
        assert_eq!(&id[14..15], "4");
        assert!(matches!(&id[19..20], "8" | "9" | "a" | "b"));
        assert_ne!(id, new_run_id());
    }

    use serde_json::json;

    #[test]
    fn an_executor_started_run_opens_with_the_prompt_once() {
        let options = EventOptions {
            run_id: Some("r".into()),
            ..EventOptions::default()
        };
        let mut mapper = EventMapper::new(Provider::Claude, options);
        let meta = RunMeta::new(Provider::Claude);
        let prompt = vec![ContentBlock::text(Fidelity::Router, "hi")];
        let mut out = Vec::new();
        mapper.start_run(&meta, prompt.clone(), &mut out);
        mapper.start_run(&meta, prompt, &mut out);
        let types: Vec<_> = out.iter().map(|e| e.event_type.clone()).collect();
        let expected = [
            EventType::RunStarted,
            EventType::StepStarted,
            EventType::MessageUser,
        ];
        assert_eq!(types, expected);
        assert_eq!(out[2].path, AGENT_PATH);
    }

    /// Found by fuzzing (copilot_chunked): an empty fatal message made an empty `error`,
    /// which the strict writer refuses.
    #[test]
    fn a_fatal_error_without_a_message_fails_the_steps_with_a_message() {
        let mut meta = RunMeta::new(Provider::Copilot);
        meta.status = RunStatus::Failed;
        meta.errors.push(crate::model::RunError {
            message: String::new(),
            fatal: true,
            line: 1,
        });
        let mut mapper = EventMapper::new(Provider::Copilot, EventOptions::default());
        let mut out = Vec::new();
        mapper.finish(&meta, &mut out);
        for (seq, event) in out.iter().enumerate() {
            let mut event = event.clone();
            event.seq = seq as u64 + 1;
            crate::model::validate(&event).unwrap();
        }
        let Payload::Step(run) = &out.last().unwrap().payload else {
            panic!("run.completed carries a step");
        };
        assert_eq!(run.error.as_deref(), Some("the run failed"));
    }

    #[test]
    fn a_process_that_did_not_exit_cleanly_fails_the_run() {
        let mut meta = RunMeta::new(Provider::Codex);
        meta.status = RunStatus::Completed;
        meta.set_process(ProcessEnd::exited(0));
        assert_eq!(
            (meta.status, meta.process.is_none()),
            (RunStatus::Completed, true)
        );

        let mut meta = RunMeta::new(Provider::Codex);
        let killed = ProcessEnd {
            signal: Some(9),
            ..ProcessEnd::default()
        };
        meta.set_process(killed);
        assert_eq!(meta.status, RunStatus::Failed);
        let mut mapper = EventMapper::new(Provider::Codex, EventOptions::default());
        let mut out = Vec::new();
        mapper.finish(&meta, &mut out);
        let Payload::Step(run) = &out.last().unwrap().payload else {
            panic!("run.completed carries a step");
        };
        assert_eq!(
            run.error.as_deref(),
            Some(
                "the agent was killed by signal 9 (SIGKILL); the output ended before the run's \
                 terminal record"
            )
        );
        assert_eq!(run.result["process"], json!({"signal": 9}));
        assert_eq!(run.result["errors"][0]["line"], 0);
    }

    /// A failed call's error is its output's text: held as the output's own JSON when the
    /// output is (neither unescaped nor escaped again), the same line either way.
    #[test]
    fn a_failed_calls_error_is_its_outputs_text_as_held() {
        use crate::model::{ToolOutput, encode_event};
        use crate::normalize::{Item, Source};
        let failed = |output: ToolOutput| {
            let mut block = ContentBlock::tool_result(Fidelity::AgentEmitted, "c1", output);
            if let Block::ToolResult { is_error, .. } = &mut block.block {
                *is_error = true;
            }
            let options = EventOptions {
                run_id: Some("r".into()),
                ..EventOptions::default()
            };
            let mut mapper = EventMapper::new(Provider::Codex, options);
            let mut items = vec![Item::new(block, Role::User, Source::record(1, 0))];
            let mut out = Vec::new();
            mapper.items(&mut items, &RunMeta::new(Provider::Codex), &mut out);
            let mut event = out.pop().expect("the result's event");
            event.seq = 1;
            // One time for both lines compared.
            event.timestamp = Timestamp::from_unix_nanos(0);
            let mut line = Vec::new();
            encode_event(&event, &mut line).unwrap();
            let Payload::Tool(tool) = event.payload else {
                panic!("a tool.result: {event:?}");
            };
            (tool.error.expect("an error"), line)
        };
        for text in ["", "boom", "line\n\t\"quoted\" \u{1b}[0m é"] {
            let json = serde_json::to_vec(text).unwrap();
            let (error, line) = failed(ToolOutput::escaped(&json));
            let (plain, plain_line) = failed(json!(text).into());
            assert_eq!(line, plain_line, "{text:?}");
            assert_eq!(error, plain);
            if text.is_empty() {
                assert_eq!(error, "the tool reported an error");
                assert_eq!(error.json(), None);
            } else {
                assert_eq!(error, text);
                assert_eq!(error.json(), Some(&json[..]));
                assert_eq!(plain.json(), None);
            }
        }
        let parts = json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]);
        assert_eq!(failed(parts.into()).0, "a\nb");
    }

    #[test]
    fn content_text_joins_text_parts() {
        let content = json!([{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}]);
        assert_eq!(content_text(&content), "a\nb");
    }
}
