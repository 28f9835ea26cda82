//! [`Backlog`]: the events of a run the recorder could not take yet (a full disk, an I/O
//! error), kept in order and written first as soon as it can; [`WriteRetry`], how hard to
//! try; [`WriteReport`], what the run's writes met.
//!
//! The recorder survives a failed write (nothing of the line stays, no `seq` is used, the
//! next write goes through once the disk has room): this room keeps that promise for the
//! scopes above it. An event the disk refuses is kept, with its time, and every later
//! event queues behind it, so the file's order is the order events were made and `seq`
//! stays continuous. The queue is retried with a backoff (on the next event once the delay
//! has passed, or when the caller asks: [`Run::retry_writes`](super::Run::retry_writes)),
//! and once more, for up to [`WriteRetry::at_end`], when the run ends.
//!
//! What it cannot keep it counts, never drops silently: past [`WriteRetry::max_bytes`]
//! queued, messages and tool events are given up on (lifecycle events, small and what
//! keeps the tree whole, are always kept); a recorder that stopped (a failed sync) takes
//! nothing more; and whatever is still queued when the end's retries run out. The count by
//! event type and the first error are in the [`WriteReport`]; the run's `run.completed`
//! says how many were lost when it is written, and ending the run returns
//! [`RunError::Unwritten`].
//!
//! A run belongs to the process that started it: after a `fork()`, the child's copies of
//! the scopes write nothing ([`RunError::OtherProcess`]), so a child that exits cannot end
//! its parent's run in the parent's file.
//!
//! This file decides when to write and what to keep; it must not change an event (the
//! recorder numbers and masks) nor decide what a scope means.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::error::RunError;
use crate::model::{EventType, ExchangeEvent, Timestamp, encode_event};
use crate::record::{RecordError, RunRecorder};

/// How a run retries writes the disk refused. The default: first retry after 50 ms, the
/// delay doubling up to 2 s, up to 10 s of retries when the run ends, 32 MiB of events
/// kept meanwhile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteRetry {
    /// The delay before the first retry.
    pub first_delay: Duration,
    /// The longest delay between two retries.
    pub max_delay: Duration,
    /// How long ending the run keeps retrying what is still queued before giving it up.
    pub at_end: Duration,
    /// How many bytes of events (as encoded) are kept while the disk refuses them; past
    /// this, messages and tool events are given up on and counted.
    pub max_bytes: usize,
}

impl Default for WriteRetry {
    fn default() -> Self {
        WriteRetry {
            first_delay: Duration::from_millis(50),
            max_delay: Duration::from_secs(2),
            at_end: Duration::from_secs(10),
            max_bytes: 32 << 20,
        }
    }
}

/// When to try a refused write again: [`WriteRetry::first_delay`] after a failure, the
/// delay doubling with each further one up to [`WriteRetry::max_delay`], back to the first
/// after a success. Shared by the run's events and an agent's raw output file.
#[derive(Debug)]
pub(super) struct Backoff {
    first: Duration,
    max: Duration,
    delay: Duration,
    next_try: Instant,
}

impl Backoff {
    pub(super) fn new(retry: &WriteRetry) -> Self {
        Backoff {
            first: retry.first_delay,
            max: retry.max_delay,
            delay: retry.first_delay,
            next_try: Instant::now(),
        }
    }

    /// Whether the next try is due.
    pub(super) fn due(&self) -> bool {
        Instant::now() >= self.next_try
    }

    /// A try failed: the next one after the delay, which doubles.
    pub(super) fn failed(&mut self) {
        self.next_try = Instant::now() + self.delay;
        self.delay = (self.delay * 2).min(self.max);
    }

    /// A try succeeded: the next failure waits the first delay again.
    pub(super) fn succeeded(&mut self) {
        self.delay = self.first;
    }

    /// When the next try is due.
    pub(super) fn next_try(&self) -> Instant {
        self.next_try
    }
}

/// Calls `flush` until it says nothing waits (`None`) or `at_end` has passed, sleeping
/// until the next try it names: what ending a run, or an agent's output, does with what
/// the disk still refuses.
pub(super) fn retry_for(at_end: Duration, mut flush: impl FnMut() -> Option<Instant>) {
    let deadline = Instant::now() + at_end;
    while let Some(next_try) = flush() {
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        std::thread::sleep(next_try.saturating_duration_since(now).min(deadline - now));
    }
}

/// What a run's writes met so far ([`Run::write_report`](super::Run::write_report)).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WriteReport {
    /// Events made and not written yet: they wait for the disk.
    pub waiting: usize,
    /// Events written after the disk had refused them at least once.
    pub late: u64,
    /// Events given up on, by type.
    pub lost: BTreeMap<String, u64>,
    /// The first failure: the file and the operating system's error.
    pub first_error: Option<String>,
    /// The last failure, when there was more than one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
}

impl WriteReport {
    /// How many events were given up on.
    pub fn lost_events(&self) -> u64 {
        self.lost.values().sum()
    }

    /// Whether every event made was written at once.
    pub fn is_clean(&self) -> bool {
        self.first_error.is_none()
    }

    /// One line on what was lost, for a run's error and the command line: `None` when
    /// nothing was.
    pub fn loss(&self) -> Option<String> {
        let lost = self.lost_events();
        if lost == 0 {
            return None;
        }
        let kinds: Vec<String> = self
            .lost
            .iter()
            .map(|(kind, count)| format!("{count} {kind}"))
            .collect();
        let error = self.last_error.as_ref().or(self.first_error.as_ref());
        Some(format!(
            "{lost} event{} could not be written ({}){}",
            if lost == 1 { "" } else { "s" },
            kinds.join(", "),
            error.map_or(String::new(), |error| format!(": {error}"))
        ))
    }
}

/// One run's queue of refused events; lives under the run's lock. See the module docs.
#[derive(Debug)]
pub(super) struct Backlog {
    owner: u32,
    /// The process-wide count of forks as this process saw it when the run started: a
    /// child's copy of the run sees the count its fork raised (see [`Backlog::check_owner`]);
    /// `None` if the fork handler could not be registered (the pid is compared then).
    forks: Option<forkguard::atfork::Guard>,
    queue: VecDeque<(ExchangeEvent, usize)>,
    bytes: usize,
    retry: WriteRetry,
    backoff: Backoff,
    /// The recorder stopped (a failed sync, closed under us): nothing more can be written.
    stopped: bool,
    report: WriteReport,
    scratch: Vec<u8>,
}

impl Backlog {
    /// An empty backlog, owned by this process.
    pub(super) fn new() -> Self {
        let retry = WriteRetry::default();
        Backlog {
            owner: std::process::id(),
            forks: forkguard::atfork::Guard::try_new().ok(),
            queue: VecDeque::new(),
            bytes: 0,
            backoff: Backoff::new(&retry),
            retry,
            stopped: false,
            report: WriteReport::default(),
            scratch: Vec::new(),
        }
    }

    pub(super) fn set_retry(&mut self, retry: WriteRetry) {
        self.backoff = Backoff::new(&retry);
        self.retry = retry;
    }

    /// Refuses to write from any process but the one that started the run.
    ///
    /// Checked on every event, so it must cost next to nothing: `getpid(2)` is a system
    /// call (glibc caches no pid since 2.25) and took 0.24 µs on the bench's VM, a fifth of
    /// a router call's event. A fork handler (`pthread_atfork`, through `forkguard`) counts
    /// the forks instead, and the check is one atomic load: a child made by `fork()` (C's,
    /// Python's `os.fork`) sees a count its parent's runs were not started with. Ending the
    /// run also compares the pid ([`Backlog::check_owner_exactly`]), so even a child made
    /// by a raw `clone` that skips the handlers cannot end its parent's run.
    pub(super) fn check_owner(&self) -> Result<(), RunError> {
        // The guard's own check forgets a fork once it has told it: a copy asks, so that
        // every later event of a forked copy is refused too.
        let forked = match &self.forks {
            Some(forks) => forks.clone().detected_fork(),
            None => std::process::id() != self.owner,
        };
        if forked {
            Err(RunError::OtherProcess { owner: self.owner })
        } else {
            Ok(())
        }
    }

    /// [`Backlog::check_owner`], and the pid compared as well: for the run's end, once.
    pub(super) fn check_owner_exactly(&self) -> Result<(), RunError> {
        self.check_owner()?;
        if std::process::id() == self.owner {
            Ok(())
        } else {
            Err(RunError::OtherProcess { owner: self.owner })
        }
    }

    /// Writes `event`, or keeps it for later: `Some(seq)` when it is in the file now,
    /// `None` when it waits (or was given up on; see [`WriteReport`]). An event the strict
    /// writer refuses is an error, and nothing is kept.
    pub(super) fn record(
        &mut self,
        recorder: &dyn RunRecorder,
        event: ExchangeEvent,
    ) -> Result<Option<u64>, RunError> {
        self.check_owner()?;
        if self.stopped {
            self.lose(&event);
            return Ok(None);
        }
        if !self.queue.is_empty() {
            if self.backoff.due() {
                self.flush(recorder);
            }
            if !self.queue.is_empty() || self.stopped {
                self.keep(event);
                return Ok(None);
            }
        }
        match recorder.try_record(event) {
            Ok(seq) => Ok(Some(seq)),
            Err(refused) => match refused.error {
                RecordError::Encode(error) => Err(RunError::Record(RecordError::Encode(error))),
                error => {
                    self.failed(&error);
                    self.keep(refused.event);
                    Ok(None)
                }
            },
        }
    }

    /// As [`Backlog::record`], for an event the caller fills again for its next one: it is
    /// written where it is ([`RunRecorder::record_ref`]), and only one that must wait is
    /// taken (`event` is then left empty).
    pub(super) fn record_ref(
        &mut self,
        recorder: &dyn RunRecorder,
        event: &mut ExchangeEvent,
    ) -> Result<Option<u64>, RunError> {
        if self.stopped || !self.queue.is_empty() {
            return self.record(recorder, std::mem::replace(event, empty_event()));
        }
        self.check_owner()?;
        match recorder.record_ref(event) {
            Ok(seq) => Ok(Some(seq)),
            Err(RecordError::Encode(error)) => Err(RunError::Record(RecordError::Encode(error))),
            Err(error) => {
                self.failed(&error);
                self.keep(std::mem::replace(event, empty_event()));
                Ok(None)
            }
        }
    }

    /// Writes what is queued, in order, until the disk refuses again.
    pub(super) fn flush(&mut self, recorder: &dyn RunRecorder) {
        while let Some((event, size)) = self.queue.pop_front() {
            if self.stopped {
                self.bytes -= size;
                self.lose(&event);
                continue;
            }
            match recorder.try_record(event) {
                Ok(_) => {
                    self.bytes -= size;
                    self.report.late += 1;
                    self.backoff.succeeded();
                }
                Err(refused) => {
                    self.failed(&refused.error);
                    if self.stopped || !refused.error.is_transient() {
                        self.bytes -= size;
                        self.lose(&refused.event);
                        continue;
                    }
                    self.queue.push_front((refused.event, size));
                    return;
                }
            }
        }
    }

    /// Flushes when the retry is due: the caller's tick.
    pub(super) fn retry_if_due(&mut self, recorder: &dyn RunRecorder) {
        if !self.queue.is_empty() && self.backoff.due() {
            self.flush(recorder);
        }
    }

    /// Retries until the queue is written or [`WriteRetry::at_end`] has passed; what is
    /// still queued then is given up on.
    pub(super) fn drain(&mut self, recorder: &dyn RunRecorder) {
        retry_for(self.retry.at_end, || {
            self.flush(recorder);
            (!self.queue.is_empty()).then(|| self.backoff.next_try())
        });
        while let Some((event, _)) = self.queue.pop_front() {
            self.lose(&event);
        }
        self.bytes = 0;
    }

    pub(super) fn report(&self) -> WriteReport {
        WriteReport {
            waiting: self.queue.len(),
            ..self.report.clone()
        }
    }

    fn failed(&mut self, error: &RecordError) {
        let text = error.to_string();
        if self.report.first_error.is_none() {
            self.report.first_error = Some(text);
        } else if self.report.first_error.as_ref() != Some(&text) {
            self.report.last_error = Some(text);
        }
        if !error.is_transient() {
            self.stopped = true;
        }
        self.backoff.failed();
    }

    fn keep(&mut self, event: ExchangeEvent) {
        if self.stopped {
            return self.lose(&event);
        }
        self.scratch.clear();
        // The size it will take in the file; an event that would not encode was refused
        // before it was ever kept.
        let size = match encode_event(&event, &mut self.scratch) {
            Ok(()) => self.scratch.len() + 1,
            Err(_) => 0,
        };
        let lifecycle = !matches!(
            event.event_type,
            EventType::MessageUser
                | EventType::MessageAssistant
                | EventType::ToolCall
                | EventType::ToolResult
        );
        if !lifecycle && self.bytes + size > self.retry.max_bytes {
            return self.lose(&event);
        }
        self.bytes += size;
        self.queue.push_back((event, size));
    }

    fn lose(&mut self, event: &ExchangeEvent) {
        *self
            .report
            .lost
            .entry(event.event_type.to_string())
            .or_default() += 1;
    }
}

/// An event with nothing in it: what a scratch event is left as when the backlog takes it.
pub(super) fn empty_event() -> ExchangeEvent {
    ExchangeEvent {
        seq: 0,
        run_id: String::new(),
        parent_run_id: None,
        child_run_id: None,
        event_type: EventType::RunStarted,
        path: String::new(),
        iteration: 0,
        timestamp: Timestamp::from_unix_nanos(0),
        payload: crate::model::Payload::None,
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::WriteRetry;
    use crate::model::{StepKind, decode_event};
    use crate::record::faults::{Fault, inject};
    use crate::record::{Recorder, RecorderOptions};
    use crate::workflow::{Run, RunError};

    fn types(path: &std::path::Path) -> Vec<String> {
        fs::read(path)
            .unwrap()
            .split(|b| *b == b'\n')
            .filter(|line| !line.is_empty())
            .enumerate()
            .map(|(at, line)| {
                let event = decode_event(line).unwrap();
                assert_eq!(event.seq, at as u64 + 1);
                format!("{} {}", event.event_type, event.path)
            })
            .collect()
    }

    /// Issue 23, item 13 (the library under the Python binding): a step's completion the
    /// disk refused used to be forgotten, the step left open for good while `check` said
    /// the run was fine. Now it waits and is written, in its place, once the disk has room.
    #[test]
    fn fault_injector_a_step_completion_the_disk_refuses_is_written_later() {
        let dir = std::env::temp_dir().join(format!("axt-backlog-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let recorder = Recorder::create(&dir, "r", RecorderOptions::default()).unwrap();
        let path = recorder.path().to_owned();
        let run = Run::start(recorder, "w").unwrap();
        run.set_write_retry(WriteRetry {
            first_delay: std::time::Duration::ZERO,
            ..WriteRetry::default()
        });
        let step = run.step("build", StepKind::Command).unwrap();
        inject(&path, [Fault::Write(libc::ENOSPC)]);
        step.done().unwrap();
        let report = run.write_report();
        assert_eq!((report.waiting, report.late), (1, 0), "{report:?}");
        run.done().unwrap();
        assert_eq!(
            types(&path),
            [
                "run.started ",
                "step.started build",
                "step.completed build",
                "run.completed "
            ]
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    /// A run is recorded from its start, once: a second `Run` on a run id whose file has
    /// events (a finished run, opened again) is refused instead of appending a second run.
    #[test]
    fn a_second_run_on_a_recorded_run_id_is_refused() {
        let dir = std::env::temp_dir().join(format!("axt-backlog-again-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let recorder = Recorder::create(&dir, "r", RecorderOptions::default()).unwrap();
        Run::start(recorder, "w").unwrap().done().unwrap();
        let again = Recorder::create(&dir, "r", RecorderOptions::default()).unwrap();
        let Err(RunError::AlreadyRecorded { run_id, path }) = Run::start(again, "w") else {
            panic!("a recorded run is refused");
        };
        assert_eq!((run_id.as_str(), path), ("r", dir.join("r.jsonl")));
        assert_eq!(types(&dir.join("r.jsonl")).len(), 2);
        fs::remove_dir_all(&dir).unwrap();
    }
}
