//! Live fan-out: bounded, lossy, counted, and as cheap for the writer with a hundred
//! subscribers as with one.
//!
//! This module owns the subscribers' queues and the drop accounting. It must never make the
//! writer wait for a subscriber, nor let the writer's cost grow with their number: the
//! writer hands each event to one *hub* queue (a `try_send`, which wakes at most the hub's
//! thread), and the hub's own thread, started with the first subscriber, offers it to every
//! subscriber. An event that does not fit is dropped (drop-newest), counted, and announced
//! to the subscriber as a [`Delivery::Missed`] range it can read back from the file: at the
//! hub's queue (the hub fell behind: every subscriber misses it) or at a subscriber's own
//! (that subscriber fell behind). Before the hub, the writer offered every event to every
//! subscriber itself, waking each blocked reader with a system call of its own: 98 active
//! subscribers made recording 500 times slower.
//!
//! Each queue is a std `sync_channel`. Its `try_send` never waits for the receiver (std's
//! bounded channel is the lock-free crossbeam array queue), it reports a dropped or closed
//! receiver as `Disconnected`, which is how the hub prunes subscribers without any
//! handshake, and the receiver gets blocking `recv` and `recv_timeout` for free.
//!
//! Gaps are found from `seq`, which has no gaps in the file: the hub sees a jump where its
//! own queue dropped events, and a subscriber sees one where its queue did, so a jump is
//! exactly the range missed. Subscribing and closing go through the hub's queue too (they
//! wait for room rather than be dropped), so a subscriber sees every event after the one
//! current when it subscribed, and the close comes after every event: the recorder's last
//! `seq` is stored before the hub hangs up, so a drop just before close is reported too.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TryRecvError, TrySendError};
use std::sync::{Arc, mpsc::sync_channel};
use std::thread;
use std::time::{Duration, Instant};

use crate::model::ExchangeEvent;

/// The default number of events a subscriber's buffer holds, as the schema specifies.
pub const DEFAULT_SUBSCRIBER_CAPACITY: usize = 256;

/// Events the hub's queue holds between the writer and the hub's thread.
const HUB_CAPACITY: usize = 4_096;

/// How often, at most, one subscriber's drops are reported through `tracing`.
const WARNING_INTERVAL: Duration = Duration::from_secs(1);

/// What a [`Subscription`] yields, in `seq` order.
#[derive(Clone, Debug, PartialEq)]
pub enum Delivery {
    /// An event, after it was written to the file.
    Event(Arc<ExchangeEvent>),
    /// The events `from_seq .. from_seq + count` were dropped for this subscriber because its
    /// buffer was full. They are in the file; read them there to catch up. Delivered in
    /// order: everything before `from_seq` has already been delivered or announced, and the
    /// next delivery, if any, is the event `from_seq + count`.
    Missed {
        /// The first `seq` missed.
        from_seq: u64,
        /// How many consecutive events were missed.
        count: u64,
    },
}

/// Delivery counters of one recorder's fan-out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FanOutStats {
    /// Events enqueued for a subscriber, summed over all subscribers, past and present.
    pub delivered: u64,
    /// Events dropped because a subscriber's buffer (or the hub's) was full, summed over
    /// all subscribers, past and present.
    pub dropped_total: u64,
    /// The subscribers still attached, in subscription order.
    pub subscribers: Vec<SubscriberStats>,
}

/// Delivery counters of one subscriber.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubscriberStats {
    /// The subscriber's number within its recorder, from 1 in subscription order.
    pub id: u64,
    /// Its buffer size, in events.
    pub capacity: usize,
    /// Events enqueued for it.
    pub delivered: u64,
    /// Events dropped for it.
    pub dropped: u64,
}

/// The counters and end marker a subscriber shares with the hub.
#[derive(Debug)]
struct Shared {
    id: u64,
    capacity: usize,
    delivered: AtomicU64,
    dropped: AtomicU64,
    /// The recorder's last `seq`, stored before the hub hangs up; 0 while it is open.
    end_seq: AtomicU64,
    /// The subscriber closed or was dropped; the hub prunes it at its next look.
    closed: AtomicBool,
}

impl Shared {
    fn stats(&self) -> SubscriberStats {
        SubscriberStats {
            id: self.id,
            capacity: self.capacity,
            delivered: self.delivered.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
        }
    }
}

/// The totals over every subscriber, past and present.
#[derive(Debug, Default)]
struct Totals {
    delivered: AtomicU64,
    dropped: AtomicU64,
}

/// The hub's side of one subscriber.
#[derive(Debug)]
struct Sender {
    tx: SyncSender<Arc<ExchangeEvent>>,
    shared: Arc<Shared>,
    /// The first event it is to see.
    first_seq: u64,
    /// When drops were last reported, and what was dropped since.
    last_warning: Option<Instant>,
    unreported: u64,
    first_unreported_seq: u64,
}

impl Sender {
    fn dropped(&mut self, seq: u64, count: u64, run_id: &str) {
        self.shared.dropped.fetch_add(count, Ordering::Relaxed);
        if self.unreported == 0 {
            self.first_unreported_seq = seq;
        }
        self.unreported += count;
        let due = self
            .last_warning
            .is_none_or(|last| last.elapsed() >= WARNING_INTERVAL);
        if due {
            self.warn(run_id);
            self.last_warning = Some(Instant::now());
        }
    }

    /// Reports the drops not reported yet: called when due, and once more when the
    /// subscriber goes away, so no drop goes unmentioned.
    fn warn(&mut self, run_id: &str) {
        if self.unreported == 0 {
            return;
        }
        tracing::warn!(
            run_id,
            subscriber = self.shared.id,
            dropped = self.unreported,
            from_seq = self.first_unreported_seq,
            dropped_total = self.shared.dropped.load(Ordering::Relaxed),
            capacity = self.shared.capacity,
            "transcript subscriber too slow: newest events dropped from its buffer (they are in the file)"
        );
        self.unreported = 0;
    }
}

/// What the writer hands the hub, in `seq` order.
enum Message {
    Event(Arc<ExchangeEvent>),
    Subscribe(Sender),
    /// The recorder closed after `seq`.
    Close(u64),
    /// Answer once everything published up to `through` is handed on or counted as
    /// dropped (for counters that are exact).
    Sync {
        through: u64,
        answer: SyncSender<()>,
    },
}

/// The writer's side of the fan-out. Lives inside the recorder's lock, so `publish` is
/// called in `seq` order and never concurrently.
#[derive(Debug, Default)]
pub(crate) struct FanOut {
    /// The hub's queue and thread, once someone subscribed; `None` before, and after close.
    hub: Option<(SyncSender<Message>, thread::JoinHandle<()>)>,
    /// Every subscriber's counters, for [`stats`](FanOut::stats).
    subscribers: Vec<Arc<Shared>>,
    totals: Arc<Totals>,
    last_id: u64,
    /// The `seq` of the last event offered to the hub, taken or not: a tail the hub's full
    /// queue refused leaves no later event to reveal the gap, so `stats` tells the hub.
    last_published: u64,
}

impl std::fmt::Debug for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Message::Event(event) => write!(f, "Event({})", event.seq),
            Message::Subscribe(sender) => write!(f, "Subscribe({})", sender.shared.id),
            Message::Close(seq) => write!(f, "Close({seq})"),
            Message::Sync { through, .. } => write!(f, "Sync({through})"),
        }
    }
}

impl FanOut {
    /// A new subscriber whose first event will be `first_seq`.
    pub(crate) fn subscribe(
        &mut self,
        capacity: usize,
        first_seq: u64,
        run_id: &str,
    ) -> Subscription {
        // A zero-capacity std channel is a rendezvous: try_send would fail unless the
        // receiver happened to be waiting, so every event would be "dropped".
        let capacity = capacity.max(1);
        let (tx, rx) = sync_channel(capacity);
        self.last_id += 1;
        let shared = Arc::new(Shared {
            id: self.last_id,
            capacity,
            delivered: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            end_seq: AtomicU64::new(0),
            closed: AtomicBool::new(false),
        });
        let sender = Sender {
            tx,
            shared: Arc::clone(&shared),
            first_seq,
            last_warning: None,
            unreported: 0,
            first_unreported_seq: 0,
        };
        let subscription = Subscription {
            rx: Some(rx),
            shared: Arc::clone(&shared),
            first_seq,
            next_seq: first_seq,
            pending: None,
        };
        if self.hub.is_none() {
            match start_hub(run_id.to_owned(), Arc::clone(&self.totals)) {
                Ok(hub) => self.hub = Some(hub),
                Err(error) => {
                    tracing::warn!(run_id, %error, "cannot start the fan-out's thread: the subscription gets nothing");
                    shared
                        .end_seq
                        .store(first_seq.saturating_sub(1), Ordering::SeqCst);
                    return subscription;
                }
            }
        }
        if let Some((hub, _)) = &self.hub {
            // Waits for room rather than lose a subscriber; the hub never waits for the
            // writer, so the wait is short.
            let _ = hub.send(Message::Subscribe(sender));
        }
        self.subscribers.push(shared);
        subscription
    }

    /// Whether an event published now reaches a subscriber's hub (someone subscribed, and
    /// the fan-out is not closed): else `publish` hands the event straight back.
    pub(crate) fn is_live(&self) -> bool {
        self.hub.is_some()
    }

    /// Hands `event` to the hub without waiting. The caller asks [`is_live`](FanOut::is_live)
    /// first, and frees an event nobody subscribed to itself, after releasing its lock.
    pub(crate) fn publish(&mut self, event: ExchangeEvent, _run_id: &str) {
        let Some((hub, _)) = &self.hub else {
            return;
        };
        self.last_published = event.seq;
        match hub.try_send(Message::Event(Arc::new(event))) {
            // Full: the hub fell behind; the subscribers see the gap in `seq` and are told.
            Ok(()) | Err(TrySendError::Full(_)) => {}
            Err(TrySendError::Disconnected(_)) => self.hub = None,
        }
    }

    /// Hangs up on every subscriber: each receives what is buffered, then a final
    /// [`Delivery::Missed`] if events up to `last_seq` were dropped for it, then the end.
    pub(crate) fn close(&mut self, last_seq: u64, _run_id: &str) {
        if let Some((hub, thread)) = self.hub.take() {
            let _ = hub.send(Message::Close(last_seq));
            // Once closed, every event is in its subscribers' queues and their ends are
            // known: the hub never waits for anyone, so this is short.
            let _ = thread.join();
        }
        for shared in self.subscribers.drain(..) {
            // A subscriber the hub never saw (it could not start) ends here too.
            if shared.end_seq.load(Ordering::SeqCst) == 0 {
                shared.end_seq.store(last_seq, Ordering::SeqCst);
            }
        }
    }

    pub(crate) fn stats(&mut self, _run_id: &str) -> FanOutStats {
        // The counters as of every event published so far: the hub answers once it has
        // handed them on (it never waits for anyone, so this is short).
        if let Some((hub, _)) = &self.hub {
            let (answer, answered) = sync_channel(1);
            let through = self.last_published;
            if hub.send(Message::Sync { through, answer }).is_ok() {
                let _ = answered.recv();
            }
        }
        self.subscribers
            .retain(|shared| !shared.closed.load(Ordering::Relaxed));
        FanOutStats {
            delivered: self.totals.delivered.load(Ordering::Relaxed),
            dropped_total: self.totals.dropped.load(Ordering::Relaxed),
            subscribers: self.subscribers.iter().map(|s| s.stats()).collect(),
        }
    }
}

/// Starts the hub's thread; returns its queue.
fn start_hub(
    run_id: String,
    totals: Arc<Totals>,
) -> std::io::Result<(SyncSender<Message>, thread::JoinHandle<()>)> {
    let (queue, messages) = sync_channel::<Message>(HUB_CAPACITY);
    // The drop warnings go where the subscribing thread's would: to its `tracing`
    // subscriber, not only to a global one.
    let dispatch = tracing::dispatcher::get_default(Clone::clone);
    let thread = thread::Builder::new()
        .name("axt-fanout".into())
        .spawn(move || {
            tracing::dispatcher::with_default(&dispatch, || hub(&messages, &run_id, &totals));
        })?;
    Ok((queue, thread))
}

/// The hub's thread: every event offered to every subscriber, in `seq` order.
fn hub(messages: &Receiver<Message>, run_id: &str, totals: &Totals) {
    let mut senders: Vec<Sender> = Vec::new();
    // The `seq` the next event should have: a jump is what the hub's own queue dropped.
    // Before the first event it is unknown, and 0 counts from each subscriber's first.
    let mut expected = 0;
    let gap = |senders: &mut Vec<Sender>, from: u64, to: u64| {
        for sender in senders.iter_mut() {
            let from = from.max(sender.first_seq);
            if to > from {
                sender.dropped(from, to - from, run_id);
                totals.dropped.fetch_add(to - from, Ordering::Relaxed);
            }
        }
    };
    for message in messages {
        match message {
            Message::Subscribe(sender) => senders.push(sender),
            Message::Event(event) => {
                let seq = event.seq;
                if seq > expected {
                    gap(&mut senders, expected, seq);
                }
                expected = seq + 1;
                senders.retain_mut(|sender| {
                    if seq < sender.first_seq {
                        return true;
                    }
                    match sender.tx.try_send(Arc::clone(&event)) {
                        Ok(()) => {
                            sender.shared.delivered.fetch_add(1, Ordering::Relaxed);
                            totals.delivered.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(TrySendError::Full(_)) => {
                            sender.dropped(seq, 1, run_id);
                            totals.dropped.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(TrySendError::Disconnected(_)) => {
                            sender.warn(run_id);
                            return false;
                        }
                    }
                    true
                });
            }
            Message::Sync { through, answer } => {
                if through >= expected {
                    gap(&mut senders, expected, through + 1);
                    expected = through + 1;
                }
                let _ = answer.send(());
            }
            Message::Close(last_seq) => {
                gap(&mut senders, expected, last_seq + 1);
                for mut sender in senders.drain(..) {
                    sender.shared.end_seq.store(last_seq, Ordering::SeqCst);
                    sender.warn(run_id);
                }
                return;
            }
        }
    }
    // The writer went away without closing (dropped): the subscriptions just end.
}

/// A live view of a recorder's events, from [`Recorder::subscribe`](super::Recorder::subscribe).
///
/// It yields every event recorded after it was created, in `seq` order, each only after it
/// is in the file, except those its buffer had no room for: for those it yields a
/// [`Delivery::Missed`] range in their place. It ends (`recv` returns `None`) when the
/// recorder is closed or dropped and everything has been yielded, or when it is closed
/// itself. Dropping or closing it never affects the recorder.
///
/// It is also an iterator over the same deliveries.
#[derive(Debug)]
pub struct Subscription {
    rx: Option<Receiver<Arc<ExchangeEvent>>>,
    shared: Arc<Shared>,
    first_seq: u64,
    /// The `seq` this subscriber has neither received nor been told it missed.
    next_seq: u64,
    /// An event held back while the gap before it is announced.
    pending: Option<Arc<ExchangeEvent>>,
}

impl Subscription {
    /// A subscription that has already ended (the recorder was closed).
    pub(crate) fn ended(capacity: usize, first_seq: u64) -> Self {
        let (_, rx) = sync_channel(0);
        let end_seq = first_seq.saturating_sub(1);
        Subscription {
            rx: Some(rx),
            shared: Arc::new(Shared {
                id: 0,
                capacity: capacity.max(1),
                delivered: AtomicU64::new(0),
                dropped: AtomicU64::new(0),
                end_seq: AtomicU64::new(end_seq),
                closed: AtomicBool::new(false),
            }),
            first_seq,
            next_seq: first_seq,
            pending: None,
        }
    }

    /// Waits for the next delivery; `None` once the subscription has ended.
    pub fn recv(&mut self) -> Option<Delivery> {
        if let Some(event) = self.pending.take() {
            return Some(self.deliver(event));
        }
        match self.rx.as_ref()?.recv() {
            Ok(event) => Some(self.accept(event)),
            Err(mpsc::RecvError) => self.hang_up(),
        }
    }

    /// The next delivery if one is ready. `Err(Empty)` when none is, `Err(Disconnected)` once
    /// the subscription has ended.
    pub fn try_recv(&mut self) -> Result<Delivery, TryRecvError> {
        if let Some(event) = self.pending.take() {
            return Ok(self.deliver(event));
        }
        let rx = self.rx.as_ref().ok_or(TryRecvError::Disconnected)?;
        match rx.try_recv() {
            Ok(event) => Ok(self.accept(event)),
            Err(TryRecvError::Empty) => Err(TryRecvError::Empty),
            Err(TryRecvError::Disconnected) => self.hang_up().ok_or(TryRecvError::Disconnected),
        }
    }

    /// Waits at most `timeout` for the next delivery. `Err(Timeout)` when none came,
    /// `Err(Disconnected)` once the subscription has ended.
    pub fn recv_timeout(&mut self, timeout: Duration) -> Result<Delivery, RecvTimeoutError> {
        if let Some(event) = self.pending.take() {
            return Ok(self.deliver(event));
        }
        let rx = self.rx.as_ref().ok_or(RecvTimeoutError::Disconnected)?;
        match rx.recv_timeout(timeout) {
            Ok(event) => Ok(self.accept(event)),
            Err(RecvTimeoutError::Timeout) => Err(RecvTimeoutError::Timeout),
            Err(RecvTimeoutError::Disconnected) => {
                self.hang_up().ok_or(RecvTimeoutError::Disconnected)
            }
        }
    }

    /// Stops the subscription: buffered events are discarded and the recorder forgets it at
    /// its next event. Idempotent; dropping the subscription does the same.
    pub fn close(&mut self) {
        self.rx = None;
        self.pending = None;
        self.shared.closed.store(true, Ordering::Relaxed);
    }

    /// Whether the subscription has ended: closed, or its recorder closed and everything
    /// delivered.
    pub fn is_closed(&self) -> bool {
        self.rx.is_none() && self.pending.is_none()
    }

    /// The `seq` of the first event recorded after this subscription was made: events before
    /// it are in the file only.
    pub fn first_seq(&self) -> u64 {
        self.first_seq
    }

    /// Its buffer size, in events.
    pub fn capacity(&self) -> usize {
        self.shared.capacity
    }

    /// Events dropped for this subscriber so far.
    pub fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// Events enqueued for this subscriber so far (received or still buffered).
    pub fn delivered(&self) -> u64 {
        self.shared.delivered.load(Ordering::Relaxed)
    }

    fn accept(&mut self, event: Arc<ExchangeEvent>) -> Delivery {
        if event.seq > self.next_seq {
            let missed = self.missed_until(event.seq);
            self.pending = Some(event);
            return missed;
        }
        self.deliver(event)
    }

    fn deliver(&mut self, event: Arc<ExchangeEvent>) -> Delivery {
        self.next_seq = event.seq + 1;
        Delivery::Event(event)
    }

    fn missed_until(&mut self, seq: u64) -> Delivery {
        let missed = Delivery::Missed {
            from_seq: self.next_seq,
            count: seq - self.next_seq,
        };
        self.next_seq = seq;
        missed
    }

    /// The writer hung up: announce what was dropped after the last event received.
    fn hang_up(&mut self) -> Option<Delivery> {
        self.rx = None;
        let end = self.shared.end_seq.load(Ordering::SeqCst);
        (end >= self.next_seq).then(|| self.missed_until(end + 1))
    }
}

impl Iterator for Subscription {
    type Item = Delivery;

    fn next(&mut self) -> Option<Delivery> {
        self.recv()
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ContentBlock, EventType, Fidelity, MessagePayload, Payload, Role};
    use std::sync::{Condvar, Mutex};

    /// A `tracing` subscriber whose events wait until it is opened: the hub's first drop
    /// warning holds its thread, so the test can fill the hub's queue deterministically.
    #[derive(Default)]
    struct Gate {
        open: Mutex<bool>,
        opened: Condvar,
        warned: AtomicBool,
    }

    impl Gate {
        fn open(&self) {
            *self.open.lock().unwrap() = true;
            self.opened.notify_all();
        }
    }

    /// The test keeps one handle to the gate, the dispatcher the other.
    struct Held(Arc<Gate>);

    impl tracing::Subscriber for Held {
        fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
            tracing::span::Id::from_u64(1)
        }
        fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
        fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
        fn event(&self, _: &tracing::Event<'_>) {
            let gate = &self.0;
            gate.warned.store(true, Ordering::SeqCst);
            let mut open = gate.open.lock().unwrap();
            while !*open {
                open = gate.opened.wait(open).unwrap();
            }
        }
        fn enter(&self, _: &tracing::span::Id) {}
        fn exit(&self, _: &tracing::span::Id) {}
    }

    fn event(seq: u64) -> ExchangeEvent {
        let payload = Payload::Message(MessagePayload::new(
            Role::Assistant,
            vec![ContentBlock::text(Fidelity::AgentEmitted, "x")],
        ));
        let mut event = ExchangeEvent::new("r", EventType::MessageAssistant, "step", payload);
        event.seq = seq;
        event
    }

    #[test]
    fn stats_count_a_tail_the_hubs_full_queue_refused() {
        let gate = Arc::new(Gate::default());
        let dispatch = tracing::Dispatch::new(Held(Arc::clone(&gate)));
        tracing::dispatcher::with_default(&dispatch, || {
            let mut fan = FanOut::default();
            let mut subscription = fan.subscribe(1, 1, "r");
            // 1 fills the subscriber's buffer; 2 is dropped for it and the warning holds
            // the hub, whose queue then takes HUB_CAPACITY events and refuses the rest.
            fan.publish(event(1), "r");
            fan.publish(event(2), "r");
            while !gate.warned.load(Ordering::SeqCst) {
                thread::yield_now();
            }
            let total = 2 + HUB_CAPACITY as u64 + 50;
            for seq in 3..=total {
                fan.publish(event(seq), "r");
            }
            gate.open();
            let stats = fan.stats("r");
            // Every event but the one delivered is counted dropped, the refused tail too.
            assert_eq!(stats.delivered, 1);
            assert_eq!(stats.dropped_total, total - 1);
            assert_eq!(stats.subscribers[0].dropped, total - 1);
            fan.close(total, "r");
            assert_eq!(
                subscription
                    .recv()
                    .map(|d| matches!(d, Delivery::Event(e) if e.seq == 1)),
                Some(true)
            );
            assert!(matches!(
                subscription.recv(),
                Some(Delivery::Missed { from_seq: 2, count }) if count == total - 1
            ));
            assert!(subscription.recv().is_none());
        });
    }
}
