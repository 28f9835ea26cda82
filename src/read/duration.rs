//! How long a run took, and where that figure comes from: the rule `axt ls`, `axt show`,
//! `axt tree` and `axt stats` share.
//!
//! The events of a run normalized from an agent's output carry the provider's times where
//! the provider stamps its records, else the times axt wrote them at (a batch `axt
//! normalize` writes a whole run within milliseconds, or at one fixed time). So a run's
//! duration is, in this order: what its writer measured on a monotonic clock (`duration_ms`
//! of `run.completed`'s payload: `axt exec`, a workflow run),
//! [`Measured`](DurationSource::Measured); what the provider reported
//! ([`Reported`](DurationSource::Reported)); the span of the provider's own stamps
//! ([`ProviderTimes`](DurationSource::ProviderTimes)); for a run that is not an agent's
//! output, the span of its stamps ([`Timestamps`](DurationSource::Timestamps)); else none,
//! an *undated* run, shown without a duration rather than as `0ms`. The provider's own
//! figure is kept beside a measured one, so that the two never disagree unlabelled.
//!
//! This file owns that rule; it finds the metadata with [`agent_meta`].

use serde::Serialize;

use super::meta::{agent_meta, imported};
use crate::model::{EventType, ExchangeEvent, Payload, StepKind, Timestamp};

/// How long a run took, and where that figure comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Duration {
    /// Milliseconds.
    pub ms: u64,
    /// Where the figure comes from.
    pub source: DurationSource,
}

/// Where a run's duration comes from: see the [module documentation](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DurationSource {
    /// Measured by the run's writer on a monotonic clock.
    Measured,
    /// As the provider reported it.
    Reported,
    /// Between the first and the last time the provider stamped on its records.
    ProviderTimes,
    /// Between the stamps of `run.started` and `run.completed`, of a run that is not an
    /// agent's output (its stamps are its writer's clock).
    Timestamps,
}

impl DurationSource {
    /// A short label: `measured`, `reported`, `provider times`, `timestamps`.
    pub fn label(self) -> &'static str {
        match self {
            DurationSource::Measured => "measured",
            DurationSource::Reported => "reported",
            DurationSource::ProviderTimes => "provider times",
            DurationSource::Timestamps => "timestamps",
        }
    }
}

/// The facts of one run that its duration is decided from, gathered event by event.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunDuration {
    started: Option<Timestamp>,
    completed: Option<Timestamp>,
    measured: Option<u64>,
    reported: Option<u64>,
    provider_times: Option<u64>,
    /// The provider stamped its records: the events carry its times.
    dated_by_provider: bool,
    /// The run carries an agent's metadata: its stamps may be axt's, not the run's.
    agent: bool,
}

impl RunDuration {
    /// Notes what `event` says about the run's times.
    pub fn event(&mut self, event: &ExchangeEvent) {
        match event.event_type {
            EventType::RunStarted => self.started = Some(event.timestamp.clone()),
            EventType::RunCompleted => {
                self.completed = Some(event.timestamp.clone());
                if let Payload::Step(step) = &event.payload {
                    self.measured = step.duration_ms;
                }
            }
            _ => return,
        }
        if event.event_type != EventType::RunCompleted {
            return;
        }
        let Some(meta) = agent_meta(event) else {
            return;
        };
        // Only an agent's own run (kind `agent`) is an agent's output, whose stamps may be
        // axt's: a workflow's are its executor's clock, whatever metadata it carries.
        self.agent = matches!(&event.payload, Payload::Step(step) if step.kind == StepKind::Agent);
        // A span of 0 is one stamp (OpenAI's `created`, to the second): it says when, not
        // how long.
        let stamped = meta
            .source_times
            .as_ref()
            .and_then(|times| millis(&times.first, &times.last))
            .filter(|ms| *ms > 0);
        self.dated_by_provider = meta.source_times.is_some();
        if imported(&meta) {
            // An importer's duration is the span of the log's own stamps, not a figure the
            // provider reported.
            self.provider_times = meta.duration_ms.or(stamped);
        } else {
            self.reported = meta.duration_ms;
            self.provider_times = stamped;
        }
    }

    /// The run's duration by the rule of the [module documentation](self); `None` for an
    /// undated run (or one that never completed).
    pub fn duration(&self) -> Option<Duration> {
        let (ms, source) = if let Some(ms) = self.measured {
            (ms, DurationSource::Measured)
        } else if let Some(ms) = self.reported {
            (ms, DurationSource::Reported)
        } else if let Some(ms) = self.provider_times {
            (ms, DurationSource::ProviderTimes)
        } else if !self.agent {
            let ms = millis(self.started.as_ref()?, self.completed.as_ref()?)?;
            (ms, DurationSource::Timestamps)
        } else {
            return None;
        };
        Some(Duration { ms, source })
    }

    /// The provider's own figure, when the duration is another one (measured): shown
    /// beside it, labelled.
    pub fn reported_beside(&self) -> Option<u64> {
        self.reported.filter(|_| {
            self.duration()
                .is_some_and(|d| d.source != DurationSource::Reported)
        })
    }

    /// Whether the run's step stamps are durations: the run is not an agent's output, or
    /// its provider stamped its records. (A step's measured `duration_ms` always is.)
    pub fn stamps_are_times(&self) -> bool {
        !self.agent || self.dated_by_provider
    }
}

/// Milliseconds from `start` to `end`; `None` when either is not a date-time or `end` is
/// before `start`.
pub fn millis(start: &Timestamp, end: &Timestamp) -> Option<u64> {
    let (start, end) = (start.unix_nanos().ok()?, end.unix_nanos().ok()?);
    u64::try_from((end - start) / 1_000_000).ok()
}
