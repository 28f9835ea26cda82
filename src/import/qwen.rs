//! Qwen Code's sessions: `~/.qwen/projects/<project>/chats/<session id>.jsonl`, one
//! `ChatRecord` a line (`{uuid, parentUuid, sessionId, timestamp, type, message, ...}`,
//! Qwen Code's `chatRecordingService.ts`; the corpus follows 0.13.2).
//!
//! # What a session becomes
//!
//! A session file is a run, its run id the session's id. Qwen Code is a fork of Gemini CLI
//! and its records hold Gemini API `Content`: each `user`, `assistant` and `tool_result`
//! record with a `message` is fed to the Gemini adapter's session room
//! ([`normalize::gemini`](crate::normalize::gemini)) as the Gemini CLI message record it
//! stands for (`{id, timestamp, type, content: parts, tokens, model}`, made by this file:
//! `usageMetadata`'s `promptTokenCount` (cached included), `cachedContentTokenCount`,
//! `candidatesTokenCount`, `thoughtsTokenCount`, `toolUsePromptTokenCount` as Gemini CLI's
//! `tokens`), so that the content is read by one mapping. The run's provider is therefore
//! `gemini`; `import.format` (`qwen-code-session`) says whose file it was.
//!
//! * `system` records (compression checkpoints, slash commands, telemetry, titles,
//!   rewinds, ...) are passthrough: what was delivered stays in the run.
//! * A background sub-agent's records (`isSidechain` with its `agentId`) are a child run
//!   `<session>.agent-<agentId>`, linked before the parent closes.
//! * A line that is no JSON is fed as it is, for the adapter to report.
//!
//! The run's `import` account: `format`, `source`, `entries`, `thread`, `kept_out`, and
//! `cwd`, `version` (Qwen Code's), `agent_id` for a sub-agent.
//!
//! This file owns the layout and the translation of a record into the message it stands
//! for; the content's meaning is the adapter's.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::entries::{files_under, first_string, no_entries, scan};
use super::feed::{self, Feed, RunPlan, SessionPlan, Spawn, What};
use super::ids::{self, sanitize};
use super::session::{ImportError, SessionFiles};
use crate::model::{Provider, Timestamp};
use crate::normalize::skim::{Skim, once, string_end};

/// The sessions under `path`: a session file, or a directory searched recursively for
/// `chats/*.jsonl`. Sorted.
pub(crate) fn discover(path: &Path) -> io::Result<Vec<SessionFiles>> {
    let meta = std::fs::metadata(path)?;
    let mut files = Vec::new();
    if meta.is_file() {
        files.push(path.to_owned());
    } else {
        files_under(path, &mut files);
        files.retain(|file| {
            file.extension().is_some_and(|e| e == "jsonl")
                && file.parent().and_then(Path::file_name) == Some("chats".as_ref())
        });
        files.sort();
    }
    Ok(files.into_iter().map(SessionFiles::alone).collect())
}

/// The working directory a session ran in: its first record's `cwd`.
pub(crate) fn cwd(path: &Path) -> Option<PathBuf> {
    first_string(path, 8, "/cwd").map(PathBuf::from)
}

/// The records of one run, as they are planned.
#[derive(Default)]
struct Thread {
    feed: Vec<Feed>,
}

/// Reads a session file and decides its runs: the session's, and one per sub-agent.
pub(crate) fn plan(files: &SessionFiles) -> Result<SessionPlan, ImportError> {
    let path = files.main.as_deref().unwrap_or(Path::new(""));
    let mut root = Thread::default();
    let mut agents: BTreeMap<String, Thread> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    let (mut session_id, mut cwd, mut version) = (None, None, None);
    let mut entries = 0u64;
    let scanned = scan(path, |line| {
        entries += 1;
        let Some(head) = Head::of(line.bytes) else {
            root.feed
                .push(Feed::at(What::Entry, line.number, line.range.clone()));
            return;
        };
        session_id = session_id.take().or(head.session_id);
        cwd = cwd.take().or(head.cwd);
        version = version.take().or(head.version);
        // A message is made into its Gemini record as it is fed, not held so here.
        let what = if head.message {
            What::Remade(match head.splice {
                Some(splice) => Box::new(move |bytes, out| splice.write(bytes, out)),
                None => Box::new(remake),
            })
        } else {
            What::Keep("qwen-code/record")
        };
        let mut feed = Feed::at(what, line.number, line.range.clone());
        feed.timestamp = head.timestamp.and_then(|t| Timestamp::parse(&t).ok());
        let agent = head.agent;
        match agent {
            Some(agent) => {
                if !agents.contains_key(&agent) {
                    order.push(agent.clone());
                }
                agents.entry(agent).or_default().feed.push(feed);
            }
            None => root.feed.push(feed),
        }
    })?;
    if entries == 0 {
        return Err(no_entries("Qwen Code session file", path, &scanned));
    }
    let fallback = path.file_stem().unwrap_or_default().to_string_lossy();
    let session = sanitize(session_id.as_deref().unwrap_or(&fallback));
    let account = |fed: usize| {
        let mut import = feed::account("qwen-code-session", path, entries, fed as u64);
        import.insert("kept_out".into(), json!({}));
        if let Some(cwd) = &cwd {
            import.insert("cwd".into(), cwd.clone().into());
        }
        if let Some(version) = &version {
            import.insert("version".into(), version.clone().into());
        }
        import
    };
    let mut runs = Vec::with_capacity(1 + agents.len());
    let mut run = RunPlan::new(session.clone(), Provider::Gemini, path.to_owned());
    run.import = account(root.feed.len());
    run.session_id = session_id.clone();
    *run.feed_mut() = root.feed;
    runs.push(run);
    for agent in &order {
        let thread = agents.remove(agent).unwrap_or_default();
        let id = format!("{session}.agent-{}", sanitize(agent));
        let mut run = RunPlan::new(id, Provider::Gemini, path.to_owned());
        run.import = account(thread.feed.len());
        run.import.insert("agent_id".into(), agent.clone().into());
        run.session_id = session_id.clone();
        *run.feed_mut() = thread.feed;
        runs.push(run);
    }
    ids::unique(runs.iter_mut().map(|r| &mut r.run_id));
    let mut parents = vec![None; runs.len()];
    let mut spawns: Vec<Vec<Spawn>> = runs.iter().map(|_| Vec::new()).collect();
    for (at, agent) in order.iter().enumerate() {
        parents[at + 1] = Some(0);
        spawns[0].push(Spawn {
            call: None,
            child: runs[at + 1].run_id.clone(),
            name: agent.clone(),
        });
    }
    Ok(SessionPlan {
        session_id: runs[0].run_id.clone(),
        runs,
        parents,
        spawns,
        notes: Vec::new(),
    })
}

/// What planning takes from a record.
struct Head {
    session_id: Option<String>,
    cwd: Option<String>,
    version: Option<String>,
    timestamp: Option<String>,
    /// A background sub-agent's (`isSidechain`): its `agentId`.
    agent: Option<String>,
    /// It stands for a Gemini CLI message ([`message_record`]).
    message: bool,
    /// Where that message's fields are in the line, when its record can be made of them.
    splice: Option<Splice>,
}

/// A record's fields planning reads, borrowed, every other field skipped unread: a record
/// is read whole once, as it is fed ([`What::Remade`]), not twice.
#[derive(Deserialize)]
struct Fields<'a> {
    #[serde(rename = "sessionId", borrow)]
    session_id: Option<&'a RawValue>,
    #[serde(borrow)]
    cwd: Option<&'a RawValue>,
    #[serde(borrow)]
    version: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "there")]
    timestamp: Option<&'a RawValue>,
    #[serde(rename = "agentId", borrow)]
    agent_id: Option<&'a RawValue>,
    #[serde(rename = "isSidechain", borrow)]
    sidechain: Option<&'a RawValue>,
    #[serde(rename = "type", borrow)]
    kind: Option<&'a RawValue>,
    #[serde(borrow)]
    message: Option<Parts<'a>>,
    // What the message's record is made of ([`Splice`]), as written (`null` too).
    #[serde(default, borrow, deserialize_with = "there")]
    uuid: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "there")]
    model: Option<&'a RawValue>,
    #[serde(rename = "usageMetadata", default, borrow, deserialize_with = "there")]
    usage: Option<&'a RawValue>,
}

/// A `message`'s `parts`, whatever they are (`null` included): there or not, and where.
/// Read in the record's one pass (a `message` that is no object reads the line as a
/// value), as serde's derive read it: from an object, or from an array by position.
struct Parts<'a> {
    parts: Option<&'a RawValue>,
    /// Read from an object (a JSON value's `/message/parts`).
    object: bool,
}

impl<'de: 'a, 'a> Deserialize<'de> for Parts<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Parts<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("struct Parts")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Parts<'de>, A::Error> {
                let mut parts = None;
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    if key == "parts" {
                        if parts.is_some() {
                            return Err(serde::de::Error::duplicate_field("parts"));
                        }
                        parts = Some(map.next_value::<&'de RawValue>()?);
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(Parts {
                    parts,
                    object: true,
                })
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Parts<'de>, A::Error> {
                let parts = seq.next_element::<&'de RawValue>()?;
                Ok(Parts {
                    parts,
                    object: false,
                })
            }
        }
        deserializer.deserialize_struct("Parts", &["parts"], Visit)
    }
}

impl Head {
    /// What planning takes from a line; `None` when it is no JSON. A line the borrowed
    /// fields do not fit (no object, a field twice) is read as a JSON value, which takes
    /// what [`message_record`] does.
    fn of(bytes: &[u8]) -> Option<Head> {
        // What a JSON value refuses and skipping fields does not see (a lone surrogate's
        // escape, bytes that are no UTF-8) is read as a value, so a line is planned as
        // before: no JSON, fed as it is. (simdutf8's check: std's was 558M instructions of
        // an import's 6,268M, 100 sessions of 2 MiB.)
        let text = simdutf8::basic::from_utf8(bytes)
            .ok()
            .filter(|_| !surrogate_escape(bytes));
        let fields = match text {
            Some(text) => Raw::skimmed(text).or_else(|| {
                serde_json::from_slice::<Fields<'_>>(bytes)
                    .ok()
                    .map(Raw::from)
            }),
            None => None,
        };
        let Some(fields) = fields else {
            let record = serde_json::from_slice::<Value>(bytes).ok()?;
            let text = |key: &str| record.get(key).and_then(Value::as_str).map(str::to_owned);
            return Some(Head {
                session_id: text("sessionId"),
                cwd: text("cwd"),
                version: text("version"),
                timestamp: text("timestamp"),
                agent: text("agentId").filter(|_| record.get("isSidechain") == Some(&json!(true))),
                message: message_kind(&record).is_some(),
                splice: None,
            });
        };
        let text = |raw: Option<&str>| raw.and_then(|r| serde_json::from_str::<String>(r).ok());
        let sidechain = fields
            .sidechain
            .is_some_and(|r| serde_json::from_str::<bool>(r).ok() == Some(true));
        let kind = text(fields.kind);
        let message = matches!(kind.as_deref(), Some("assistant" | "user" | "tool_result"))
            && fields.message.as_ref().is_some_and(|m| m.parts.is_some());
        let splice = message
            .then(|| Splice::of(bytes, &fields, kind.as_deref()))
            .flatten();
        Some(Head {
            session_id: text(fields.session_id),
            cwd: text(fields.cwd),
            version: text(fields.version),
            timestamp: text(fields.timestamp),
            agent: text(fields.agent_id).filter(|_| sidechain),
            message,
            splice,
        })
    }
}

/// [`Fields`] as written (each value's JSON, `null` too where read so), whether read by
/// serde_json or [`skimmed`](Raw::skimmed).
#[derive(Default, Debug, PartialEq)]
struct Raw<'a> {
    session_id: Option<&'a str>,
    cwd: Option<&'a str>,
    version: Option<&'a str>,
    timestamp: Option<&'a str>,
    agent_id: Option<&'a str>,
    sidechain: Option<&'a str>,
    kind: Option<&'a str>,
    message: Option<RawParts<'a>>,
    uuid: Option<&'a str>,
    model: Option<&'a str>,
    usage: Option<&'a str>,
}

/// [`Parts`] as written.
#[derive(Debug, PartialEq)]
struct RawParts<'a> {
    parts: Option<&'a str>,
    object: bool,
}

impl<'a> From<Fields<'a>> for Raw<'a> {
    fn from(fields: Fields<'a>) -> Raw<'a> {
        let get = |raw: Option<&'a RawValue>| raw.map(RawValue::get);
        Raw {
            session_id: get(fields.session_id),
            cwd: get(fields.cwd),
            version: get(fields.version),
            timestamp: get(fields.timestamp),
            agent_id: get(fields.agent_id),
            sidechain: get(fields.sidechain),
            kind: get(fields.kind),
            message: fields.message.map(|m| RawParts {
                parts: get(m.parts),
                object: m.object,
            }),
            uuid: get(fields.uuid),
            model: get(fields.model),
            usage: get(fields.usage),
        }
    }
}

impl<'a> Raw<'a> {
    /// The fields [`skim`](crate::normalize::skim)med out of a line checked as UTF-8,
    /// where serde_json's [`Fields`] would read the same; `None` (serde_json reads it) at an
    /// escaped key, a field twice, a `message` that is no object or `null`, and whatever
    /// the skim does not read exactly as serde_json. Every field is taken as written,
    /// `null` included: planning reads `null` where [`Fields`] reads none as it reads none
    /// (no string, no `true`), and the splice's fields are [`Fields`]'s `null` as written.
    /// serde_json skipped a record's content at about 6 instructions a byte (1,758M of an
    /// import's 6,268M, 100 sessions of 2 MiB).
    fn skimmed(text: &'a str) -> Option<Raw<'a>> {
        // Each field seen at most once; `null` is none for a field [`Fields`] reads as an
        // `Option` (planning reads it so anyway), a value for one it takes as written.
        let mut nullable: [Option<Option<&'a str>>; 6] = [None; 6];
        let mut written: [Option<&'a str>; 4] = [None; 4];
        let mut message: Option<Option<RawParts<'a>>> = None;
        let raw = |skim: &mut Skim<'a>| text.get(skim.raw_range()?);
        let mut skim = Skim::new(text.as_bytes());
        skim.object(|skim, key| {
            let at = match key {
                "sessionId" => 0,
                "cwd" => 1,
                "version" => 2,
                "agentId" => 3,
                "isSidechain" => 4,
                "type" => 5,
                "timestamp" | "uuid" | "model" | "usageMetadata" => {
                    let at = match key {
                        "timestamp" => 0,
                        "uuid" => 1,
                        "model" => 2,
                        _ => 3,
                    };
                    return once(&mut written[at], raw(skim)?);
                }
                "message" => {
                    if skim.null() {
                        return once(&mut message, None);
                    }
                    if skim.peek()? != b'{' {
                        return None;
                    }
                    let mut parts = None;
                    skim.object(|skim, key| match key {
                        "parts" => once(&mut parts, raw(skim)?),
                        _ => skim.skip(),
                    })?;
                    let parts = RawParts {
                        parts,
                        object: true,
                    };
                    return once(&mut message, Some(parts));
                }
                _ => return skim.skip(),
            };
            let value = if skim.null() { None } else { Some(raw(skim)?) };
            once(&mut nullable[at], value)
        })?;
        skim.end()?;
        let [session_id, cwd, version, agent_id, sidechain, kind] = nullable.map(Option::flatten);
        let [timestamp, uuid, model, usage] = written;
        Some(Raw {
            session_id,
            cwd,
            version,
            timestamp,
            agent_id,
            sidechain,
            kind,
            message: message.flatten(),
            uuid,
            model,
            usage,
        })
    }
}

/// Where a message's fields are in its line (byte ranges), and its token counts: its
/// Gemini CLI record made of the line as it is fed, without reading the line again.
struct Splice {
    kind: &'static [u8],
    parts: (u32, u32),
    id: Option<(u32, u32)>,
    timestamp: Option<(u32, u32)>,
    model: Option<(u32, u32)>,
    tokens: Option<Box<[u64; 5]>>,
}

impl Splice {
    /// The splice of a message's line, read by [`Head::of`] (UTF-8, no surrogate escape);
    /// `None` where [`plain`] cannot vouch for the line, or its `message` is no object.
    fn of(bytes: &[u8], fields: &Raw<'_>, kind: Option<&str>) -> Option<Splice> {
        if bytes.trim_ascii_start().first() != Some(&b'{') || !plain(bytes) {
            return None;
        }
        let kind: &'static [u8] = match kind? {
            "assistant" => b"gemini",
            "user" | "tool_result" => b"user",
            _ => return None,
        };
        let message = fields.message.as_ref().filter(|m| m.object)?;
        let at = |raw: &str| {
            let start = (raw.as_ptr() as usize).checked_sub(bytes.as_ptr() as usize)?;
            let end = start.checked_add(raw.len())?;
            (end <= bytes.len()).then_some((u32::try_from(start).ok()?, u32::try_from(end).ok()?))
        };
        let place = |raw: Option<&str>| raw.map(|raw| at(raw).ok_or(())).transpose();
        let tokens = match fields.usage.filter(|u| u.starts_with('{')) {
            Some(usage) => {
                let usage = serde_json::from_str::<Value>(usage).ok()?;
                let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
                Some(Box::new([
                    count("cachedContentTokenCount"),
                    count("promptTokenCount"),
                    count("candidatesTokenCount"),
                    count("thoughtsTokenCount"),
                    count("toolUsePromptTokenCount"),
                ]))
            }
            None => None,
        };
        Some(Splice {
            kind,
            parts: at(message.parts?)?,
            id: place(fields.uuid).ok()?,
            timestamp: place(fields.timestamp).ok()?,
            model: place(fields.model).ok()?,
            tokens,
        })
    }

    /// Writes the record into `out` from the line's `bytes`; a line that is not the one
    /// planned (shorter) is made as [`remake`] makes it.
    fn write(&self, bytes: &[u8], out: &mut Vec<u8>) -> bool {
        let slice = |(start, end): (u32, u32)| bytes.get(start as usize..end as usize);
        let Some(parts) = slice(self.parts) else {
            return remake(bytes, out);
        };
        let field = |value: Option<(u32, u32)>| match value {
            Some(range) => slice(range).ok_or(()).map(Some),
            None => Ok(None),
        };
        let (Ok(id), Ok(timestamp), Ok(model)) =
            (field(self.id), field(self.timestamp), field(self.model))
        else {
            return remake(bytes, out);
        };
        let tokens = self.tokens.as_deref();
        write_record(out, self.kind, parts, id, timestamp, model, tokens);
        true
    }
}

/// A Gemini CLI message record of its fields as written, the keys in a JSON value's order
/// (sorted), as the record was written before; `tokens` are cached, input, output,
/// thoughts and tool.
fn write_record(
    out: &mut Vec<u8>,
    kind: &[u8],
    parts: &[u8],
    id: Option<&[u8]>,
    timestamp: Option<&[u8]>,
    model: Option<&[u8]>,
    tokens: Option<&[u64; 5]>,
) {
    out.extend_from_slice(b"{\"content\":");
    out.extend_from_slice(parts);
    out.extend_from_slice(b",\"id\":");
    out.extend_from_slice(id.unwrap_or(b"null"));
    if let Some(model) = model {
        out.extend_from_slice(b",\"model\":");
        out.extend_from_slice(model);
    }
    out.extend_from_slice(b",\"timestamp\":");
    out.extend_from_slice(timestamp.unwrap_or(b"null"));
    if let Some(tokens) = tokens {
        out.extend_from_slice(b",\"tokens\":{");
        let keys = ["cached", "input", "output", "thoughts", "tool"];
        for (at, (key, n)) in keys.into_iter().zip(tokens).enumerate() {
            if at > 0 {
                out.push(b',');
            }
            out.push(b'"');
            out.extend_from_slice(key.as_bytes());
            out.extend_from_slice(b"\":");
            out.extend_from_slice(itoa::Buffer::new().format(*n).as_bytes());
        }
        out.push(b'}');
    }
    out.extend_from_slice(b",\"type\":\"");
    out.extend_from_slice(kind);
    out.extend_from_slice(b"\"}");
}

/// The line has an escape `\uD800` to `\uDFFF` (half of a pair, or a lone one).
pub(crate) fn surrogate_escape(bytes: &[u8]) -> bool {
    memchr::memmem::find_iter(bytes, b"\\u").any(|at| {
        let escaped = bytes[..at]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count()
            % 2
            == 1;
        !escaped
            && matches!(
                bytes.get(at + 2..at + 4),
                Some([b'd' | b'D', b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F'])
            )
    })
}

/// The Gemini CLI message record a Qwen Code entry stands for ([`What::Remade`]), into
/// `out`; `false` for any other record, or what is no JSON.
///
/// Made of the entry's own bytes (its `message.parts`, `uuid`, `timestamp` and `model`
/// copied as they are), without a JSON value of the entry: the adapter reads the record as
/// it read one made of that value, since the entry is read as a JSON value would read it
/// ([`Message::splice`]). What that cannot vouch for is made of the value, as before.
fn remake(bytes: &[u8], out: &mut Vec<u8>) -> bool {
    if let Some(made) = Message::splice(bytes, out) {
        return made;
    }
    out.clear();
    let made = serde_json::from_slice::<Value>(bytes)
        .ok()
        .and_then(|record| message_record(&record));
    match made {
        Some(made) => {
            serde_json::to_writer(out, &made).expect("a JSON value serializes");
            true
        }
        None => false,
    }
}

/// The fields of a Qwen Code entry its Gemini CLI message record is made of, borrowed as
/// they are written (`null` included: a field there with `null` is not a field missing).
#[derive(Deserialize)]
struct Message<'a> {
    #[serde(default, borrow, deserialize_with = "there")]
    uuid: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "there")]
    timestamp: Option<&'a RawValue>,
    #[serde(rename = "type", default, borrow, deserialize_with = "there")]
    kind: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "there")]
    model: Option<&'a RawValue>,
    #[serde(rename = "usageMetadata", default, borrow, deserialize_with = "there")]
    usage: Option<&'a RawValue>,
    #[serde(default, borrow)]
    message: Option<Object<Content<'a>>>,
}

/// A `message` object's `parts`, as written.
#[derive(Deserialize)]
struct Content<'a> {
    #[serde(default, borrow, deserialize_with = "there")]
    parts: Option<&'a RawValue>,
}

/// A field's value as written, whatever it is (`null` too).
fn there<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(deserializer).map(Some)
}

/// A struct read from a JSON object only: serde's derive reads a struct from an array too
/// (by position), where a JSON value's `/message/parts` finds nothing.
struct Object<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Fields<T> {
            type Value = Object<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<Object<T>, A::Error> {
                T::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Object)
            }
        }
        deserializer.deserialize_map(Fields(std::marker::PhantomData))
    }
}

impl Message<'_> {
    /// Writes the record an entry stands for into `out` from the entry's own bytes:
    /// `Some(true)`, or `Some(false)` when it stands for none; `None` when the entry's
    /// bytes cannot vouch that the adapter reads them as a JSON value of the entry would
    /// be written (what is no plain JSON below, a duplicate field, no object), for
    /// [`message_record`] to decide on the value.
    fn splice(bytes: &[u8], out: &mut Vec<u8>) -> Option<bool> {
        if bytes.trim_ascii_start().first() != Some(&b'{') || !plain(bytes) {
            return None;
        }
        let message = serde_json::from_slice::<Message<'_>>(bytes).ok()?;
        // Read with a JSON value's rules: what skipping a field does not check.
        if std::str::from_utf8(bytes).is_err() || surrogate_escape(bytes) {
            return None;
        }
        let kind = match message
            .kind
            .map(|k| serde_json::from_str::<Cow<'_, str>>(k.get()))
        {
            Some(Ok(kind)) => kind,
            _ => return Some(false),
        };
        let kind: &[u8] = match &*kind {
            "assistant" => b"gemini",
            "user" | "tool_result" => b"user",
            _ => return Some(false),
        };
        let Some(parts) = message.message.and_then(|m| m.0.parts) else {
            return Some(false);
        };
        fn raw(value: Option<&RawValue>) -> Option<&[u8]> {
            value.map(|v| v.get().as_bytes())
        }
        let tokens = match message.usage.filter(|u| u.get().starts_with('{')) {
            Some(usage) => {
                let usage = serde_json::from_str::<Value>(usage.get()).ok()?;
                let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
                Some([
                    count("cachedContentTokenCount"),
                    count("promptTokenCount"),
                    count("candidatesTokenCount"),
                    count("thoughtsTokenCount"),
                    count("toolUsePromptTokenCount"),
                ])
            }
            None => None,
        };
        write_record(
            out,
            kind,
            parts.get().as_bytes(),
            raw(message.uuid),
            raw(message.timestamp),
            raw(message.model),
            tokens.as_ref(),
        );
        Some(true)
    }
}

/// JSON the adapter reads copied as serde_json reads it (this file's JSON value): nested
/// less than 100 deep (a JSON value refuses past 128, skipping does not), every number a
/// whole number of at most 18 digits and not `-0` (a float, an exponent, a long number or
/// `-0` may be read otherwise by the adapter's simd-json than by a JSON value, or refused
/// by one only). Strings are skipped. Assumes JSON (it is read as such after).
fn plain(bytes: &[u8]) -> bool {
    let mut depth = 0u32;
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            // Past the string (a `memchr2` per escape took 1,056M instructions of an
            // import's 6,268M); one [`string_end`] refuses, serde_json refuses too.
            b'"' => match string_end(bytes, at + 1) {
                Some((end, _)) => {
                    at = end;
                    continue;
                }
                None => return false,
            },
            b'{' | b'[' => {
                depth += 1;
                if depth >= 100 {
                    return false;
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'-' | b'0'..=b'9' => {
                let number = &bytes[at..];
                let len = number
                    .iter()
                    .position(|b| !matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                    .unwrap_or(number.len());
                let number = &number[..len];
                let digits = number.strip_prefix(b"-").unwrap_or(number);
                if digits.is_empty()
                    || digits.len() > 18
                    || !digits.iter().all(u8::is_ascii_digit)
                    || number.starts_with(b"-0")
                {
                    return false;
                }
                at += len;
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    true
}

/// The kind of Gemini CLI message a Qwen Code record with a `message` stands for; `None`
/// for any other record.
fn message_kind(record: &Value) -> Option<&'static str> {
    let kind = match record.get("type")?.as_str()? {
        "assistant" => "gemini",
        "user" | "tool_result" => "user",
        _ => return None,
    };
    record.pointer("/message/parts").map(|_| kind)
}

/// The Gemini CLI message record a Qwen Code record with a `message` stands for; `None`
/// for any other record.
fn message_record(record: &Value) -> Option<Value> {
    let kind = message_kind(record)?;
    let parts = record.pointer("/message/parts")?.clone();
    let mut made = json!({
        "id": record.get("uuid").cloned().unwrap_or(Value::Null),
        "timestamp": record.get("timestamp").cloned().unwrap_or(Value::Null),
        "type": kind,
        "content": parts,
    });
    if let Some(model) = record.get("model") {
        made["model"] = model.clone();
    }
    if let Some(usage) = record.get("usageMetadata").filter(|u| u.is_object()) {
        let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
        made["tokens"] = json!({
            "input": count("promptTokenCount"),
            "cached": count("cachedContentTokenCount"),
            "output": count("candidatesTokenCount"),
            "thoughts": count("thoughtsTokenCount"),
            "tool": count("toolUsePromptTokenCount"),
        });
    }
    Some(made)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What planning takes from a record, read as a JSON value (as it was before the fields
    /// were read borrowed).
    fn as_value(bytes: &[u8]) -> Option<(Vec<Option<String>>, bool)> {
        let record = serde_json::from_slice::<Value>(bytes).ok()?;
        let text = |key: &str| record.get(key).and_then(Value::as_str).map(str::to_owned);
        let agent = text("agentId").filter(|_| record.get("isSidechain") == Some(&json!(true)));
        let fields = vec![
            text("sessionId"),
            text("cwd"),
            text("version"),
            text("timestamp"),
            agent,
        ];
        Some((fields, message_record(&record).is_some()))
    }

    #[test]
    fn a_record_is_planned_from_its_borrowed_fields_as_from_its_value() {
        let lines: [&[u8]; 14] = [
            br#"{"sessionId":"s","cwd":"/w","version":"0.13","timestamp":"2026-01-01T00:00:00Z","type":"user","message":{"parts":[{"text":"hi"}]}}"#,
            br#"{"type":"assistant","message":{"role":"model","parts":null},"isSidechain":true,"agentId":"a1"}"#,
            br#"{"type":"assistant","message":{"role":"model"},"isSidechain":"true","agentId":"a1"}"#,
            br#"{"type":"tool_result","message":"text","agentId":"a2","isSidechain":false}"#,
            br#"{"type":"system","message":{"parts":[]},"sessionId":7,"cwd":null}"#,
            br#"{"type":"user","type":"assistant","message":{"parts":[]}}"#,
            br#"{"type":"user","message":{"parts":[],"parts":null}}"#,
            br#"{"type":"user","message":[1,2]}"#,
            br#"{"type":"user","message":{"parts":["\ud800"]}}"#,
            br#"{"type":"user","extra":"\udc00","message":{"parts":[]}}"#,
            br#"{"type":"user","extra":"\\udc00","message":{"parts":[]}}"#,
            b"{\"type\":\"user\",\"extra\":\"\xff\",\"message\":{\"parts\":[]}}",
            br#"[1,2]"#,
            br#"{"type":"user","message":{"parts":[]}"#,
        ];
        for line in lines {
            let head = Head::of(line).map(|h| {
                let fields = vec![h.session_id, h.cwd, h.version, h.timestamp, h.agent];
                (fields, h.message)
            });
            assert_eq!(head, as_value(line), "{}", String::from_utf8_lossy(line));
        }
    }

    /// Where the skim reads a line's fields, serde_json's [`Fields`] reads the same: every
    /// line of the store's corpus and of the tests above, each cut short and with bytes put
    /// in and changed at every place.
    #[test]
    fn the_skim_reads_the_fields_serde_json_reads() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/import/qwen");
        let mut files = Vec::new();
        files_under(&root, &mut files);
        let mut lines: Vec<Vec<u8>> = Vec::new();
        for file in files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == "jsonl"))
        {
            let text = std::fs::read(file).unwrap();
            lines.extend(text.split(|&b| b == b'\n').map(<[u8]>::to_vec));
        }
        lines.extend(
            [
                &br#"{"sessionId":"s","cwd":"/w","version":"0.13","timestamp":"2026-01-01T00:00:00Z","type":"user","message":{"parts":[{"text":"hi \"x\"\n\u00e9"}]}}"#[..],
                br#"{"type":"assistant","message":{"role":"model","parts":null},"isSidechain":true,"agentId":"a1","model":null,"uuid":"u","usageMetadata":{"promptTokenCount":3}}"#,
                br#"{"type":"user","message":null,"cwd":null}"#,
                br#" { "type" : "user" , "message" : { "parts" : [ 1 , -2.5e3 ] } } "#,
            ]
            .map(<[u8]>::to_vec),
        );
        let mut read = 0;
        let mut check = |line: &[u8]| {
            let Some(text) = std::str::from_utf8(line).ok() else {
                return;
            };
            if let Some(skimmed) = Raw::skimmed(text) {
                let serde = serde_json::from_slice::<Fields<'_>>(line)
                    .ok()
                    .map(Raw::from);
                assert_eq!(Some(skimmed), serde, "{text}");
                read += 1;
            }
        };
        lines.sort();
        lines.dedup();
        for line in &lines {
            check(line);
            // Damaged copies of the short lines (the long ones' damage falls in content).
            if line.len() > 700 {
                continue;
            }
            for cut in 0..line.len() {
                check(&line[..cut]);
                for put in [b'"', b'\\', b',', b'}', b']', b'{', b'[', b'0', b' ', b'n'] {
                    let mut changed = line[..cut].to_vec();
                    changed.push(put);
                    changed.extend_from_slice(&line[cut..]);
                    check(&changed);
                    let mut swapped = line.clone();
                    swapped[cut] = put;
                    check(&swapped);
                }
            }
        }
        assert!(read > 1000, "the skim read only {read} lines");
    }

    /// The record a line stands for as `remake` makes it (of the line's bytes when it can),
    /// read back as a JSON value by serde_json and by the adapter's simd-json.
    fn remade(line: &[u8]) -> (Option<Value>, Option<Value>) {
        let mut made = Vec::new();
        if !remake(line, &mut made) {
            return (None, None);
        }
        let by_simd_json = simd_json::serde::from_slice::<Value>(&mut made.clone()).ok();
        (serde_json::from_slice::<Value>(&made).ok(), by_simd_json)
    }

    #[test]
    fn a_message_made_of_the_entrys_bytes_reads_as_one_made_of_its_value() {
        // (line, made of its bytes without a JSON value)
        let lines: [(&[u8], bool); 22] = [
            (br#"{"uuid":"u1","timestamp":"2026-01-01T00:00:00Z","type":"assistant","message":{"role":"model","parts":[{"text":"a \"b\" \\ \u00e9 \n","thought":true},{"functionCall":{"id":"c","name":"run","args":{"n":5,"m":-7,"ok":true,"no":null}}}]},"model":"qwen3","usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":3,"cachedContentTokenCount":4,"thoughtsTokenCount":1,"toolUsePromptTokenCount":2,"totalTokenCount":13}}"#, true),
            (br#"{"type":"tool_result","message":{"parts":[{"functionResponse":{"id":"c","response":{"output":"ok"}}}]}}"#, true),
            // An escaped key is the key it spells.
            (br#"{"\u0074ype":"user","m\u0065ssage":{"\u0070arts":[{"text":"hi"}]},"uuid":"u2"}"#, true),
            (br#"{"type":"\u0075ser","message":{"parts":"x"},"model":null,"uuid":null,"timestamp":7}"#, true),
            (br#"{"type":"assistant","message":{"parts":null},"usageMetadata":"none"}"#, true),
            (br#"{"type":"assistant","message":{"parts":[]},"usageMetadata":{"promptTokenCount":"5","candidatesTokenCount":-1}}"#, true),
            (br#"{"type":"assistant","message":{"parts":[]},"usageMetadata":{"promptTokenCount":5,"promptTokenCount":6}}"#, true),
            (br#"{"type":"assistant","message":{"parts":[{"t":1},{"t":1}],"role":"model"},"extra":{"a":[1,{"b":2}]}}"#, true),
            (br#" {"type":"system","message":{"parts":[]}}"#, true),
            (br#"{"type":"user","message":null}"#, true),
            (br#"{"type":"user"}"#, true),
            (br#"{"type":"user","message":{"role":"user"}}"#, true),
            // What is made of the JSON value.
            (br#"{"type":"user","type":"assistant","message":{"parts":[]}}"#, false),
            (br#"{"type":"user","message":{"parts":[],"parts":null}}"#, false),
            (br#"{"type":"user","message":[1,2]}"#, false),
            (br#"{"type":"user","message":{"parts":[1.5,2e3]}}"#, false),
            (br#"{"type":"user","message":{"parts":[-0]}}"#, false),
            (br#"{"type":"user","message":{"parts":[12345678901234567890]}}"#, false),
            (br#"{"type":"user","message":{"parts":[]},"extra":1e400}"#, false),
            (br#"{"type":"user","message":{"parts":["\ud83d\ude00"]}}"#, false),
            (b"{\"type\":\"user\",\"extra\":\"\xff\",\"message\":{\"parts\":[]}}", false),
            (br#"[{"type":"user","message":{"parts":[]}}]"#, false),
        ];
        let deep = format!(
            r#"{{"type":"user","message":{{"parts":{}{}}}}}"#,
            "[".repeat(120),
            "]".repeat(120)
        );
        let cut = br#"{"type":"user","message":{"parts":["cut"#;
        let lines = lines
            .into_iter()
            .chain([(deep.as_bytes(), false), (&cut[..], false)]);
        for (line, spliced) in lines {
            let text = String::from_utf8_lossy(line);
            let by_value = serde_json::from_slice::<Value>(line)
                .ok()
                .and_then(|record| message_record(&record));
            let mut out = Vec::new();
            assert_eq!(Message::splice(line, &mut out).is_some(), spliced, "{text}");
            let (serde, simd) = remade(line);
            assert_eq!(serde, by_value, "{text}");
            if spliced {
                assert_eq!(simd, by_value, "{text}");
            }
            // Planning keeps where the fields are, and the record is made of them.
            let splice = Head::of(line).and_then(|head| head.splice);
            assert_eq!(splice.is_some(), spliced && by_value.is_some(), "{text}");
            if let Some(splice) = splice {
                let mut made = Vec::new();
                assert!(splice.write(line, &mut made), "{text}");
                assert_eq!(
                    serde_json::from_slice::<Value>(&made).ok(),
                    by_value,
                    "{text}"
                );
                let by_simd_json = simd_json::serde::from_slice::<Value>(&mut made).ok();
                assert_eq!(by_simd_json, by_value, "{text}");
                // A line shorter than planned is made as `remake` makes it.
                made.clear();
                let short = &line[..splice.parts.1 as usize - 1];
                assert!(!splice.write(short, &mut made), "{text}");
            }
        }
    }
}
