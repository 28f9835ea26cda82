//! The `exchange` room: one client connection served, each of its exchanges forwarded to
//! the upstream and recorded as a run of its own.
//!
//! ```text
//! client request -> read whole -> upstream (ureq; credentials forwarded, never written)
//! upstream answer -> per read: client (written and flushed first) -> Capture::feed
//! Capture: <run-id>.raw = request body as one line, "\n", response bytes as they came
//!          <run-id>.jsonl = what `axt normalize -p PROVIDER <run-id>.raw` makes of them
//! ```
//!
//! The raw file is the adapter's input exactly: the request body on one line (a body
//! pretty-printed over several lines has its line breaks, which JSON only allows as
//! whitespace, turned into spaces) then the response as the upstream sent it, the layout
//! every HTTP adapter reads as a conversation (the request's history and tool results, then
//! the answer; the framing reads a binary event stream after a JSON line too). So a
//! transcript is checked against its raw bytes with `axt normalize`. Headers are never
//! written anywhere, and the query neither (Gemini's `?key=`): the exchange's account in
//! the run's metadata (passthrough `proxy/exchange`) has its method, path, status and
//! content type.
//!
//! An exchange that does not end as HTTP says it should (the upstream closed mid-body,
//! the client went away, the upstream answered an error status, axt was stopped) ends its
//! run as failed, the reason in `run.completed`; what arrived before is recorded.
//!
//! **Tool results across exchanges.** A client that runs the tools a model called sends
//! their results in its next request. The proxy remembers which run each call came from
//! (the `tool.call` events the capture records; the first run to show a call made it, the
//! later ones repeat it in their history), and a run whose request sends back results of
//! such calls (its `tool.result` events)
//! gets a passthrough `proxy/continues`:
//! `{"tool_results": [{"call_id", "run_id"}], "conversation": <the first run's id>}`.

use std::collections::{HashMap, VecDeque};
use std::io::{BufReader, Read};
use std::net::TcpStream;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::http::{self, BadRequest, Framing, RequestHead};
use super::route::{Route, route};
use super::upstream::Upstream;
use crate::capture::{Capture, CaptureOptions, ProcessEnd};
use crate::model::{EventType, Payload, Provider};
use crate::record::{Delivery, RecorderOptions, Subscription};

/// The most call ids remembered for linking tool results to their runs; the oldest are
/// forgotten first.
const MAX_REMEMBERED_CALLS: usize = 100_000;

/// The size of one read from the upstream: what arrived, up to this, is passed on at once.
const READ_BYTES: usize = 64 * 1024;

/// Called with every recorded exchange ([`ProxyOptions::on_exchange`](super::ProxyOptions::on_exchange)).
pub type OnExchange = Box<dyn Fn(&Exchange) + Send + Sync>;

/// Called with what went wrong outside an answer ([`ProxyOptions::on_error`](super::ProxyOptions::on_error)).
pub type OnError = Box<dyn Fn(&str) + Send + Sync>;

/// One recorded exchange, as [`ProxyOptions::on_exchange`](super::ProxyOptions::on_exchange) reports it.
#[derive(Clone, Debug)]
pub struct Exchange {
    /// The request's method.
    pub method: String,
    /// The request's path, without its query.
    pub path: String,
    /// The upstream's status.
    pub status: u16,
    /// The run that records it.
    pub run_id: String,
    /// The run failed (an error status, an answer cut off, a client gone).
    pub failed: bool,
    /// From the request read to the answer's end, in milliseconds.
    pub millis: u64,
}

/// What the connection threads share.
pub(super) struct Shared {
    pub(super) upstream: Upstream,
    pub(super) out: PathBuf,
    pub(super) recorder: RecorderOptions,
    pub(super) provider: Option<Provider>,
    pub(super) calls: Mutex<Calls>,
    /// Signalled when a run that was finishing has remembered its last calls.
    pub(super) calls_settled: Condvar,
    pub(super) open: Mutex<std::collections::HashMap<u64, OpenCapture>>,
    pub(super) next_key: AtomicU64,
    pub(super) on_exchange: Option<OnExchange>,
    pub(super) on_error: Option<OnError>,
}

/// Which run made each tool call the proxy has seen answered by a model.
#[derive(Debug, Default)]
pub(super) struct Calls {
    runs: HashMap<String, CallRun>,
    order: VecDeque<String>,
    /// Runs between writing their end and remembering the calls of their last items.
    finishing: usize,
}

/// How long a request that sends back results of calls nobody is known to have made waits
/// for runs still finishing to remember theirs.
const LINK_WAIT: Duration = Duration::from_secs(5);

/// Waits (at most [`LINK_WAIT`]) while `call_id` is unknown and some run is between writing
/// its end and remembering the calls of its last items: its client has the whole answer
/// and may already have sent the results back.
fn wait_for_finishing_runs<'a>(
    shared: &'a Shared,
    mut calls: std::sync::MutexGuard<'a, Calls>,
    call_id: &str,
) -> std::sync::MutexGuard<'a, Calls> {
    let deadline = Instant::now() + LINK_WAIT;
    while calls.finishing > 0 && !calls.runs.contains_key(call_id) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        calls = shared
            .calls_settled
            .wait_timeout(calls, left)
            .unwrap_or_else(PoisonError::into_inner)
            .0;
    }
    calls
}

#[derive(Clone, Debug)]
struct CallRun {
    run_id: String,
    conversation: String,
}

impl Calls {
    fn remember(&mut self, call_id: String, run: CallRun) {
        if self.runs.contains_key(&call_id) {
            return;
        }
        if self.order.len() == MAX_REMEMBERED_CALLS
            && let Some(oldest) = self.order.pop_front()
        {
            self.runs.remove(&oldest);
        }
        self.order.push_back(call_id.clone());
        self.runs.insert(call_id, run);
    }
}

/// A capture in progress, shared with the server so that stopping the proxy can end it.
pub(super) type OpenCapture = Arc<Mutex<Option<Capture>>>;

/// Serves one client connection until it closes: each request forwarded and recorded.
pub(super) fn serve(stream: TcpStream, shared: &Shared) {
    let _ = stream.set_nodelay(true);
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut client = stream;
    loop {
        let head = match http::read_head(&mut reader) {
            Ok(Some(head)) => head,
            Ok(None) | Err(BadRequest::Closed) => return,
            Err(BadRequest::Status(status, message)) => {
                let _ = http::write_error(&mut client, status, &message);
                return;
            }
        };
        let body = match http::read_body(&head, &mut reader, &mut client) {
            Ok(body) => body,
            Err(BadRequest::Closed) => return,
            Err(BadRequest::Status(status, message)) => {
                let _ = http::write_error(&mut client, status, &message);
                return;
            }
        };
        if !forward(&head, &body, &mut client, shared) || !head.keep_alive() {
            return;
        }
    }
}

/// One exchange: forwards the request, passes the answer on as it arrives, records both.
/// Returns whether the connection can carry another request.
fn forward(head: &RequestHead, body: &[u8], client: &mut TcpStream, shared: &Shared) -> bool {
    let started = Instant::now();
    let answer = shared.upstream.send(head, body);
    let (status, reason, headers, mut upstream) = match answer {
        Ok(answer) => answer,
        Err(error) => {
            let message = format!("axt proxy could not reach the upstream: {error}");
            if let Some(mut recording) = Recording::routed(shared, head, body, None) {
                recording.keep_exchange(head, 502, None, 0);
                recording.finish(shared, failed(&message));
            }
            let _ = http::write_error(client, 502, &message);
            return false;
        }
    };
    let content_type = headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("content-type"))
        .and_then(|(_, value)| std::str::from_utf8(value).ok())
        .map(str::to_owned);
    let mut recording = Recording::routed(shared, head, body, content_type.as_deref());
    let no_body = head.method.eq_ignore_ascii_case("HEAD") || matches!(status, 204 | 304);
    let length = headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| std::str::from_utf8(value).ok()?.trim().parse::<u64>().ok());
    let framing = match (no_body, length, head.minor_version) {
        (true, _, _) => Framing::None,
        (false, Some(length), _) => Framing::Length(length),
        (false, None, 0) => Framing::Close,
        (false, None, _) => Framing::Chunked,
    };
    let keep_alive = head.keep_alive();
    let mut passed = 0u64;
    let mut ending =
        if http::write_head(client, status, &reason, &headers, framing, keep_alive).is_err() {
            Ending::ClientGone(0)
        } else {
            Ending::Complete
        };
    let mut buffer = vec![0; READ_BYTES];
    while framing != Framing::None && matches!(ending, Ending::Complete) {
        let read = match upstream.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(error) => {
                ending = Ending::UpstreamCut(passed, error.to_string());
                break;
            }
        };
        let piece = &buffer[..read];
        if http::write_piece(client, framing, piece).is_err() {
            ending = Ending::ClientGone(passed);
        }
        passed += read as u64;
        if let Some(recording) = &mut recording
            && !recording.feed(piece, shared)
        {
            // Stopped by the server (axt is shutting down): the run is ended already.
            ending = Ending::Stopped;
        }
    }
    if matches!(ending, Ending::Complete)
        && framing != Framing::None
        && http::write_end(client, framing).is_err()
    {
        ending = Ending::ClientGone(passed);
    }
    if let Framing::Length(length) = framing
        && matches!(ending, Ending::Complete)
        && passed < length
    {
        ending = Ending::UpstreamCut(passed, format!("{length} bytes were announced"));
    }
    if let Some(mut recording) = recording {
        recording.keep_exchange(head, status, content_type.as_deref(), passed);
        let end = match &ending {
            Ending::Complete if (200..300).contains(&status) => ProcessEnd::exited(0),
            Ending::Complete => failed(&format!(
                "the upstream answered with HTTP status {status} {reason}"
            )),
            Ending::UpstreamCut(bytes, why) => failed(&format!(
                "the upstream's answer stopped after {bytes} bytes of the body ({why})"
            )),
            Ending::ClientGone(bytes) => failed(&format!(
                "the client closed the connection after {bytes} bytes of the answer were passed on"
            )),
            Ending::Stopped => ProcessEnd::default(),
        };
        let run_id = recording.finish(shared, end);
        if let (Some(report), Some(run_id)) = (&shared.on_exchange, run_id) {
            report(&Exchange {
                method: head.method.clone(),
                path: head.path().to_owned(),
                status,
                run_id,
                failed: !matches!(ending, Ending::Complete) || !(200..300).contains(&status),
                millis: started.elapsed().as_millis() as u64,
            });
        }
    }
    matches!(ending, Ending::Complete) && framing != Framing::Close
}

/// How an exchange's answer ended.
enum Ending {
    /// As HTTP says it should.
    Complete,
    /// The upstream's answer broke off after this many bytes, for this reason.
    UpstreamCut(u64, String),
    /// The client stopped taking the answer after this many bytes.
    ClientGone(u64),
    /// axt was stopped: the server ended the run.
    Stopped,
}

/// An ending that fails the run, for `reason`.
fn failed(reason: &str) -> ProcessEnd {
    ProcessEnd {
        note: Some(reason.to_owned()),
        ..ProcessEnd::default()
    }
}

/// One exchange's run being recorded.
struct Recording {
    capture: OpenCapture,
    key: u64,
    events: Subscription,
    /// The run's conversation: its own id, unless it answers calls of an earlier run.
    conversation: Option<String>,
    /// The run's id.
    run_id: String,
    /// The tool results the request sent back whose calls earlier runs made: `{call_id,
    /// run_id}`.
    links: Vec<Value>,
    /// Tool results the request sent back whose calls no run had shown yet.
    unknown: Vec<String>,
    /// Between writing its end and remembering its last calls (it never waits for others then).
    finishing: bool,
    /// The call ids of the tool results the request sent back, linked from the request.
    sent_back: std::collections::HashSet<String>,
}

impl Recording {
    /// The run of an exchange, if its route records it ([`route`]): read by the adapter
    /// the route names, or the one `--provider` forces, or detected.
    fn routed(
        shared: &Shared,
        head: &RequestHead,
        body: &[u8],
        content_type: Option<&str>,
    ) -> Option<Recording> {
        let provider = match route(&head.method, head.path(), content_type) {
            Route::Forward => return None,
            Route::Provider(provider) => Some(shared.provider.unwrap_or(provider)),
            Route::Detect => shared.provider,
        };
        Recording::open(shared, head, body, provider)
    }

    /// Starts the run (`provider`, or detected) and records the request; `None` when the
    /// run cannot be created (said on stderr by the server's report).
    fn open(
        shared: &Shared,
        head: &RequestHead,
        body: &[u8],
        provider: Option<Provider>,
    ) -> Option<Recording> {
        let options = CaptureOptions {
            recorder: shared.recorder.clone(),
            ..CaptureOptions::default()
        };
        let capture = match provider {
            Some(provider) => Capture::new(provider, &shared.out, options),
            None => Capture::detect(&shared.out, options),
        };
        let capture = match capture {
            Ok(capture) => capture,
            Err(error) => {
                if let Some(report) = &shared.on_error {
                    report(&format!(
                        "{} {}: the run could not be created: {error}",
                        head.method,
                        head.path()
                    ));
                }
                return None;
            }
        };
        let events = capture.recorder().subscribe_with_capacity(4096);
        let run_id = capture.run_id().to_owned();
        let key = shared.next_key.fetch_add(1, Ordering::Relaxed);
        let capture: OpenCapture = Arc::new(Mutex::new(Some(capture)));
        shared
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, Arc::clone(&capture));
        let mut recording = Recording {
            capture,
            key,
            events,
            conversation: None,
            run_id,
            links: Vec::new(),
            unknown: Vec::new(),
            finishing: false,
            sent_back: std::collections::HashSet::new(),
        };
        if !body.is_empty() {
            let mut line: Vec<u8> = body
                .iter()
                .map(|&byte| {
                    if matches!(byte, b'\n' | b'\r') {
                        b' '
                    } else {
                        byte
                    }
                })
                .collect();
            line.push(b'\n');
            if let Some(provider) = provider {
                recording.link_sent_back(shared, provider, &line);
            }
            recording.feed(&line, shared);
        }
        Some(recording)
    }

    /// Links the tool results the request sends back to the runs that made their calls,
    /// from the request alone: its run's events may come only at its end (an answer read
    /// whole, a pretty-printed body), after its end's metadata could still carry the links.
    fn link_sent_back(&mut self, shared: &Shared, provider: Provider, request: &[u8]) {
        let read = crate::normalize::normalize_lossy(
            provider,
            request,
            crate::normalize::Options::default(),
        );
        let mut calls = shared.calls.lock().unwrap_or_else(PoisonError::into_inner);
        for item in read.items {
            let crate::model::Block::ToolResult { tool_id, .. } = item.block.block else {
                continue;
            };
            if !self.sent_back.insert(tool_id.clone()) {
                continue;
            }
            calls = wait_for_finishing_runs(shared, calls, &tool_id);
            match calls.runs.get(&tool_id) {
                Some(run) if run.run_id != self.run_id => self.link_to(&tool_id, run),
                Some(_) => {}
                None => self.unknown.push(tool_id),
            }
        }
    }

    /// Links a tool result sent back to the run that made its call (and this run to that
    /// run's conversation).
    fn link_to(&mut self, call_id: &str, run: &CallRun) {
        self.conversation
            .get_or_insert_with(|| run.conversation.clone());
        self.links
            .push(json!({ "call_id": call_id, "run_id": run.run_id }));
    }

    /// Feeds bytes of the exchange to the capture; `false` when the server ended the run.
    fn feed(&mut self, bytes: &[u8], shared: &Shared) -> bool {
        let mut open = self.capture.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(capture) = open.as_mut() else {
            return false;
        };
        // A write error is retried by the capture and reported when the run ends.
        let _ = capture.feed(bytes);
        drop(open);
        self.read_events(shared);
        true
    }

    /// Reads the events recorded so far. A call is remembered as made by this run the
    /// moment its event is out (unless an earlier run made it: a history repeats calls),
    /// so that a client sending its result back at once finds it; a result sent back is
    /// linked to the run that made its call.
    fn read_events(&mut self, shared: &Shared) {
        while let Ok(delivery) = self.events.try_recv() {
            let Delivery::Event(event) = delivery else {
                continue;
            };
            let Payload::Tool(tool) = &event.payload else {
                continue;
            };
            let mut calls = shared.calls.lock().unwrap_or_else(PoisonError::into_inner);
            // A call nobody is known to have made may be one of the last items of a run
            // whose end is already on disk (its client has the whole answer and may have
            // sent the results back): wait for such runs to remember their calls, or this
            // run would take the earlier run's calls, repeated in its history, for its own.
            if !self.finishing {
                calls = wait_for_finishing_runs(shared, calls, &tool.call_id);
            }
            match event.event_type {
                EventType::ToolCall => {
                    let conversation = self.conversation.clone();
                    calls.remember(
                        tool.call_id.clone(),
                        CallRun {
                            conversation: conversation.unwrap_or_else(|| self.run_id.clone()),
                            run_id: self.run_id.clone(),
                        },
                    );
                }
                // Linked already, from the request.
                EventType::ToolResult if self.sent_back.contains(&tool.call_id) => {}
                EventType::ToolResult => match calls.runs.get(&tool.call_id) {
                    Some(run) if run.run_id != self.run_id => self.link_to(&tool.call_id, run),
                    Some(_) => {}
                    // Its call may be in the last items of a run still being finished: asked
                    // again when this run ends.
                    None => self.unknown.push(tool.call_id.clone()),
                },
                _ => {}
            }
        }
    }

    /// Before the run ends: keeps the links of the tool results the request sent back.
    /// A run hands out its last items (its answer's last message, with its calls) when it
    /// is finished, just after its client has the whole answer: a client quick enough to
    /// send the results back before that has them looked up again here, once this
    /// exchange's own answer has come back. (An adapter whose items wait for the provider's first time stamp hands the
    /// request's out with the answer's first record: an answer with no record at all
    /// leaves them to the run's end, too late to be linked.)
    fn link(&mut self, shared: &Shared) {
        self.read_events(shared);
        let calls = shared.calls.lock().unwrap_or_else(PoisonError::into_inner);
        for call_id in std::mem::take(&mut self.unknown) {
            if let Some(run) = calls.runs.get(&call_id) {
                self.link_to(&call_id, run);
            }
        }
        drop(calls);
        if let Some(conversation) = &self.conversation {
            let links = std::mem::take(&mut self.links);
            self.keep(
                "proxy/continues",
                json!({ "tool_results": links, "conversation": conversation }),
            );
        }
    }

    /// Keeps the exchange's account (no header, no query) in the run's metadata.
    fn keep_exchange(
        &mut self,
        head: &RequestHead,
        status: u16,
        content_type: Option<&str>,
        bytes: u64,
    ) {
        self.keep(
            "proxy/exchange",
            json!({
                "method": head.method,
                "path": head.path(),
                "status": status,
                "content_type": content_type,
                "response_bytes": bytes,
            }),
        );
    }

    fn keep(&self, kind: &str, raw: Value) {
        if let Some(capture) = self
            .capture
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
        {
            capture.keep(1, kind, raw);
        }
    }

    /// Ends the run as `end` says (unless the server ended it) and returns its id.
    fn finish(mut self, shared: &Shared, end: ProcessEnd) -> Option<String> {
        self.link(shared);
        shared
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.key);
        let capture = self
            .capture
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()?;
        let run_id = capture.run_id().to_owned();
        shared
            .calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .finishing += 1;
        self.finishing = true;
        if let Err(error) = capture.finish(end)
            && let Some(report) = &shared.on_error
        {
            report(&format!("run {run_id}: {error}"));
        }
        // The calls of the run's last items, which finishing handed out.
        self.read_events(shared);
        shared
            .calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .finishing -= 1;
        shared.calls_settled.notify_all();
        Some(run_id)
    }
}
