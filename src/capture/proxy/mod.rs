//! A recording proxy for model APIs: `axt proxy --listen ADDR --upstream URL --out DIR`.
//!
//! An executor whose model calls go through an SDK never sees the raw bytes. Pointed at the
//! proxy by its base URL, the SDK's requests are forwarded to the upstream API and every
//! answer passed back as it arrives (each read from the upstream written and flushed to
//! the client before it is recorded: never held whole, the same bytes and the same
//! timing), while each exchange is recorded, live, as a run of its own in the output
//! directory:
//!
//! * `<run-id>.jsonl`: the transcript, through a [`Capture`](crate::capture::Capture) with
//!   the adapter the path calls for (the table is in `route.rs`: OpenAI Chat Completions and
//!   Responses, Anthropic Messages, the Gemini API, Bedrock Converse and InvokeModel), the
//!   request's messages, tools and tool results first, then the answer;
//! * `<run-id>.raw`: the adapter's input, byte for byte (the request body as one line, then
//!   the response), named as `axt exec` names its raw capture so that readers skip it; so
//!   `axt normalize -p PROVIDER <run-id>.raw` makes the same transcript.
//!
//! Headers are never written (`Authorization`, `x-api-key`, `x-goog-api-key`, AWS SigV4's
//! `Authorization` and `X-Amz-*`), nor the request's query (`?key=`); with credential
//! masking on ([`RecorderOptions::redact_credentials`], `--redact`), the bodies are masked
//! in the transcript and the raw file alike. The upstream is asked for identity-encoded
//! answers (the client's `Accept-Encoding` is not forwarded), so the recorded bytes are the
//! API's text.
//!
//! Each connection is served by a thread of its own, so clients never wait on each other.
//! A client or upstream that drops mid-answer, an error status, or the proxy being stopped
//! ends the exchange's run as failed with the reason in `run.completed`; every line is
//! whole (the recorder's guarantee). How tool results sent back in a later request are
//! linked to the runs that made the calls is in `exchange.rs`.
//!
//! # Cost
//!
//! `make bench-proxy` (`scripts/proxy-latency.py`): an Anthropic SSE answer of 500 text
//! deltas, 2 ms apart, read directly from a loopback upstream and through the proxy in
//! alternating rounds, each chunk's latency from its write to its read. On the 2-CPU VM
//! under a load average of 21 (other builds), debug build, 10 rounds each way: 56 µs added
//! at the median, 149 µs at p90 (direct 92 and 133 µs); the p99 (3.1 ms through the proxy,
//! 13.2 ms direct) measured the machine's load, not the proxy.
//!
//! Rooms: `http.rs` (HTTP/1.1 with the client), `upstream.rs` (the upstream's client),
//! `route.rs` (which adapter), `exchange.rs` (one connection's exchanges forwarded and
//! recorded, and what the connections share); this file holds the listener and the
//! shutdown. A Bedrock client signs its requests for the host it
//! sends them to (SigV4 covers `Host`): pointed at the proxy, its signature does not match
//! the upstream's host, and only an unsigned or re-signing setup gets through.

mod exchange;
mod http;
mod route;
mod upstream;

use std::io;
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

pub use exchange::{Exchange, OnError, OnExchange};
use exchange::{OpenCapture, Shared};
use upstream::Upstream;

use crate::capture::ProcessEnd;
use crate::model::Provider;
use crate::record::RecorderOptions;

/// How a [`Proxy`] forwards and records.
pub struct ProxyOptions {
    /// Where to listen (`127.0.0.1:8080`; port 0 picks a free one).
    pub listen: SocketAddr,
    /// The upstream API's base URL (`https://api.openai.com`); a request's path and query
    /// are appended to it.
    pub upstream: String,
    /// The directory the runs are written to (created, mode 0700, when missing).
    pub out: PathBuf,
    /// How each run is written (masking included).
    pub recorder: RecorderOptions,
    /// The adapter for every exchange, instead of the one its path calls for.
    pub provider: Option<Provider>,
    /// How long stopping waits for exchanges still answering before it ends their runs.
    pub grace: Duration,
    /// Called with every recorded exchange once its run is written.
    pub on_exchange: Option<OnExchange>,
    /// Called with what went wrong outside any exchange's answer (a run that could not be
    /// created or written).
    pub on_error: Option<OnError>,
}

impl std::fmt::Debug for ProxyOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProxyOptions")
            .field("listen", &self.listen)
            .field("out", &self.out)
            .field("provider", &self.provider)
            .finish_non_exhaustive()
    }
}

/// Why the proxy could not start.
#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    /// The listening socket could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address.
        addr: SocketAddr,
        /// The operating system's error.
        source: io::Error,
    },
    /// The upstream URL is not `http://` or `https://` with a host.
    #[error("the upstream must be an http:// or https:// URL, not {0:?}")]
    Upstream(String),
}

/// A listening proxy. See the [module documentation](self).
pub struct Proxy {
    listener: TcpListener,
    shared: Arc<Shared>,
    grace: Duration,
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxy")
            .field("listener", &self.listener)
            .finish_non_exhaustive()
    }
}

impl Proxy {
    /// Binds the listening socket; nothing is served before [`serve`](Proxy::serve).
    pub fn bind(options: ProxyOptions) -> Result<Proxy, ProxyError> {
        let upstream = Upstream::new(&options.upstream)
            .ok_or_else(|| ProxyError::Upstream(options.upstream.clone()))?;
        let listener = TcpListener::bind(options.listen).map_err(|source| ProxyError::Listen {
            addr: options.listen,
            source,
        })?;
        Ok(Proxy {
            listener,
            shared: Arc::new(Shared {
                upstream,
                out: options.out,
                recorder: options.recorder,
                provider: options.provider,
                calls: Mutex::default(),
                calls_settled: std::sync::Condvar::new(),
                open: Mutex::default(),
                next_key: AtomicU64::new(0),
                on_exchange: options.on_exchange,
                on_error: options.on_error,
            }),
            grace: options.grace,
        })
    }

    /// The address it listens on (the port chosen, when 0 was asked for).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves clients until `stop` is not 0 (a signal handler's flag). Then accepts no
    /// more, waits up to the grace period for answers still coming, and ends the runs of
    /// those still open as failed ("axt proxy was stopped"). Returns how many it ended so.
    pub fn serve(self, stop: &AtomicUsize) -> io::Result<usize> {
        self.listener.set_nonblocking(true)?;
        while stop.load(Ordering::Relaxed) == 0 {
            match self.listener.accept() {
                Ok((stream, _)) => {
                    stream.set_nonblocking(false)?;
                    let shared = Arc::clone(&self.shared);
                    thread::Builder::new()
                        .name("axt-proxy".into())
                        .spawn(move || exchange::serve(stream, &shared))?;
                }
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                    thread::sleep(Duration::from_millis(20));
                }
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                // A connection that failed before it was accepted (reset, out of
                // descriptors for a moment): the next one may do.
                Err(_) => thread::sleep(Duration::from_millis(20)),
            }
        }
        // Nothing more is accepted: connections that come now are refused, not left waiting.
        let Proxy {
            listener,
            shared,
            grace,
        } = self;
        drop(listener);
        let open = || -> Vec<OpenCapture> {
            let open = shared.open.lock().unwrap_or_else(PoisonError::into_inner);
            open.values().cloned().collect()
        };
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline && !open().is_empty() {
            thread::sleep(Duration::from_millis(20));
        }
        let mut ended = 0;
        for capture in open() {
            let taken = capture
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            if let Some(capture) = taken {
                ended += 1;
                let end = ProcessEnd {
                    note: Some("axt proxy was stopped before the upstream's answer ended".into()),
                    ..ProcessEnd::default()
                };
                if let Err(error) = capture.finish(end)
                    && let Some(report) = &shared.on_error
                {
                    report(&error.to_string());
                }
            }
        }
        Ok(ended)
    }
}
