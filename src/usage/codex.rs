//! Codex's usage: each thread's `event_msg` `token_count` records, by the rules `axt
//! import` transcribes a session with (`import::codex`, the Codex adapter).
//!
//! * A `token_count`'s `info.total_token_usage` is the thread's running total: each
//!   replaces the last, and a total lower than the one before (input, output or cache
//!   reads) starts a new leg, added to the legs before. So a resumed session, appended to
//!   its file, counts once; `input_tokens` includes the cached ones, counted apart as cache
//!   reads.
//! * A sub-agent or a fork starts with a copy of its parent's records (its `session_meta`
//!   says where its own start: `subagent_history_start_ordinal`,
//!   `history_base.end_ordinal_exclusive`, `forked_from_ordinal_exclusive`): the copy is the
//!   parent's, not read again.
//! * What a total adds goes to the day of its record and the model of the turn
//!   (`turn_context`'s `model`; before the first, the thread's last, the one `axt stats`
//!   prices the run with).
//!
//! Only lines that can hold a `token_count`, a `turn_context` or a `session_meta` are read
//! (a byte search first; a line with a `\u00XX` escape of a printable ASCII character is
//! always read, since the words searched for could be spelled so), borrowed and typed; a
//! line the search passes over is not read at all, so a torn line that could hold no usage
//! is not reported here (`axt import` reports it).

use std::borrow::Cow;
use std::io;
use std::path::Path;

use memchr::memmem;
use serde::Deserialize;
use serde::de::IgnoredAny;

use super::lines::scan;
use super::tally::SessionUsage;
use crate::import::SessionFiles;
use crate::model::Usage;

#[derive(Deserialize)]
struct Record<'a> {
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    payload: Option<&'a serde_json::value::RawValue>,
}

#[derive(Deserialize)]
struct Payload<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    model: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow, default)]
    info: Option<&'a serde_json::value::RawValue>,
}

#[derive(Deserialize)]
struct Info<'a> {
    #[serde(borrow, default)]
    total_token_usage: Option<&'a serde_json::value::RawValue>,
}

/// Codex token counts: `input_tokens` includes `cached_input_tokens`.
#[derive(Deserialize, Default)]
struct TokenUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    cached_input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    #[serde(default)]
    reasoning_output_tokens: u64,
}

/// The parts of `session_meta` this reader needs.
#[derive(Deserialize)]
struct Meta<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    parent_thread_id: Option<Cow<'a, str>>,
    #[serde(default)]
    subagent_history_start_ordinal: Option<u64>,
    #[serde(default)]
    forked_from_ordinal_exclusive: Option<u64>,
    #[serde(default)]
    history_base: Option<HistoryBase>,
    #[serde(default)]
    source: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct HistoryBase {
    #[serde(default)]
    end_ordinal_exclusive: Option<u64>,
}

/// A thread's `session_meta` (the first among its first 8 lines): its id, its parent's,
/// where its own records start, and that line's number.
struct Head {
    id: Option<String>,
    parent: Option<String>,
    own_from: Option<u64>,
    line: u64,
}

fn usage_of(total: &TokenUsage) -> Usage {
    Usage {
        input_tokens: total.input_tokens.saturating_sub(total.cached_input_tokens),
        output_tokens: total.output_tokens,
        cache_read_tokens: total.cached_input_tokens,
        cache_write_tokens: 0,
        reasoning_tokens: total.reasoning_output_tokens,
    }
}

/// What a total adds to the one before it (both of one thread, legs included).
fn delta(now: &Usage, before: &Usage) -> [i128; 5] {
    let d = |a: u64, b: u64| i128::from(a) - i128::from(b);
    [
        d(now.input_tokens, before.input_tokens),
        d(now.output_tokens, before.output_tokens),
        d(now.cache_read_tokens, before.cache_read_tokens),
        d(now.cache_write_tokens, before.cache_write_tokens),
        d(now.reasoning_tokens, before.reasoning_tokens),
    ]
}

/// Whether `bytes` has a `\u00XX` escape of a printable ASCII character: the only way a
/// key or a value this reader looks for (all ASCII) could be spelled without its bytes
/// appearing as they are. Escapes of control characters (`\u001b`) and of anything past
/// ASCII, common in tool output, cannot spell them.
pub(super) fn escapes_ascii(finder: &memmem::Finder<'_>, bytes: &[u8]) -> bool {
    finder.find_iter(bytes).any(|at| {
        let hex = bytes
            .get(at + 4..at + 6)
            .and_then(|h| std::str::from_utf8(h).ok());
        hex.and_then(|h| u8::from_str_radix(h, 16).ok())
            .is_some_and(|b| (0x20..0x7f).contains(&b))
    })
}

/// One thread's file: its usage added to `usage`; its head returned.
fn read_thread(path: &Path, usage: &mut SessionUsage) -> io::Result<Option<Head>> {
    let mut head: Option<Head> = None;
    let mut ordinal = 0u64;
    // The running total: the legs before, the last total of this leg.
    let mut legs = Usage::default();
    let mut total: Option<Usage> = None;
    let mut counted = Usage::default();
    let mut model: Option<String> = None;
    // Additions by (time, model as it was then); the model filled in at the end.
    let mut adds: Vec<(Option<String>, Option<String>, [i128; 5])> = Vec::new();
    let finder_count = memmem::Finder::new(b"token_count");
    let finder_turn = memmem::Finder::new(b"turn_context");
    let finder_meta = memmem::Finder::new(b"session_meta");
    let finder_escape = memmem::Finder::new(b"\\u00");
    scan(path, |line| {
        let at = ordinal;
        ordinal += 1;
        if line.too_long {
            usage.line_too_long(path, (line.number, line.offset));
            return;
        }
        let looking_for_head = head.is_none() && line.number <= 8;
        let inherited = head
            .as_ref()
            .is_some_and(|h| h.own_from.is_some_and(|own| at < own) && line.number != h.line);
        if inherited {
            return;
        }
        let bytes = line.bytes;
        let wanted = finder_count.find(bytes).is_some()
            || finder_turn.find(bytes).is_some()
            || (looking_for_head && finder_meta.find(bytes).is_some())
            || escapes_ascii(&finder_escape, bytes);
        if !wanted {
            return;
        }
        let record: Record<'_> = match serde_json::from_slice(bytes) {
            Ok(record) => record,
            Err(error) => {
                usage.unreadable(path, (line.number, line.offset), &error);
                return;
            }
        };
        let Some(payload) = record.payload else {
            return;
        };
        match record.kind.as_deref() {
            Some("session_meta") if looking_for_head => {
                if let Ok(meta) = serde_json::from_str::<Meta<'_>>(payload.get()) {
                    let _ = meta.source;
                    head = Some(Head {
                        id: meta.id.map(Cow::into_owned),
                        parent: meta.parent_thread_id.map(Cow::into_owned),
                        own_from: meta
                            .subagent_history_start_ordinal
                            .or(meta.history_base.and_then(|h| h.end_ordinal_exclusive))
                            .or(meta.forked_from_ordinal_exclusive),
                        line: line.number,
                    });
                    // The records before it were not inherited: they came before the head.
                }
            }
            Some("turn_context") => {
                if let Ok(payload) = serde_json::from_str::<Payload<'_>>(payload.get())
                    && let Some(name) = payload.model
                    && let Ok(name) = serde_json::from_str::<Cow<'_, str>>(name.get())
                {
                    model = Some(name.into_owned());
                }
            }
            Some("event_msg") => {
                let Ok(payload) = serde_json::from_str::<Payload<'_>>(payload.get()) else {
                    return;
                };
                if payload.kind.as_deref() != Some("token_count") {
                    return;
                }
                let Some(now) = payload
                    .info
                    .and_then(|info| serde_json::from_str::<Info<'_>>(info.get()).ok())
                    .and_then(|info| info.total_token_usage)
                    .and_then(|t| serde_json::from_str::<TokenUsage>(t.get()).ok())
                    .map(|t| usage_of(&t))
                else {
                    return;
                };
                if let Some(last) = total
                    && (now.input_tokens < last.input_tokens
                        || now.output_tokens < last.output_tokens
                        || now.cache_read_tokens < last.cache_read_tokens)
                {
                    legs.add(&last);
                }
                total = Some(now);
                let mut running = legs;
                running.add(&now);
                adds.push((
                    record.timestamp.as_deref().map(str::to_owned),
                    model.clone(),
                    delta(&running, &counted),
                ));
                counted = running;
            }
            _ => {}
        }
        if let Some(time) = record.timestamp.as_deref() {
            usage.saw(time);
        }
    })?;
    // The parts, each a sum of additions; the whole is exactly the thread's last total.
    let last_model = model.unwrap_or_default();
    let mut parts: std::collections::BTreeMap<(Option<String>, String), [i128; 5]> =
        Default::default();
    for (time, model, add) in adds {
        let day = time.as_deref().and_then(|t| t.get(..10)).map(str::to_owned);
        let part = parts
            .entry((day, model.unwrap_or_else(|| last_model.clone())))
            .or_default();
        for (sum, add) in part.iter_mut().zip(add) {
            *sum += add;
        }
    }
    for ((day, model), [input, output, read, write, reasoning]) in parts {
        let n = |v: i128| u64::try_from(v.max(0)).unwrap_or(u64::MAX);
        let tokens = Usage {
            input_tokens: n(input),
            output_tokens: n(output),
            cache_read_tokens: n(read),
            cache_write_tokens: n(write),
            reasoning_tokens: n(reasoning),
        };
        usage.add(day.as_deref(), &model, &tokens);
    }
    Ok(head)
}

/// One session's usage: its root thread's file and every file below it.
pub(super) fn read(files: &SessionFiles) -> io::Result<SessionUsage> {
    let mut usage = SessionUsage {
        agent: "Codex",
        ..SessionUsage::default()
    };
    let mut session = None;
    for (at, file) in files.main.iter().chain(&files.subagents).enumerate() {
        let head = read_thread(file, &mut usage)?;
        if at == 0 {
            session = match (&files.main, head) {
                (Some(_), Some(head)) => head.id,
                (None, Some(head)) => head.parent.or(head.id),
                (_, None) => None,
            };
        }
    }
    usage.session = session
        .or_else(|| {
            let first = files.main.as_ref().or(files.subagents.first())?;
            Some(first.file_stem()?.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "session".into());
    Ok(usage)
}
