//! Claude Code's usage: every assistant entry's `message.usage`, each API message counted
//! once, by the rules `axt import` transcribes a session with (`import::claude_code`).
//!
//! * One API message is a chain of entries sharing `message.id`, each repeating its usage
//!   so far: the message counts once, from its *last* snapshot (a field a later snapshot
//!   carries replaces the earlier one); a message without an id is a line of its own.
//! * A session log's thread is the `parentUuid` chain to its last message (outside
//!   sidechains), through `logicalParentUuid` across a compaction, going on in file order
//!   from the last message before an entry whose parent is not in the file; a message is in
//!   the thread when one of its entries is on that chain. The messages of a branch the
//!   conversation left (a rewound reply) were spent but are not the run's: their tokens are
//!   kept apart ([`SessionUsage::off_chain`]), as the importer keeps them out of the run's
//!   usage. An agent log (`subagents/agent-<id>.jsonl`, the seed's `transcripts/`) is a
//!   thread of its own, by the same rule; an in-file sidechain (Claude Code 2.0) counts
//!   every message it has.
//! * The model of a message that names none (or `<synthetic>`, Claude Code's own) is its
//!   thread's last, the one `axt stats` prices the run with.
//! * A workflow's `journal.jsonl` and files in `subagents/` not named `agent-*.jsonl` are
//!   not agents' logs (their tokens are the agents'), and are not read.
//!
//! Every line is read typed and borrowed, only the graph fields and `message`'s `id`,
//! `model` and `usage` (its content skipped); a line that is not JSON is a diagnostic.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io;
use std::path::Path;

use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use twox_hash::XxHash3_64;

use super::lines::scan;
use super::tally::SessionUsage;
use crate::import::SessionFiles;
use crate::normalize::lenient::{Text, otherwise, skip_seq};
use crate::normalize::messages_api::MessageUsage;

/// The fields of an entry the thread and the usage need.
#[derive(Deserialize)]
struct Head<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    uuid: Option<Cow<'a, str>>,
    #[serde(rename = "parentUuid", borrow, default)]
    parent: Option<Cow<'a, str>>,
    #[serde(rename = "logicalParentUuid", borrow, default)]
    logical_parent: Option<Cow<'a, str>>,
    #[serde(rename = "isSidechain", default)]
    sidechain: Option<bool>,
    #[serde(rename = "sessionId", borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Message<'a>,
}

/// `message`'s id, model and usage; anything but an object is no message.
#[derive(Default)]
struct Message<'a> {
    id: Option<Cow<'a, str>>,
    model: Option<Cow<'a, str>>,
    usage: Option<MessageUsage>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Message<'a> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Fields<'a> {
            type Value = Message<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a message")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Message<'a>, M::Error> {
                let mut message = Message::default();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match &*key {
                        "id" => {
                            message.id = map.next_value::<Option<Text<'a>>>()?.and_then(|t| t.0)
                        }
                        "model" => {
                            message.model = map.next_value::<Option<Text<'a>>>()?.and_then(|t| t.0)
                        }
                        "usage" => message.usage = map.next_value::<Option<MessageUsage>>()?,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(message)
            }
            fn visit_seq<S: SeqAccess<'de>>(self, seq: S) -> Result<Message<'a>, S::Error> {
                skip_seq(seq).map(|()| Message::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Message<'a>, E> {
                Ok(Message::default())
            }
            otherwise!(Message::default());
        }
        deserializer.deserialize_any(Fields(std::marker::PhantomData))
    }
}

/// An entry of a log as the thread needs it.
#[derive(Clone, Copy)]
struct Entry {
    uuid: Option<u128>,
    /// `parentUuid`, else `logicalParentUuid`.
    parent: Option<u128>,
    /// A `user` or `assistant` entry.
    message: bool,
    sidechain: bool,
    /// An assistant entry's message: its index in `Log::ids` (`None` without an id).
    id: Option<u32>,
    /// An assistant entry's usage: its index in `Log::calls`.
    call: Option<u32>,
}

/// An assistant entry with a usage.
struct Call {
    snapshot: MessageUsage,
    /// Its line, the key of a message without id.
    line: u64,
    model: Option<u32>,
    time: Option<Box<str>>,
}

/// A log's skeleton: what choosing its thread needs, and every usage snapshot.
#[derive(Default)]
struct Log {
    entries: Vec<Entry>,
    ids: HashMap<Box<str>, u32>,
    models: Vec<Box<str>>,
    calls: Vec<Call>,
    session_id: Option<String>,
}

impl Log {
    fn model(&mut self, name: &str) -> u32 {
        match self.models.iter().position(|m| &**m == name) {
            Some(at) => at as u32,
            None => {
                self.models.push(name.into());
                (self.models.len() - 1) as u32
            }
        }
    }
}

/// A uuid as a key (two 64-bit hashes: two uuids share one only by a 128-bit collision).
fn key(uuid: &str) -> u128 {
    let low = XxHash3_64::oneshot_with_seed(0, uuid.as_bytes());
    let high = XxHash3_64::oneshot_with_seed(0x9e37_79b9_7f4a_7c15, uuid.as_bytes());
    (u128::from(high) << 64) | u128::from(low)
}

/// Reads one log's skeleton; its unreadable lines go to `usage`'s diagnostics.
fn read_log(path: &Path, usage: &mut SessionUsage) -> io::Result<Log> {
    let mut log = Log::default();
    scan(path, |line| {
        if line.too_long {
            usage.line_too_long(path, (line.number, line.offset));
            return;
        }
        let head: Head<'_> = match serde_json::from_slice(line.bytes) {
            Ok(head) => head,
            Err(error) => {
                usage.unreadable(path, (line.number, line.offset), &error);
                return;
            }
        };
        if let Some(time) = head.timestamp.as_deref() {
            usage.saw(time);
        }
        if log.session_id.is_none() {
            log.session_id = head.session_id.as_deref().map(str::to_owned);
        }
        let kind = head.kind.as_deref().unwrap_or_default();
        let mut entry = Entry {
            uuid: head.uuid.as_deref().map(key),
            parent: (head.parent.as_deref())
                .or(head.logical_parent.as_deref())
                .map(key),
            message: matches!(kind, "user" | "assistant"),
            sidechain: head.sidechain.unwrap_or(false),
            id: None,
            call: None,
        };
        if kind == "assistant" {
            let message = head.message;
            if let Some(id) = message.id.as_deref() {
                let next = log.ids.len() as u32;
                entry.id = Some(*log.ids.entry(id.into()).or_insert(next));
            }
            if let Some(snapshot) = message.usage {
                let model = (message.model.as_deref()).map(|m| log.model(m));
                log.calls.push(Call {
                    snapshot,
                    line: line.number,
                    model,
                    time: head.timestamp.as_deref().map(Into::into),
                });
                entry.call = Some((log.calls.len() - 1) as u32);
            }
        }
        log.entries.push(entry);
    })?;
    Ok(log)
}

/// The entries of `members` on the thread's chain: from the last message back through
/// `parentUuid` (or `logicalParentUuid`), going on in file order from the last message
/// before an entry whose parent is not in the file (the importer's `select`).
fn chain(entries: &[Entry], members: &[usize], by_uuid: &HashMap<u128, usize>) -> HashSet<usize> {
    let mut chain = HashSet::new();
    let in_group: HashSet<usize> = members.iter().copied().collect();
    let Some(mut at) = (members.iter().rev())
        .find(|at| entries[**at].message && entries[**at].uuid.is_some())
        .copied()
    else {
        return chain;
    };
    loop {
        if !chain.insert(at) {
            break;
        }
        let Some(parent) = entries[at].parent else {
            break;
        };
        match by_uuid.get(&parent) {
            Some(next) if in_group.contains(next) => at = *next,
            Some(_) => break,
            None => {
                let before = &members[..members.partition_point(|m| *m < at)];
                let previous = before.iter().rev().copied().find(|m| {
                    let e = &entries[*m];
                    e.message && e.uuid.is_some() && !chain.contains(m)
                });
                match previous {
                    Some(previous) => at = previous,
                    None => break,
                }
            }
        }
    }
    chain
}

/// Adds the messages of one group of `log`'s entries: with `thread`, only those of the
/// thread's messages (the others to `off_chain`), else every one.
fn count(log: &Log, members: &[usize], thread: Option<&HashSet<usize>>, usage: &mut SessionUsage) {
    let on_thread: Option<HashSet<u32>> = thread.map(|chain| {
        (chain.iter())
            .filter_map(|at| log.entries[*at].id)
            .collect()
    });
    // Message (id, else line) -> its snapshots folded, its model, its last time, whether
    // it is the thread's.
    let mut messages: HashMap<MessageKey, Folded<'_>> = HashMap::new();
    let mut order = Vec::new();
    let mut last_model = None;
    for at in members {
        let entry = &log.entries[*at];
        let Some(call) = entry.call else { continue };
        let call = &log.calls[call as usize];
        let ours = match (&on_thread, entry.id) {
            (None, _) => true,
            (Some(ids), Some(id)) => ids.contains(&id),
            (Some(_), None) => thread.is_some_and(|chain| chain.contains(at)),
        };
        let model = call
            .model
            .filter(|m| &*log.models[*m as usize] != "<synthetic>");
        if ours && model.is_some() {
            last_model = model;
        }
        let key = match entry.id {
            Some(id) => MessageKey::Id(id),
            None => MessageKey::Line(call.line),
        };
        match messages.get_mut(&key) {
            Some((snapshot, kept_model, time, _)) => {
                snapshot.update(call.snapshot);
                if model.is_some() {
                    *kept_model = model;
                }
                if call.time.is_some() {
                    *time = call.time.as_deref();
                }
            }
            None => {
                order.push(key);
                messages.insert(key, (call.snapshot, model, call.time.as_deref(), ours));
            }
        }
    }
    let fallback = last_model
        .map(|m| &*log.models[m as usize])
        .unwrap_or_default();
    for key in order {
        let (snapshot, model, time, ours) = &messages[&key];
        let tokens = snapshot.to_usage();
        if !ours {
            usage.off_chain.add(&tokens);
            continue;
        }
        let model = model.map_or(fallback, |m| &*log.models[m as usize]);
        usage.add(*time, model, &tokens);
    }
}

/// A message's snapshots folded, its model, its last time, whether it is the thread's.
type Folded<'a> = (MessageUsage, Option<u32>, Option<&'a str>, bool);

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum MessageKey {
    Id(u32),
    Line(u64),
}

/// Whether `file` is an agent's log: not a workflow's journal, and in `subagents/` only
/// when named `agent-*.jsonl`.
fn is_agent_log(file: &Path) -> bool {
    let name = file.file_name().unwrap_or_default().to_string_lossy();
    if name == "journal.jsonl" {
        return false;
    }
    let in_subagents = file
        .ancestors()
        .skip(1)
        .any(|dir| dir.file_name().is_some_and(|n| n == "subagents"));
    !in_subagents || name.starts_with("agent-")
}

/// One session's usage: its log and its agents' logs.
pub(super) fn read(files: &SessionFiles) -> io::Result<SessionUsage> {
    let mut usage = SessionUsage {
        agent: "Claude Code",
        ..SessionUsage::default()
    };
    let fallback = match &files.main {
        Some(main) => main.file_stem(),
        None => files
            .subagents
            .first()
            .and_then(|f| f.parent()?.parent()?.file_name()),
    };
    let fallback = fallback.map(|s| s.to_string_lossy().into_owned());
    if let Some(main) = &files.main {
        let log = read_log(main, &mut usage)?;
        let by_uuid = uuids(&log);
        let (main_entries, side): (Vec<usize>, Vec<usize>) =
            (0..log.entries.len()).partition(|at| !log.entries[*at].sidechain);
        let thread = chain(&log.entries, &main_entries, &by_uuid);
        count(&log, &main_entries, Some(&thread), &mut usage);
        count(&log, &side, None, &mut usage);
        usage.session = log.session_id.clone().unwrap_or_default();
    }
    for file in files.subagents.iter().filter(|f| is_agent_log(f)) {
        let log = read_log(file, &mut usage)?;
        let by_uuid = uuids(&log);
        let all: Vec<usize> = (0..log.entries.len()).collect();
        let thread = chain(&log.entries, &all, &by_uuid);
        count(&log, &all, Some(&thread), &mut usage);
    }
    if usage.session.is_empty() {
        usage.session = fallback.unwrap_or_else(|| "session".into());
    }
    Ok(usage)
}

/// Uuid -> entry, the later of two entries with one uuid (as the importer links them).
fn uuids(log: &Log) -> HashMap<u128, usize> {
    (log.entries.iter().enumerate())
        .filter_map(|(at, e)| Some((e.uuid?, at)))
        .collect()
}
