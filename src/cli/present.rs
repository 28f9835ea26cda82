//! How the reading commands (`ls`, `show`, `tree`) write a run's facts for a person: times,
//! durations, token counts, tool counts, statuses, and a run's summary line.
//!
//! One file so that `axt ls` and `axt show` never write the same fact two ways. It formats
//! only; what the facts are is the library's ([`RunSummary`]), and colour and terminal
//! escaping are the console's.

use crate::model::Timestamp;
use crate::read::duration::{Duration, DurationSource};
use crate::read::summary::{RunStatus, RunSummary, ToolCounts};

/// `2026-06-08 08:14` (UTC): a run's start, to the minute, for a listing.
pub(crate) fn minute(time: &Timestamp) -> String {
    match time.unix_nanos() {
        // Re-written in UTC, whatever offset the stamp had.
        Ok(nanos) => {
            let utc = Timestamp::from_unix_nanos(nanos);
            utc.as_str()
                .get(..16)
                .unwrap_or(utc.as_str())
                .replace('T', " ")
        }
        Err(_) => time.as_str().to_owned(),
    }
}

/// `850ms`, `7.8s`, `12m 05s`, `2h 03m`.
pub(crate) fn millis(ms: u64) -> String {
    match ms {
        0..1_000 => format!("{ms}ms"),
        1_000..60_000 => format!("{:.1}s", ms as f64 / 1000.0),
        60_000..3_600_000 => format!("{}m {:02}s", ms / 60_000, ms % 60_000 / 1000),
        _ => format!("{}h {:02}m", ms / 3_600_000, ms % 3_600_000 / 60_000),
    }
}

/// A run's duration with where it comes from where that is not the obvious (`9.2s
/// measured`), and the provider's own figure beside a measured one; `-` when undated.
pub(crate) fn duration(duration: Option<Duration>, reported: Option<u64>) -> String {
    let Some(duration) = duration else {
        return "-".to_owned();
    };
    let mut text = millis(duration.ms);
    if duration.source != DurationSource::Timestamps {
        text.push(' ');
        text.push_str(duration.source.label());
    }
    if let Some(reported) = reported {
        text.push_str(&format!(" (the provider reported {})", millis(reported)));
    }
    text
}

/// A token count, short: `950`, `42.6k`, `1.2M`.
pub(crate) fn tokens(count: u64) -> String {
    match count {
        0..1_000 => count.to_string(),
        1_000..1_000_000 => format!("{:.1}k", count as f64 / 1e3),
        _ => format!("{:.1}M", count as f64 / 1e6),
    }
}

/// Tool calls: `12`, `12 (2 failed)`, and results whose call is not in the file apart.
pub(crate) fn tools(tools: &ToolCounts) -> String {
    let mut text = tools.calls.to_string();
    let mut notes = Vec::new();
    if tools.failed > 0 {
        notes.push(format!("{} failed", tools.failed));
    }
    if tools.results_without_call > 0 {
        notes.push(format!("{} without call", tools.results_without_call));
    }
    if !notes.is_empty() {
        text.push_str(&format!(" ({})", notes.join(", ")));
    }
    text
}

/// The SGR style of a status: red for a failure, yellow for a run that never ended.
pub(crate) fn status_style(status: RunStatus) -> &'static str {
    match status {
        RunStatus::Completed => "",
        RunStatus::Failed => "31",
        RunStatus::Incomplete => "33",
    }
}

/// A run's providers (`claude`, `claude+codex` for a workflow of both), `-` for none.
pub(crate) fn providers(summary: &RunSummary) -> String {
    list(&summary.providers)
}

/// A run's models, as [`providers`].
pub(crate) fn models(summary: &RunSummary) -> String {
    list(&summary.models)
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "-".to_owned()
    } else {
        items.join("+")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_amounts_read_at_a_glance() {
        let time = Timestamp::parse("2026-06-08T10:14:42.123+02:00").unwrap();
        assert_eq!(minute(&time), "2026-06-08 08:14");
        assert_eq!(millis(850), "850ms");
        assert_eq!(millis(7_841), "7.8s");
        assert_eq!(millis(725_000), "12m 05s");
        assert_eq!(millis(7_380_000), "2h 03m");
        assert_eq!(tokens(950), "950");
        assert_eq!(tokens(42_558), "42.6k");
        assert_eq!(tokens(1_234_567), "1.2M");
        let measured = Duration {
            ms: 9_200,
            source: DurationSource::Measured,
        };
        assert_eq!(
            duration(Some(measured), Some(7_841)),
            "9.2s measured (the provider reported 7.8s)"
        );
        assert_eq!(duration(None, None), "-");
        let counts = ToolCounts {
            calls: 3,
            failed: 1,
            results_without_call: 1,
        };
        assert_eq!(tools(&counts), "3 (1 failed, 1 without call)");
    }
}
