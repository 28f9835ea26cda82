//! Gemini CLI's usage: each `gemini` message's `tokens`, counted once, by the rules `axt
//! import` transcribes a session with (`import::gemini`, the Gemini adapter's session
//! room).
//!
//! * The CLI writes a message again, whole, each time it grows: a message (a record with an
//!   `id` and a `content`) counts once, from its *last* version (in the place of its first,
//!   as the importer feeds it); the adapter also takes a record with the id of the one just
//!   before as that one's next version.
//! * `tokens` (one API response's) count when the message is of type `gemini` and `tokens`
//!   is an object: `input` includes `cached`, the uncached part and `tool` are input,
//!   `output` plus `thoughts` the output (`thoughts` the reasoning).
//! * A rewind (`{"$rewindTo": id}`) takes back the message `id` and every later one: their
//!   tokens were spent, but are kept apart ([`SessionUsage::off_chain`]), as the importer
//!   keeps them out of the run's usage (once per id, whatever the message's type).
//! * The model of a message that names none is its run's last, the one `axt stats` prices
//!   the run with. A sub-agent's recording (`chats/<session id>/*.jsonl`) is a run of its
//!   own, by the same rules.
//! * A file read as stream-json (its first record not a session file's) and a saved chat
//!   (`checkpoint-*.json`, `Content` without tokens) have no tokens here.
//! * The older single document (`session-*.json`, `{sessionId, ..., messages}`): its
//!   messages in order, by the same rules (no rewind: the importer applies none there).
//!
//! Every record is read typed and borrowed (its content skipped unread): a message's last
//! version is only known once every record with its id has been seen. A line that is not
//! JSON is a diagnostic.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::io;
use std::marker::PhantomData;
use std::path::Path;

use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::lines::scan;
use super::tally::{SessionUsage, json_kind};
use crate::import::SessionFiles;
use crate::import::surrogate_escape;
use crate::model::Usage;
use crate::normalize::lenient::{Unsigned, otherwise, skip_seq};

/// A field read as a string, told apart from absent, `null` and any other value.
#[derive(Default, Clone, Debug, PartialEq)]
pub(super) enum Field<'a> {
    #[default]
    Absent,
    Null,
    Str(Cow<'a, str>),
    Other,
}

impl Field<'_> {
    pub(super) fn str(&self) -> Option<&str> {
        match self {
            Field::Str(text) => Some(text),
            _ => None,
        }
    }

    /// What `Option<String>` reads: `None` when absent or `null`, an error for another value.
    fn strict(&self) -> Result<Option<&str>, ()> {
        match self {
            Field::Absent | Field::Null => Ok(None),
            Field::Str(text) => Ok(Some(text)),
            Field::Other => Err(()),
        }
    }
}

/// The kind of a value read only for what it is.
#[derive(Default, Clone, Copy, Debug, PartialEq)]
pub(super) enum Shape {
    #[default]
    Absent,
    Null,
    Array,
    Other,
}

/// A value skipped, its kind kept.
pub(super) struct Skipped(pub(super) Shape);

/// `tokens`, when it is an object: each count as the adapter reads it (an unsigned
/// integer, else 0).
#[derive(Default, Clone, Copy, Debug)]
pub(super) struct Tokens {
    pub(super) input: u64,
    pub(super) output: u64,
    pub(super) cached: u64,
    pub(super) thoughts: u64,
    pub(super) tool: u64,
}

impl Tokens {
    fn usage(&self) -> Usage {
        Usage {
            input_tokens: self.input.saturating_sub(self.cached) + self.tool,
            output_tokens: self.output + self.thoughts,
            cache_read_tokens: self.cached,
            cache_write_tokens: 0,
            reasoning_tokens: self.thoughts,
        }
    }
}

/// What this reader needs of a record.
#[derive(Default, Debug)]
struct Record<'a> {
    object: bool,
    id: Field<'a>,
    kind: Field<'a>,
    content: Shape,
    timestamp: Field<'a>,
    session_id: Field<'a>,
    project_hash: Shape,
    rewind_to: Field<'a>,
    set: Shape,
    role: Field<'a>,
    parts: Shape,
    model: Field<'a>,
    tokens: Option<Tokens>,
    /// A field the importer's plan reads strictly came twice (its reading fails then).
    twice: bool,
}

impl<'a> Record<'a> {
    /// What the importer's plan reads of it (`import::gemini`'s `Head`): the message id
    /// (an id with a content that is not `null`), the rewind's target, the session id and
    /// whether it has a type; all `None` when that reading fails.
    fn plan(&self) -> Plan<'_> {
        let read = || -> Result<Plan<'_>, ()> {
            if self.twice || !self.object {
                return Err(());
            }
            let id = self.id.strict()?;
            let kind = self.kind.strict()?;
            self.timestamp.strict()?;
            let session_id = self.session_id.strict()?;
            let rewind_to = self.rewind_to.strict()?;
            let content = !matches!(self.content, Shape::Absent | Shape::Null);
            Ok(Plan {
                message: id.filter(|_| content),
                rewind_to,
                session_id,
                typed: kind.is_some(),
            })
        };
        read().unwrap_or_default()
    }

    /// Whether the adapter takes it for a session file's record (`is_session_record`).
    fn is_session_record(&self) -> bool {
        let has = |field: &Field<'_>| *field != Field::Absent;
        (has(&self.session_id) && self.project_hash != Shape::Absent)
            || (has(&self.id)
                && self.content != Shape::Absent
                && matches!(
                    self.kind.str(),
                    Some("user" | "gemini" | "info" | "error" | "warning")
                ))
            || self.set != Shape::Absent
            || has(&self.rewind_to)
            || (matches!(self.role.str(), Some("user" | "model")) && self.parts == Shape::Array)
    }

    /// The adapter's message id: a string `id` with a `content` (`null` included).
    fn message_id(&self) -> Option<&str> {
        self.id.str().filter(|_| self.content != Shape::Absent)
    }
}

#[derive(Default)]
struct Plan<'r> {
    message: Option<&'r str>,
    rewind_to: Option<&'r str>,
    session_id: Option<&'r str>,
    typed: bool,
}

/// What counting needs of a record, owned: kept from its reading to the feed's order.
#[derive(Clone, Debug, Default)]
pub(super) struct Kept {
    /// Not JSON: the adapter reports it, and it changes nothing.
    pub(super) unread: bool,
    pub(super) object: bool,
    pub(super) session_record: bool,
    pub(super) message: Option<String>,
    pub(super) gemini: bool,
    pub(super) tokens: Option<Tokens>,
    pub(super) model: Option<String>,
    pub(super) time: Option<String>,
}

impl Kept {
    fn of(record: &Record<'_>) -> Kept {
        Kept {
            unread: false,
            object: record.object,
            session_record: record.object && record.is_session_record(),
            message: record.message_id().map(str::to_owned),
            gemini: record.kind.str() == Some("gemini"),
            tokens: record.tokens,
            model: record.model.str().map(str::to_owned),
            time: record.timestamp.str().map(str::to_owned),
        }
    }
}

/// One run's records in the order the importer feeds them, and the ones a rewind took back.
#[derive(Default)]
pub(super) struct Run {
    pub(super) feed: Vec<Kept>,
    pub(super) rewound: Vec<Kept>,
    pub(super) session_id: Option<String>,
}

/// A session file (JSON Lines), planned as the importer plans it.
fn read_file(path: &Path, usage: &mut SessionUsage) -> io::Result<Run> {
    let mut placed: Vec<Kept> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let mut live: Vec<(String, usize)> = Vec::new();
    let mut rewound: Vec<usize> = Vec::new();
    let mut session_id: Option<Option<String>> = None;
    scan(path, |line| {
        if line.too_long {
            usage.line_too_long(path, (line.number, line.offset));
            placed.push(Kept {
                unread: true,
                ..Kept::default()
            });
            return;
        }
        let record: Record<'_> = match parse(line.bytes) {
            Ok(record) => record,
            Err(error) => {
                usage.unreadable(path, (line.number, line.offset), &error);
                placed.push(Kept {
                    unread: true,
                    ..Kept::default()
                });
                return;
            }
        };
        if let Some(time) = record.timestamp.str() {
            usage.saw(time);
        }
        let plan = record.plan();
        if session_id.is_none() && !plan.typed {
            session_id = Some(plan.session_id.map(str::to_owned));
        }
        if let Some(target) = plan.rewind_to {
            let from = live.iter().position(|(id, _)| id == target);
            for (id, at) in live.drain(from.unwrap_or(live.len())..) {
                by_id.remove(&id);
                rewound.push(at);
            }
        }
        let kept = Kept::of(&record);
        match plan.message {
            Some(id) => match by_id.get(id) {
                // A later version: it stands in the first's place.
                Some(&at) => placed[at] = kept,
                None => {
                    by_id.insert(id.to_owned(), placed.len());
                    live.push((id.to_owned(), placed.len()));
                    placed.push(kept);
                }
            },
            None => placed.push(kept),
        }
    })?;
    let mut run = Run {
        session_id: session_id.flatten(),
        ..Run::default()
    };
    let rewound: std::collections::HashSet<usize> = rewound.into_iter().collect();
    for (at, kept) in placed.into_iter().enumerate() {
        match rewound.contains(&at) {
            true => run.rewound.push(kept),
            false => run.feed.push(kept),
        }
    }
    Ok(run)
}

/// A line's record. What the adapter's JSON value refuses and skipping a field does not
/// see (bytes that are no UTF-8, a lone surrogate's escape) is checked on a value, so that
/// a line the adapter reports is not counted here.
pub(super) fn parse<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> serde_json::Result<T> {
    if std::str::from_utf8(bytes).is_err() || surrogate_escape(bytes) {
        serde_json::from_slice::<serde_json::Value>(bytes)?;
    }
    serde_json::from_slice(bytes)
}

/// The older single document: its metadata, then each message, in order.
fn read_document(path: &Path, usage: &mut SessionUsage) -> io::Result<Run> {
    let bytes = std::fs::read(path)?;
    let document: Document<'_> = match serde_json::from_slice(&bytes) {
        Ok(document) => document,
        Err(error) => {
            let kind = json_kind(&error);
            let (line, column) = (error.line() as u64, error.column());
            let offset = (bytes.split(|b| *b == b'\n'))
                .take(line.saturating_sub(1) as usize)
                .map(|l| l.len() + 1)
                .sum::<usize>()
                + column.saturating_sub(1);
            usage.problem(path, kind, (line, offset as u64), error.to_string());
            return Ok(Run::default());
        }
    };
    let mut run = Run {
        session_id: document.head.session_id.str().map(str::to_owned),
        ..Run::default()
    };
    // The metadata stands first, without its messages.
    run.feed.push(Kept::of(&document.head));
    for message in &document.messages {
        if let Some(time) = message.timestamp.str() {
            usage.saw(time);
        }
        run.feed.push(Kept::of(message));
    }
    Ok(run)
}

/// A run's records fed to the adapter: its tokens added to `usage`.
pub(super) fn count(run: &Run, usage: &mut SessionUsage) {
    // The first object decides: a session file's records, or stream-json's (no tokens here).
    let first = run.feed.iter().find(|kept| !kept.unread && kept.object);
    if first.is_some_and(|first| first.session_record) {
        let mut counted: Vec<&Kept> = Vec::new();
        let mut held: Option<&Kept> = None;
        for kept in run.feed.iter().filter(|kept| !kept.unread) {
            match &kept.message {
                Some(id) => {
                    match held {
                        Some(before) if before.message.as_ref() == Some(id) => {}
                        Some(before) => counted.push(before),
                        None => {}
                    }
                    held = Some(kept);
                }
                None => counted.extend(held.take()),
            }
        }
        counted.extend(held);
        let counted: Vec<&Kept> = counted.into_iter().filter(|kept| kept.gemini).collect();
        let last_model = (counted.iter().rev())
            .find_map(|kept| kept.model.as_deref())
            .unwrap_or_default();
        for kept in counted {
            if let Some(tokens) = kept.tokens {
                let model = kept.model.as_deref().unwrap_or(last_model);
                usage.add(kept.time.as_deref(), model, &tokens.usage());
            }
        }
    }
    // Taken back by a rewind: once per id, whatever the type.
    let mut off: BTreeMap<&str, Usage> = BTreeMap::new();
    for kept in &run.rewound {
        if let (Some(id), Some(tokens)) = (&kept.message, kept.tokens) {
            off.insert(id, tokens.usage());
        }
    }
    for tokens in off.values() {
        usage.off_chain.add(tokens);
    }
}

/// One session's usage: its session file (or document, or saved chat) and its sub-agents'.
pub(super) fn read(files: &SessionFiles) -> io::Result<SessionUsage> {
    let mut usage = SessionUsage {
        agent: "Gemini CLI",
        ..SessionUsage::default()
    };
    let stem = |file: &Path| {
        file.file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned()
    };
    match &files.main {
        Some(main) => {
            let name = main.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.starts_with("checkpoint-") {
                // A saved chat's `Content` has no tokens.
                let project = main.parent().and_then(Path::file_name).unwrap_or_default();
                usage.session = format!("gemini-{}.{}", project.to_string_lossy(), stem(main));
            } else {
                let run = match name.ends_with(".json") && is_document(main) {
                    true => read_document(main, &mut usage)?,
                    false => read_file(main, &mut usage)?,
                };
                count(&run, &mut usage);
                usage.session = run.session_id.clone().unwrap_or_else(|| stem(main));
            }
        }
        None => {
            // Sub-agents without their session file: named by their directory.
            let dir = files.subagents.first().and_then(|f| f.parent());
            usage.session = dir.map(stem_of_dir).unwrap_or_default();
        }
    }
    for file in &files.subagents {
        let run = read_file(file, &mut usage)?;
        count(&run, &mut usage);
    }
    if usage.session.is_empty() {
        usage.session = "session".into();
    }
    Ok(usage)
}

fn stem_of_dir(dir: &Path) -> String {
    dir.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// Whether a `.json` file is one document (its first line not a whole record without
/// `messages`), as the importer decides.
fn is_document(path: &Path) -> bool {
    use std::io::{BufRead, Read};
    let Ok(file) = std::fs::File::open(path) else {
        return true;
    };
    let mut line = Vec::new();
    if (io::BufReader::new(file).take(1 << 20))
        .read_until(b'\n', &mut line)
        .is_err()
    {
        return true;
    }
    match serde_json::from_slice::<FirstLine>(&line) {
        Ok(first) => first.messages,
        Err(_) => true,
    }
}

/// Whether a whole first line is an object with `messages`.
struct FirstLine {
    messages: bool,
}

impl<'de> Deserialize<'de> for FirstLine {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FirstLine;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<FirstLine, M::Error> {
                let mut messages = false;
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    messages |= key == "messages";
                    map.next_value::<IgnoredAny>()?;
                }
                Ok(FirstLine { messages })
            }
            fn visit_seq<S: SeqAccess<'de>>(self, seq: S) -> Result<FirstLine, S::Error> {
                skip_seq(seq).map(|()| FirstLine { messages: false })
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<FirstLine, E> {
                Ok(FirstLine { messages: false })
            }
            otherwise!(FirstLine { messages: false });
        }
        deserializer.deserialize_any(V)
    }
}

/// The older single document: the metadata record (everything but `messages`) and the
/// messages (a list; anything else none).
struct Document<'a> {
    head: Record<'a>,
    messages: Vec<Record<'a>>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Document<'a> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Document<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a session document")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Document<'a>, M::Error> {
                let mut head = Record {
                    object: true,
                    ..Record::default()
                };
                let mut messages = Vec::new();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    if key == "messages" {
                        messages = map.next_value::<Messages<'a>>()?.0;
                    } else {
                        head.field(&key, &mut map)?;
                    }
                }
                Ok(Document { head, messages })
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Document<'a>, S::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Document {
                    head: Record::default(),
                    messages: Vec::new(),
                })
            }
        }
        deserializer.deserialize_any(V(PhantomData))
    }
}

/// A document's `messages`: a list of records, anything else none.
struct Messages<'a>(Vec<Record<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for Messages<'a> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Messages<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of messages")
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Messages<'a>, S::Error> {
                let mut messages = Vec::new();
                while let Some(message) = seq.next_element::<Record<'a>>()? {
                    messages.push(message);
                }
                Ok(Messages(messages))
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Messages<'a>, M::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Messages(Vec::new()))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Messages<'a>, E> {
                Ok(Messages(Vec::new()))
            }
            otherwise!(Messages(Vec::new()));
        }
        deserializer.deserialize_any(V(PhantomData))
    }
}

impl<'a> Record<'a> {
    /// Reads the value of `key` into the record (a later key of a name replaces the
    /// earlier, as a `Value` reads it).
    fn field<'de: 'a, M: MapAccess<'de>>(
        &mut self,
        key: &str,
        map: &mut M,
    ) -> Result<(), M::Error> {
        let strict = matches!(
            key,
            "id" | "type" | "content" | "timestamp" | "sessionId" | "$rewindTo"
        );
        let twice = match key {
            "id" => replace(&mut self.id, map.next_value()?),
            "type" => replace(&mut self.kind, map.next_value()?),
            "timestamp" => replace(&mut self.timestamp, map.next_value()?),
            "sessionId" => replace(&mut self.session_id, map.next_value()?),
            "$rewindTo" => replace(&mut self.rewind_to, map.next_value()?),
            "role" => replace(&mut self.role, map.next_value()?),
            "model" => replace(&mut self.model, map.next_value()?),
            "content" => replace_shape(&mut self.content, map.next_value::<Skipped>()?.0),
            "projectHash" => replace_shape(&mut self.project_hash, map.next_value::<Skipped>()?.0),
            "$set" => replace_shape(&mut self.set, map.next_value::<Skipped>()?.0),
            "parts" => replace_shape(&mut self.parts, map.next_value::<Skipped>()?.0),
            "tokens" => {
                self.tokens = map.next_value::<MaybeTokens>()?.0;
                false
            }
            _ => {
                map.next_value::<IgnoredAny>()?;
                false
            }
        };
        self.twice |= strict && twice;
        Ok(())
    }
}

fn replace<'a>(field: &mut Field<'a>, value: Field<'a>) -> bool {
    let twice = *field != Field::Absent;
    *field = value;
    twice
}

fn replace_shape(shape: &mut Shape, value: Shape) -> bool {
    let twice = *shape != Shape::Absent;
    *shape = value;
    twice
}

impl<'de: 'a, 'a> Deserialize<'de> for Record<'a> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Record<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a record")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Record<'a>, M::Error> {
                let mut record = Record {
                    object: true,
                    ..Record::default()
                };
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    record.field(&key, &mut map)?;
                }
                Ok(record)
            }
            fn visit_seq<S: SeqAccess<'de>>(self, seq: S) -> Result<Record<'a>, S::Error> {
                skip_seq(seq).map(|()| Record::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Record<'a>, E> {
                Ok(Record::default())
            }
            otherwise!(Record::default());
        }
        deserializer.deserialize_any(V(PhantomData))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Field<'a> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Field<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Field<'a>, E> {
                Ok(Field::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Field<'a>, E> {
                Ok(Field::Str(Cow::Owned(v.to_owned())))
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Field<'a>, M::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Field::Other)
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Field<'a>, S::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Field::Other)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Field<'a>, E> {
                Ok(Field::Other)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Field<'a>, E> {
                Ok(Field::Other)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Field<'a>, E> {
                Ok(Field::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Field<'a>, E> {
                Ok(Field::Other)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Field<'a>, E> {
                Ok(Field::Null)
            }
        }
        deserializer.deserialize_any(V(PhantomData))
    }
}

impl<'de> Deserialize<'de> for Skipped {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Skipped;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Skipped, E> {
                Ok(Skipped(Shape::Other))
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Skipped, M::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Skipped(Shape::Other))
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Skipped, S::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Skipped(Shape::Array))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Skipped, E> {
                Ok(Skipped(Shape::Other))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Skipped, E> {
                Ok(Skipped(Shape::Other))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Skipped, E> {
                Ok(Skipped(Shape::Other))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Skipped, E> {
                Ok(Skipped(Shape::Other))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Skipped, E> {
                Ok(Skipped(Shape::Null))
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// The names of the five counts of [`Tokens`] in a record: input, output, cached,
/// thoughts, tool.
pub(super) trait TokenKeys {
    /// The names, in that order.
    const KEYS: [&'static str; 5];
}

/// Gemini CLI's `tokens`.
pub(super) struct GeminiKeys;

impl TokenKeys for GeminiKeys {
    const KEYS: [&'static str; 5] = ["input", "output", "cached", "thoughts", "tool"];
}

/// Counts named by `K`: `Some` when they are an object.
pub(super) struct MaybeTokens<K = GeminiKeys>(pub(super) Option<Tokens>, PhantomData<K>);

impl<'de, K: TokenKeys> Deserialize<'de> for MaybeTokens<K> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V<K>(PhantomData<K>);
        impl<'de, K: TokenKeys> Visitor<'de> for V<K> {
            type Value = MaybeTokens<K>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<MaybeTokens<K>, M::Error> {
                let mut tokens = Tokens::default();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    let slot = match K::KEYS.iter().position(|k| *k == key) {
                        Some(0) => &mut tokens.input,
                        Some(1) => &mut tokens.output,
                        Some(2) => &mut tokens.cached,
                        Some(3) => &mut tokens.thoughts,
                        Some(4) => &mut tokens.tool,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    // A count: an unsigned integer, else 0 (`Value::as_u64`).
                    *slot = map.next_value::<Unsigned>()?.0.unwrap_or(0);
                }
                Ok(MaybeTokens(Some(tokens), PhantomData))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<MaybeTokens<K>, E> {
                Ok(MaybeTokens(None, PhantomData))
            }
            fn visit_seq<S: SeqAccess<'de>>(self, seq: S) -> Result<MaybeTokens<K>, S::Error> {
                skip_seq(seq).map(|()| MaybeTokens(None, PhantomData))
            }
            otherwise!(MaybeTokens(None, PhantomData));
        }
        deserializer.deserialize_any(V(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_keys_are_read_as_their_names() {
        let line = br#"{"i\u0064":"g1","\u0074ype":"gemini","content":"x","tokens":{"input":10,"cached":4,"output":2,"thoughts":1,"tool":3},"model":"gemini-2.5-pro"}"#;
        let record: Record<'_> = serde_json::from_slice(line).unwrap();
        assert_eq!(record.message_id(), Some("g1"));
        assert_eq!(record.kind.str(), Some("gemini"));
        let usage = record.tokens.unwrap().usage();
        assert_eq!(
            (
                usage.input_tokens,
                usage.output_tokens,
                usage.cache_read_tokens,
                usage.reasoning_tokens
            ),
            (9, 3, 4, 1)
        );
    }

    #[test]
    fn a_field_of_another_type_fails_the_plans_reading_only() {
        let line = br#"{"id":"g1","type":"gemini","content":"x","timestamp":5}"#;
        let record: Record<'_> = serde_json::from_slice(line).unwrap();
        assert_eq!(record.plan().message, None);
        assert_eq!(record.message_id(), Some("g1"));
        let line = br#"{"id":"g1","type":"gemini","content":null}"#;
        let record: Record<'_> = serde_json::from_slice(line).unwrap();
        assert_eq!(record.plan().message, None);
        assert_eq!(record.message_id(), Some("g1"));
    }
}
