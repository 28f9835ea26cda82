//! axt as an ACP client: one prompt turn of an agent that speaks the Agent Client Protocol,
//! every message of the exchange recorded as it crosses.
//!
//! ```text
//! agent stdout -> line -> record (wrapped: agent_to_client) -> answer a request (policy, workspace)
//! session      -> line -> agent stdin, then record (wrapped: client_to_agent)
//! ```
//!
//! [`converse`] sends `initialize` (protocol version 1; the client offers `fs` reading and
//! writing and `terminal`), `session/new` (the workspace root as `cwd`, no MCP server) and
//! one `session/prompt` with the prompt's text, and serves the agent meanwhile:
//! `session/request_permission` by the [`PermissionPolicy`] (allow: the first `allow_once`
//! option, else `allow_always`; deny: the first `reject_once`, else `reject_always`, else
//! the `cancelled` outcome; ask: the caller's function chooses), `fs/*` and `terminal/*` in
//! the workspace the options name (the `serve` room), and any other request with
//! `-32601` (method not found). It returns when the prompt's turn ends (its response), when
//! the agent closes its stdout, or, after the caller's stop flag is raised, once
//! `session/cancel` has been sent and the grace period passed without the turn's end.
//!
//! Every line, both ways, is handed to the caller's `record` in the direction wrapper the
//! ACP adapter reads ([`wrap`]), stamped with the time it crossed: fed to a
//! [`Capture`](super::Capture) (`axt exec --acp`) or a workflow's
//! [`AgentStep`](crate::workflow::AgentStep) of provider `acp`, the live transcript is what
//! normalizing the recorded exchange gives, and the raw file is that exchange.
//!
//! This file owns the client's side of the conversation. It must not spawn, wait for or kill
//! the agent (the caller does) nor read what the messages mean for the transcript (the
//! adapter does).

use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::serve::{Answer, RpcError, Workspace};
use crate::model::Timestamp;
use crate::normalize::acp::{Side, wrap};

/// How the client answers the agent's permission requests.
pub enum PermissionPolicy {
    /// Allow every call (once, or always when that is the only allowing option).
    Allow,
    /// Reject every call.
    Deny,
    /// Ask: the function gets the request's params and returns the id of the option chosen,
    /// or `None` to answer `cancelled`.
    Ask(Ask),
}

/// [`PermissionPolicy::Ask`]'s function.
pub type Ask = Box<dyn FnMut(&Value) -> Option<String> + Send>;

impl std::fmt::Debug for PermissionPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PermissionPolicy::Allow => "Allow",
            PermissionPolicy::Deny => "Deny",
            PermissionPolicy::Ask(_) => "Ask",
        })
    }
}

/// One prompt turn's settings.
#[derive(Debug)]
pub struct AcpOptions {
    /// The prompt's text.
    pub prompt: String,
    /// How permission requests are answered.
    pub permission: PermissionPolicy,
    /// The directory the agent's file and terminal requests are served in, and confined to
    /// (the session's `cwd`); it must exist.
    pub workdir: PathBuf,
    /// How long the agent has to end its turn after `session/cancel`.
    pub grace: Duration,
    /// Raised (non-zero) by the caller to stop: the turn is cancelled. A signal's number
    /// (`signal_hook::flag`) or any other mark.
    pub stop: Option<Arc<AtomicUsize>>,
}

impl AcpOptions {
    /// A turn of `prompt`, requests served in `workdir`, every permission denied.
    pub fn new(prompt: impl Into<String>, workdir: impl Into<PathBuf>) -> Self {
        AcpOptions {
            prompt: prompt.into(),
            permission: PermissionPolicy::Deny,
            workdir: workdir.into(),
            grace: Duration::from_secs(10),
            stop: None,
        }
    }
}

/// How the conversation ended.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AcpEnd {
    /// The prompt response's `stopReason`, when the turn ended.
    pub stop_reason: Option<String>,
    /// The error the agent answered a request of the session with, in words.
    pub error: Option<String>,
    /// The agent closed its stdout before the turn ended.
    pub agent_closed: bool,
    /// The caller's stop mark, when it stopped the turn.
    pub stopped: Option<usize>,
}

/// Why the conversation could not go on.
#[derive(Debug, thiserror::Error)]
pub enum AcpError {
    /// The workspace directory cannot be used.
    #[error("the workspace {}: {source}", path.display())]
    Workdir {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Recording a message failed.
    #[error("recording the exchange: {0}")]
    Record(String),
}

/// What the loop waits for.
enum Event {
    /// A line of the agent's stdout, without its line feed.
    Line(Vec<u8>),
    /// The agent's stdout ended (or failed).
    Closed,
    /// An answer that came later (`terminal/wait_for_exit`): the request's id and result.
    Answer(Value, Result<Value, RpcError>),
}

/// The client's requests, by id.
const INITIALIZE: u64 = 0;
const SESSION_NEW: u64 = 1;
const PROMPT: u64 = 2;

/// Runs one prompt turn over the agent's stdin and stdout (see the module docs). `record`
/// gets every line of the exchange, wrapped, in the order they crossed.
pub fn converse<E: std::fmt::Display>(
    agent_in: impl Write,
    agent_out: impl Read + Send + 'static,
    record: &mut dyn FnMut(&[u8]) -> Result<(), E>,
    mut options: AcpOptions,
) -> Result<AcpEnd, AcpError> {
    let mut workspace = Workspace::new(&options.workdir).map_err(|source| AcpError::Workdir {
        path: options.workdir.clone(),
        source,
    })?;
    let (events, inbox) = mpsc::channel();
    read_lines(agent_out, events.clone());
    let mut session = Session {
        agent_in,
        record,
        end: AcpEnd::default(),
    };
    session.request(INITIALIZE, "initialize", json!({
        "protocolVersion": 1,
        "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": true},
        "clientInfo": {"name": "axt", "title": "axt", "version": env!("CARGO_PKG_VERSION")},
    }))?;
    let mut session_id: Option<String> = None;
    let mut cancelled_at: Option<Instant> = None;
    loop {
        let event = match inbox.recv_timeout(Duration::from_millis(50)) {
            Ok(event) => event,
            Err(RecvTimeoutError::Timeout) => {
                let stop = options
                    .stop
                    .as_ref()
                    .map_or(0, |s| s.load(Ordering::Relaxed));
                if stop != 0 {
                    match cancelled_at {
                        None => {
                            session.end.stopped = Some(stop);
                            cancelled_at = Some(Instant::now());
                            if let Some(id) = &session_id {
                                session.notify("session/cancel", json!({"sessionId": id}))?;
                            }
                        }
                        Some(at) if at.elapsed() >= options.grace => break,
                        Some(_) => {}
                    }
                }
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => break,
        };
        match event {
            Event::Closed => {
                session.end.agent_closed = session.end.stop_reason.is_none();
                break;
            }
            Event::Answer(id, answer) => session.answer(&id, answer)?,
            Event::Line(line) => {
                session.record(Side::Agent, &line)?;
                let Ok(message) = serde_json::from_slice::<Value>(&line) else {
                    continue;
                };
                let method = message.get("method").and_then(Value::as_str);
                let id = message.get("id").cloned();
                match (method, id) {
                    (Some(method), Some(id)) => {
                        let params = message.get("params").cloned().unwrap_or(Value::Null);
                        let answer = if method == "session/request_permission" {
                            Answer::Now(Ok(decide(
                                &mut options.permission,
                                &params,
                                cancelled_at.is_some(),
                            )))
                        } else {
                            let events = events.clone();
                            let id_later = id.clone();
                            let later = Arc::new(move |answer| {
                                let _ = events.send(Event::Answer(id_later.clone(), answer));
                            });
                            workspace.serve(method, &params, later).unwrap_or_else(|| {
                                Answer::Now(Err(RpcError {
                                    code: -32601,
                                    message: format!("Method not found: {method}"),
                                }))
                            })
                        };
                        if let Answer::Now(answer) = answer {
                            session.answer(&id, answer)?;
                        }
                    }
                    (Some(_), None) => {}
                    (None, Some(id)) => {
                        if let Some(error) = message.get("error") {
                            let said = error
                                .get("message")
                                .and_then(Value::as_str)
                                .unwrap_or("an error");
                            session.end.error =
                                Some(format!("the agent answered request {id} with: {said}"));
                            if id.as_u64().is_some_and(|id| id <= PROMPT) {
                                break;
                            }
                            continue;
                        }
                        let result = message.get("result").unwrap_or(&Value::Null);
                        match id.as_u64() {
                            Some(INITIALIZE) => {
                                let cwd = workspace.root().to_string_lossy().into_owned();
                                session.request(
                                    SESSION_NEW,
                                    "session/new",
                                    json!({"cwd": cwd, "mcpServers": []}),
                                )?;
                            }
                            Some(SESSION_NEW) => {
                                let Some(id) = result.get("sessionId").and_then(Value::as_str)
                                else {
                                    session.end.error =
                                        Some("session/new was answered without a sessionId".into());
                                    break;
                                };
                                session_id = Some(id.to_owned());
                                let prompt = [json!({"type": "text", "text": options.prompt})];
                                session.request(
                                    PROMPT,
                                    "session/prompt",
                                    json!({"sessionId": id, "prompt": prompt}),
                                )?;
                            }
                            Some(PROMPT) => {
                                let reason = result.get("stopReason").and_then(Value::as_str);
                                session.end.stop_reason = reason.map(str::to_owned);
                                // v2 acknowledges the prompt at once; its turn ends with an
                                // idle state update, which v1 clients never asked for.
                                if reason.is_some() {
                                    break;
                                }
                            }
                            _ => {}
                        }
                    }
                    (None, None) => {}
                }
            }
        }
    }
    workspace.close();
    Ok(session.end)
}

/// The conversation's writing side.
struct Session<'r, W, E> {
    agent_in: W,
    record: &'r mut dyn FnMut(&[u8]) -> Result<(), E>,
    end: AcpEnd,
}

impl<W: Write, E: std::fmt::Display> Session<'_, W, E> {
    fn record(&mut self, side: Side, line: &[u8]) -> Result<(), AcpError> {
        let wrapped = wrap(side, line, &Timestamp::now());
        (self.record)(&wrapped).map_err(|error| AcpError::Record(error.to_string()))
    }

    /// Sends a message; one the agent can no longer read (it exited) is not recorded, and
    /// the loop ends when its stdout does.
    fn send(&mut self, message: Value) -> Result<(), AcpError> {
        let mut line = serde_json::to_vec(&message).expect("a JSON value serializes");
        let sent = self
            .agent_in
            .write_all(&line)
            .and_then(|()| self.agent_in.write_all(b"\n"))
            .and_then(|()| self.agent_in.flush());
        if sent.is_ok() {
            line.shrink_to_fit();
            self.record(Side::Client, &line)?;
        }
        Ok(())
    }

    fn request(&mut self, id: u64, method: &str, params: Value) -> Result<(), AcpError> {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
    }

    fn notify(&mut self, method: &str, params: Value) -> Result<(), AcpError> {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    fn answer(&mut self, id: &Value, answer: Result<Value, RpcError>) -> Result<(), AcpError> {
        let message = match answer {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(error) => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": error.code, "message": error.message}})
            }
        };
        self.send(message)
    }
}

/// The answer to a permission request under `policy` (`cancelled` once the turn is).
fn decide(policy: &mut PermissionPolicy, params: &Value, cancelled: bool) -> Value {
    let options: Vec<&Value> = params
        .get("options")
        .and_then(Value::as_array)
        .map(|options| options.iter().collect())
        .unwrap_or_default();
    let first = |kinds: &[&str]| {
        kinds.iter().find_map(|kind| {
            options
                .iter()
                .find(|option| option.get("kind").and_then(Value::as_str) == Some(kind))
                .and_then(|option| option.get("optionId").and_then(Value::as_str))
                .map(str::to_owned)
        })
    };
    let chosen = match policy {
        _ if cancelled => None,
        PermissionPolicy::Allow => first(&["allow_once", "allow_always"]),
        PermissionPolicy::Deny => first(&["reject_once", "reject_always"]),
        PermissionPolicy::Ask(ask) => ask(params),
    };
    match chosen {
        Some(option) => json!({"outcome": {"outcome": "selected", "optionId": option}}),
        None => json!({"outcome": {"outcome": "cancelled"}}),
    }
}

/// Reads the agent's stdout line by line on a thread of its own.
fn read_lines(agent_out: impl Read + Send + 'static, events: Sender<Event>) {
    thread::spawn(move || {
        let mut reader = BufReader::with_capacity(64 * 1024, agent_out);
        loop {
            let mut line = Vec::new();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if line.ends_with(b"\n") {
                        line.pop();
                    }
                    if events.send(Event::Line(line)).is_err() {
                        return;
                    }
                }
            }
        }
        let _ = events.send(Event::Closed);
    });
}
