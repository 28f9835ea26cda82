//! Live fan-out: bounded, lossy, counted.
//!
//! This module owns the subscribers' queues and the drop accounting. It must never make the
//! writer wait for a subscriber: the writer only ever *tries* to enqueue, and an event that
//! does not fit is dropped for that subscriber (drop-newest), counted, and announced to the
//! subscriber as a [`Delivery::Missed`] range it can read back from the file.
//!
//! Each queue is a std `sync_channel`. Its `try_send` never waits for the receiver (std's
//! bounded channel is the lock-free crossbeam array queue), it reports a dropped or closed
//! receiver as `Disconnected`, which is how the writer prunes subscribers without any
//! handshake, and the receiver gets blocking `recv` and `recv_timeout` for free. A
//! `Mutex<VecDeque>` + `Condvar` would make the writer take a lock the consumer also takes.
//!
//! Gaps are found on the receiving side: `seq` has no gaps in the file and every event goes
//! to every subscriber, so a jump in `seq` is exactly the range this subscriber missed. That
//! needs no shared state between writer and reader beyond the channel, except at the very
//! end: the recorder stores its last `seq` before it hangs up, so a drop just before close is
//! reported too.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TryRecvError, TrySendError};
use std::sync::{Arc, mpsc::sync_channel};
use std::time::{Duration, Instant};

use crate::model::ExchangeEvent;

/// The default number of events a subscriber's buffer holds, as the schema specifies.
pub const DEFAULT_SUBSCRIBER_CAPACITY: usize = 256;

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
    /// Events dropped because a subscriber's buffer was full, summed over all subscribers,
    /// past and present.
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

/// The counters and end marker a subscriber shares with the writer.
#[derive(Debug)]
struct Shared {
    id: u64,
    capacity: usize,
    delivered: AtomicU64,
    dropped: AtomicU64,
    /// The recorder's last `seq`, stored before the writer hangs up; 0 while it is open.
    end_seq: AtomicU64,
    /// The subscriber closed or was dropped; the writer prunes it at its next look.
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

/// The writer's side of one subscriber.
#[derive(Debug)]
struct Sender {
    tx: SyncSender<Arc<ExchangeEvent>>,
    shared: Arc<Shared>,
    /// When drops were last reported, and what was dropped since.
    last_warning: Option<Instant>,
    unreported: u64,
    first_unreported_seq: u64,
}

impl Sender {
    fn dropped(&mut self, seq: u64, run_id: &str) {
        self.shared.dropped.fetch_add(1, Ordering::Relaxed);
        if self.unreported == 0 {
            self.first_unreported_seq = seq;
        }
        self.unreported += 1;
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

/// The writer's side of all subscribers. Lives inside the recorder's lock, so `publish` is
/// called in `seq` order and never concurrently.
#[derive(Debug, Default)]
pub(crate) struct FanOut {
    senders: Vec<Sender>,
    last_id: u64,
    delivered: u64,
    dropped_total: u64,
}

impl FanOut {
    /// A new subscriber whose first event will be `first_seq`.
    pub(crate) fn subscribe(&mut self, capacity: usize, first_seq: u64) -> Subscription {
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
        self.senders.push(Sender {
            tx,
            shared: Arc::clone(&shared),
            last_warning: None,
            unreported: 0,
            first_unreported_seq: 0,
        });
        Subscription {
            rx: Some(rx),
            shared,
            first_seq,
            next_seq: first_seq,
            pending: None,
        }
    }

    /// Offers `event` to every subscriber without waiting for any of them. Gives the event
    /// back when there is no subscriber, so the caller can free it after releasing its lock.
    pub(crate) fn publish(&mut self, event: ExchangeEvent, run_id: &str) -> Option<ExchangeEvent> {
        if self.senders.is_empty() {
            return Some(event);
        }
        let seq = event.seq;
        let event = Arc::new(event);
        let (mut delivered, mut dropped) = (0, 0);
        self.senders.retain_mut(|sender| {
            match sender.tx.try_send(Arc::clone(&event)) {
                Ok(()) => {
                    sender.shared.delivered.fetch_add(1, Ordering::Relaxed);
                    delivered += 1;
                }
                Err(TrySendError::Full(_)) => {
                    sender.dropped(seq, run_id);
                    dropped += 1;
                }
                Err(TrySendError::Disconnected(_)) => {
                    sender.warn(run_id);
                    return false;
                }
            }
            true
        });
        self.delivered += delivered;
        self.dropped_total += dropped;
        None
    }

    /// Hangs up on every subscriber: each receives what is buffered, then a final
    /// [`Delivery::Missed`] if events up to `last_seq` were dropped for it, then the end.
    pub(crate) fn close(&mut self, last_seq: u64, run_id: &str) {
        for mut sender in self.senders.drain(..) {
            sender.shared.end_seq.store(last_seq, Ordering::SeqCst);
            sender.warn(run_id);
        }
    }

    pub(crate) fn stats(&mut self, run_id: &str) -> FanOutStats {
        self.senders.retain_mut(|sender| {
            let open = !sender.shared.closed.load(Ordering::Relaxed);
            if !open {
                sender.warn(run_id);
            }
            open
        });
        FanOutStats {
            delivered: self.delivered,
            dropped_total: self.dropped_total,
            subscribers: self.senders.iter().map(|s| s.shared.stats()).collect(),
        }
    }
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
        let mut fanout = FanOut::default();
        let subscription = fanout.subscribe(capacity, first_seq);
        fanout.close(first_seq - 1, "");
        subscription
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
