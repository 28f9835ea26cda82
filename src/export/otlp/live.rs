//! Live export: a run's spans sent to a collector while the run is recorded.
//!
//! ```text
//! recorder fan-out -> Subscription -> mapper thread (Mapper::push) -> bounded span queue
//!                                                                   -> sender thread (batches, OTLP/HTTP)
//! ```
//!
//! The recorder never waits for a collector: its fan-out only ever offers events (a
//! subscriber whose buffer is full misses them, see [the fan-out](crate::record#live-fan-out)),
//! the mapper thread only ever offers finished spans to a bounded queue, and only the
//! sender thread talks to the collector. So a slow, stalled or dead collector costs spans,
//! never the agent's time: a span that finds the queue full is dropped, and at
//! [`LiveExport::finish`] the sender gets [`LiveOptions::shutdown`] to deliver what is
//! left; what it has not delivered by then is dropped too. Every drop is counted in the
//! [`LiveReport`], with the collector's errors.
//!
//! Spans are those of the batch export ([`Mapper`], the same ids: a live export followed by
//! a batch export of the same file gives a collector the same span ids, so it does not
//! duplicate them), each sent once the event that ends it was recorded: a tool call's span
//! when its result is, a step's when it completes. What a span needs beyond the events
//! comes from the [`RunContext`] the caller fills (the executor knows the provider up
//! front; a model named only in the run's metadata reaches the run span, not the `chat`
//! spans before it).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use super::map::{Mapper, RunContext};
use super::send::{Destination, Watch, send_watched};
use super::span::Span;
use crate::record::{Delivery, Subscription};

/// How a [`LiveExport`] batches and gives up.
#[derive(Clone, Debug)]
pub struct LiveOptions {
    /// Finished spans waiting for the sender, at most (default 2,048); more are dropped.
    pub queue: usize,
    /// Spans per request, at most (default 256).
    pub batch: usize,
    /// How long a finished span may wait for others to share its request (default 1 s).
    pub linger: Duration,
    /// How long [`LiveExport::finish`] lets the sender deliver what is left (default 5 s);
    /// not waited for a collector that cannot be connected to at all (refused, no such
    /// host): what it still holds is counted as dropped at once.
    pub shutdown: Duration,
}

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions {
            queue: 2_048,
            batch: 256,
            linger: Duration::from_secs(1),
            shutdown: Duration::from_secs(5),
        }
    }
}

/// What a live export did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LiveReport {
    /// Spans the run's events made.
    pub spans: u64,
    /// Spans the collector accepted.
    pub sent: u64,
    /// Spans dropped: the queue was full (the collector too slow), or they were not
    /// delivered by the shutdown deadline.
    pub dropped: u64,
    /// Spans in requests that failed after their retries.
    pub failed: u64,
    /// Spans the collector said it rejected (OTLP partial success).
    pub rejected: u64,
    /// Requests that succeeded.
    pub requests: u64,
    /// Attempts retried.
    pub retries: u64,
    /// Events the subscription missed (its buffer was full): their spans may be incomplete.
    pub events_missed: u64,
    /// The collector's errors, the first few.
    pub errors: Vec<String>,
    /// Whether the sender was still busy at the shutdown deadline.
    pub timed_out: bool,
    /// Whether the collector could not be connected to at all at the end (refused, no such
    /// host): the spans not sent were not a slow collector's.
    pub unreachable: bool,
}

/// A live export in flight; see the [module documentation](self).
pub struct LiveExport {
    mapper: JoinHandle<()>,
    done: Receiver<()>,
    counters: Arc<Counters>,
    shutdown: Duration,
}

/// The two threads' counts, shared so that a report can be made while the sender is
/// still stuck on a collector.
#[derive(Default)]
struct Counters {
    spans: AtomicU64,
    dropped: AtomicU64,
    events_missed: AtomicU64,
    sent: AtomicU64,
    failed: AtomicU64,
    rejected: AtomicU64,
    requests: AtomicU64,
    retries: AtomicU64,
    errors: std::sync::Mutex<Vec<String>>,
    /// Set at finish: the sender stops sending after it and drops what is left.
    deadline_passed: std::sync::atomic::AtomicBool,
    /// The sender's requests: cancelled at finish; whether the collector is unreachable.
    watch: Watch,
}

/// The most collector errors a report keeps.
const ERRORS_KEPT: usize = 5;

impl LiveExport {
    /// Starts exporting the events `subscription` delivers (subscribe before the run's
    /// first event to export all of it) to `destination`.
    pub fn start(
        subscription: Subscription,
        context: RunContext,
        destination: Destination,
        options: LiveOptions,
    ) -> LiveExport {
        let counters = Arc::new(Counters::default());
        let (spans, queue) = mpsc::sync_channel::<Span>(options.queue.max(1));
        let mapper = {
            let counters = Arc::clone(&counters);
            thread::Builder::new()
                .name("axt-otlp-map".into())
                .spawn(move || map_events(subscription, context, &spans, &counters))
                .expect("spawning a thread")
        };
        let (report, done) = mpsc::channel();
        {
            let counters = Arc::clone(&counters);
            let options = options.clone();
            thread::Builder::new()
                .name("axt-otlp-send".into())
                .spawn(move || {
                    send_spans(&queue, &destination, &options, &counters);
                    let _ = report.send(());
                })
                .expect("spawning a thread");
        }
        LiveExport {
            mapper,
            done,
            counters,
            shutdown: options.shutdown,
        }
    }

    /// Ends the export once the run has ended (its recorder closed, which ends the
    /// subscription): maps what is left, gives the sender [`LiveOptions::shutdown`] to
    /// deliver it, and reports. Never waits longer than that for a collector.
    pub fn finish(self) -> LiveReport {
        let _ = self.mapper.join();
        // The sender gets the shutdown allowance, unless the collector is not there at all:
        // waiting for its retries would only delay the agent's caller.
        let deadline = Instant::now() + self.shutdown;
        let timed_out = loop {
            match self.done.recv_timeout(Duration::from_millis(20)) {
                Ok(()) | Err(RecvTimeoutError::Disconnected) => break false,
                Err(RecvTimeoutError::Timeout) => {
                    if Instant::now() >= deadline
                        || self.counters.watch.unreachable.load(Ordering::SeqCst)
                    {
                        break true;
                    }
                }
            }
        };
        // A sender stuck on the collector past the deadline sends nothing more; it is left
        // to end on its own (its request times out), and what it holds counts as dropped.
        self.counters.deadline_passed.store(true, Ordering::SeqCst);
        self.counters.watch.cancel.store(true, Ordering::SeqCst);
        let counters = &self.counters;
        let load = |counter: &AtomicU64| counter.load(Ordering::SeqCst);
        let mut report = LiveReport {
            spans: load(&counters.spans),
            sent: load(&counters.sent),
            dropped: load(&counters.dropped),
            failed: load(&counters.failed),
            rejected: load(&counters.rejected),
            requests: load(&counters.requests),
            retries: load(&counters.retries),
            events_missed: load(&counters.events_missed),
            errors: counters
                .errors
                .lock()
                .map(|errors| errors.clone())
                .unwrap_or_default(),
            timed_out,
            unreachable: counters.watch.unreachable.load(Ordering::SeqCst),
        };
        // Whatever was made and neither sent, failed, rejected nor dropped on the way was
        // still in the sender's hands at the deadline: dropped.
        let accounted = report.sent + report.failed + report.rejected + report.dropped;
        report.dropped += report.spans.saturating_sub(accounted);
        report
    }
}

/// The mapper thread: events in, spans offered to the queue.
fn map_events(
    mut subscription: Subscription,
    context: RunContext,
    queue: &SyncSender<Span>,
    counters: &Counters,
) {
    let mut mapper = Mapper::new(context);
    let mut spans = Vec::new();
    let offer = |spans: &mut Vec<Span>| {
        for span in spans.drain(..) {
            counters.spans.fetch_add(1, Ordering::SeqCst);
            match queue.try_send(span) {
                Ok(()) => {}
                Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                    counters.dropped.fetch_add(1, Ordering::SeqCst);
                }
            }
        }
    };
    while let Some(delivery) = subscription.recv() {
        match delivery {
            Delivery::Event(event) => mapper.push(&event, &mut spans),
            Delivery::Missed { count, .. } => {
                counters.events_missed.fetch_add(count, Ordering::SeqCst);
            }
        }
        offer(&mut spans);
    }
    mapper.finish(&mut spans);
    offer(&mut spans);
}

/// The sender thread: spans batched and posted until the queue ends (or the deadline).
fn send_spans(
    queue: &Receiver<Span>,
    destination: &Destination,
    options: &LiveOptions,
    counters: &Counters,
) {
    let batch_size = options.batch.max(1);
    let mut batch: Vec<Span> = Vec::with_capacity(batch_size);
    let mut open = true;
    while open {
        // Wait for a first span, then for more until the batch is full or has lingered.
        match queue.recv() {
            Ok(span) => batch.push(span),
            Err(_) => break,
        }
        let since = Instant::now();
        while batch.len() < batch_size {
            let left = options.linger.saturating_sub(since.elapsed());
            match queue.recv_timeout(left) {
                Ok(span) => batch.push(span),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => {
                    open = false;
                    break;
                }
            }
        }
        if counters.deadline_passed.load(Ordering::SeqCst) {
            break;
        }
        let add = |counter: &AtomicU64, n: u64| counter.fetch_add(n, Ordering::SeqCst);
        match send_watched(destination, &batch, &counters.watch) {
            Ok(sent) => {
                let rejected = sent.rejected.min(sent.spans);
                add(&counters.sent, sent.spans - rejected);
                add(&counters.rejected, rejected);
                add(&counters.requests, sent.requests);
                add(&counters.retries, sent.retries);
                for message in sent.messages {
                    keep(counters, message);
                }
            }
            Err(error) => {
                add(&counters.failed, batch.len() as u64);
                keep(counters, error.to_string());
            }
        }
        batch.clear();
    }
}

fn keep(counters: &Counters, error: String) {
    if let Ok(mut errors) = counters.errors.lock()
        && errors.len() < ERRORS_KEPT
        && !errors.contains(&error)
    {
        errors.push(error);
    }
}
