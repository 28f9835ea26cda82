//! OpenCode's usage: each assistant message's steps, by the rules `axt import` transcribes
//! a session with (`import::opencode`, the OpenCode adapter's `message` record).
//!
//! * A session tree (a root session and every session its `task` calls spawned, at any
//!   depth) is one `axt import` session; each of its sessions is a run counting its own
//!   tokens (OpenCode's sessions never hold another's), so every session is read once.
//! * An assistant message (any role but `user`) counts the `tokens` and `cost` of its
//!   `step-finish` parts; one with no such part (an OpenCode before step parts) counts its
//!   own `tokens` and `cost`. `tokens{input, output, reasoning, cache{read, write}}`:
//!   `output` gets `reasoning` added (axt's convention). A user message counts nothing.
//! * A message's model is its `providerID/modelID`; a message naming none gets its
//!   session's first, the one `axt stats` prices the run with. Its day is its
//!   `time.created`'s.
//! * Cost: OpenCode reports one per step; a session that reported any is priced as
//!   reported (as `axt stats` takes a run's reported cost over an estimate), the rest by
//!   the price table.
//! * The database (`opencode.db`, 1.2 and later) is read in one read transaction, only the
//!   `data` of the tree's messages and of their parts; the JSON files (0.5 to 1.1), each
//!   message's file and its parts' files.
//!
//! A message is always read, its fields typed and borrowed (`time` and `tokens` too, as the
//! adapter reads them from its tree). A part is read only when it can be a `step-finish`:
//! its bytes hold the word, or a `\u00XX` escape of one of its characters; a part that
//! does not look like an object (not `{`...`}`) is reported where the importer reports it,
//! one that does is otherwise not checked (`axt import` reports it).

use std::borrow::Cow;
use std::io;
use std::path::{Path, PathBuf};

use std::fmt;

use memchr::memmem;
use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::tally::{SessionUsage, json_kind};
use crate::import::{Found, opencode_json_files};
use crate::model::{Timestamp, Usage};
use crate::normalize::DiagnosticKind;
use crate::normalize::lenient::{Integer, Members, Slot, Text, Unsigned, skip_map, skip_seq};
use crate::normalize::opencode::tokens_usage;

/// The fields of a message's or a part's `data` this reader needs, read typed as the
/// adapter reads them from its tree (`Value::as_str`, `as_i64`, `as_u64`, `as_f64`: a field
/// of another type is absent; a member given twice, the last), in one pass and borrowed:
/// building the small `time` and `tokens` objects as trees was most of a step's reading
/// (about 11,000 instructions a `step-finish` part, callgrind).
#[derive(Default)]
struct Fields<'a> {
    role: Option<Cow<'a, str>>,
    kind: Option<Cow<'a, str>>,
    model: Option<Cow<'a, str>>,
    provider: Option<Cow<'a, str>>,
    /// `time.created`.
    created: Option<i64>,
    /// `tokens`, read as the adapter's `tokens_usage` reads it (zero where it is no
    /// object); `None` where the data has no `tokens`.
    tokens: Option<Usage>,
    cost: Option<f64>,
}

impl<'de: 'a, 'a> Members<'de> for Fields<'a> {
    fn member<A: MapAccess<'de>>(
        &mut self,
        key: Cow<'de, str>,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match &*key {
            "role" => self.role = map.next_value::<Text<'de>>()?.0,
            "type" => self.kind = map.next_value::<Text<'de>>()?.0,
            "modelID" => self.model = map.next_value::<Text<'de>>()?.0,
            "providerID" => self.provider = map.next_value::<Text<'de>>()?.0,
            "time" => {
                self.created = match map.next_value::<Slot<Time>>()? {
                    Slot::Read(time) => time.created,
                    Slot::Other => None,
                };
            }
            "tokens" => {
                self.tokens = Some(match map.next_value::<Slot<Tokens>>()? {
                    Slot::Read(tokens) => tokens.usage(),
                    Slot::Other => Usage::default(),
                });
            }
            "cost" => self.cost = map.next_value::<Number>()?.0,
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

/// A message's `time`: `created`, as `Value::as_i64` reads it.
#[derive(Default)]
struct Time {
    created: Option<i64>,
}

impl<'de> Members<'de> for Time {
    fn member<A: MapAccess<'de>>(
        &mut self,
        key: Cow<'de, str>,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match &*key {
            "created" => self.created = map.next_value::<Integer>()?.0,
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

/// `tokens{input, output, reasoning, cache{read, write}}`, each as `Value::as_u64` reads it.
#[derive(Default)]
struct Tokens {
    input: Option<u64>,
    output: Option<u64>,
    reasoning: Option<u64>,
    cache: Option<Cache>,
}

#[derive(Default)]
struct Cache {
    read: Option<u64>,
    write: Option<u64>,
}

impl Tokens {
    /// As the adapter's `tokens_usage` (`output` gets `reasoning` added; the unit test
    /// `typed_fields_read_as_the_tree` holds the two together).
    fn usage(&self) -> Usage {
        let reasoning = self.reasoning.unwrap_or(0);
        let cache = self.cache.as_ref();
        Usage {
            input_tokens: self.input.unwrap_or(0),
            output_tokens: self.output.unwrap_or(0) + reasoning,
            cache_read_tokens: cache.and_then(|c| c.read).unwrap_or(0),
            cache_write_tokens: cache.and_then(|c| c.write).unwrap_or(0),
            reasoning_tokens: reasoning,
        }
    }
}

impl<'de> Members<'de> for Tokens {
    fn member<A: MapAccess<'de>>(
        &mut self,
        key: Cow<'de, str>,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match &*key {
            "input" => self.input = map.next_value::<Unsigned>()?.0,
            "output" => self.output = map.next_value::<Unsigned>()?.0,
            "reasoning" => self.reasoning = map.next_value::<Unsigned>()?.0,
            "cache" => {
                self.cache = match map.next_value::<Slot<Cache>>()? {
                    Slot::Read(cache) => Some(cache),
                    Slot::Other => None,
                };
            }
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

impl<'de> Members<'de> for Cache {
    fn member<A: MapAccess<'de>>(
        &mut self,
        key: Cow<'de, str>,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match &*key {
            "read" => self.read = map.next_value::<Unsigned>()?.0,
            "write" => self.write = map.next_value::<Unsigned>()?.0,
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

/// A number as `Value::as_f64` reads it (any number), or `None` for a value of another type.
struct Number(Option<f64>);

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Number;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            #[allow(clippy::cast_precision_loss)] // as `Value::as_f64`
            fn visit_u64<E>(self, number: u64) -> Result<Number, E> {
                Ok(Number(Some(number as f64)))
            }
            #[allow(clippy::cast_precision_loss)] // as `Value::as_f64`
            fn visit_i64<E>(self, number: i64) -> Result<Number, E> {
                Ok(Number(Some(number as f64)))
            }
            fn visit_f64<E>(self, number: f64) -> Result<Number, E> {
                Ok(Number(Some(number)))
            }
            fn visit_str<E>(self, _: &str) -> Result<Number, E> {
                Ok(Number(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Number, A::Error> {
                skip_map(map).map(|()| Number(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Number, A::Error> {
                skip_seq(seq).map(|()| Number(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Number, E> {
                Ok(Number(None))
            }
            fn visit_unit<E>(self) -> Result<Number, E> {
                Ok(Number(None))
            }
            fn visit_none<E>(self) -> Result<Number, E> {
                Ok(Number(None))
            }
        }
        deserializer.deserialize_any(Visit)
    }
}

/// What a message or a part says, read as the adapter reads its tree (`Value::as_str`,
/// `as_i64`, `as_u64`, `as_f64`: a field of another type is absent).
#[derive(Default)]
struct Said {
    user: bool,
    step_finish: bool,
    /// `providerID/modelID`, or `modelID`.
    model: Option<String>,
    created: Option<i64>,
    tokens: Option<Usage>,
    cost: Option<f64>,
}

/// Why a `data` is not read as an object, for its diagnostic.
struct NotAnObject(DiagnosticKind, String);

fn model_of(model: Option<&str>, provider: Option<&str>) -> Option<String> {
    model.map(|model| match provider {
        Some(provider) => format!("{provider}/{model}"),
        None => model.to_owned(),
    })
}

/// Reads `data` as the importer does (`serde_json::Value`, an object or not).
fn said(data: &[u8]) -> Result<Said, NotAnObject> {
    let trimmed = data.trim_ascii_start();
    if trimmed.first() == Some(&b'{')
        && let Ok(Slot::Read(fields)) = serde_json::from_slice::<Slot<Fields<'_>>>(data)
    {
        let kind = fields.kind.as_deref();
        return Ok(Said {
            user: fields.role.as_deref() == Some("user"),
            step_finish: kind == Some("step-finish"),
            model: model_of(fields.model.as_deref(), fields.provider.as_deref()),
            created: fields.created,
            tokens: fields.tokens,
            cost: fields.cost,
        });
    }
    // Not JSON, or no object: read as the tree, for the importer's words.
    match serde_json::from_slice::<Value>(data) {
        Ok(value @ Value::Object(_)) => {
            let text = |field: &str| value.get(field).and_then(Value::as_str);
            Ok(Said {
                user: text("role") == Some("user"),
                step_finish: text("type") == Some("step-finish"),
                model: model_of(text("modelID"), text("providerID")),
                created: (value.get("time").and_then(|t| t.get("created"))).and_then(Value::as_i64),
                tokens: value.get("tokens").map(tokens_usage),
                cost: value.get("cost").and_then(Value::as_f64),
            })
        }
        Ok(_) => Err(NotAnObject(
            DiagnosticKind::UnexpectedShape,
            "not a JSON object".into(),
        )),
        Err(error) => Err(NotAnObject(json_kind(&error), error.to_string())),
    }
}

/// Whether a part's `data` could be a `step-finish` (and so must be read): it holds the
/// word, or a `\u00XX` escape of one of the word's characters (`-` is 0x2d, the letters
/// 0x65-0x74), the only way its `type` could spell it otherwise. One search per escape
/// prefix: tool output is full of escapes that cannot spell it (`\u001b`: 2.1 million in
/// the 198 MiB bench database), and looking at each of them was 45% of the instructions of
/// `axt usage opencode` there (an iterator over `\u00`, 280 instructions a match).
struct Sieve {
    word: memmem::Finder<'static>,
    escapes: [memmem::Finder<'static>; 3],
}

impl Sieve {
    fn new() -> Sieve {
        Sieve {
            word: memmem::Finder::new(b"step-finish"),
            escapes: [b"\\u002", b"\\u006", b"\\u007"].map(memmem::Finder::new),
        }
    }

    /// The part's steps, if it is a `step-finish`; `Err` for a part that is no object.
    fn part(&self, data: &[u8]) -> Result<Option<Said>, NotAnObject> {
        let trimmed = data.trim_ascii();
        let looks = trimmed.first() == Some(&b'{') && trimmed.last() == Some(&b'}');
        let could = || {
            self.word.find(data).is_some() || self.escapes.iter().any(|e| e.find(data).is_some())
        };
        if looks && !could() {
            return Ok(None);
        }
        let said = said(data)?;
        Ok(said.step_finish.then_some(said))
    }
}

/// One session's messages, added up as the adapter adds a run's.
#[derive(Default)]
struct Session {
    /// The first model an assistant message named (the run's).
    model: Option<String>,
    reported: bool,
    /// Per message: its time, its model, its tokens and cost.
    adds: Vec<(Option<String>, Option<String>, Usage, f64)>,
}

/// A message being read: what it says, and its steps so far.
struct Open {
    said: Said,
    steps: Option<(Usage, Option<f64>)>,
}

impl Session {
    fn close(&mut self, open: Option<Open>, usage: &mut SessionUsage) {
        let Some(Open { said, steps }) = open else {
            return;
        };
        let time = said
            .created
            .map(|ms| Timestamp::from_unix_nanos(i128::from(ms) * 1_000_000));
        if let Some(time) = &time {
            usage.saw(time.as_str());
        }
        if said.user {
            return;
        }
        if self.model.is_none() {
            self.model.clone_from(&said.model);
        }
        let (tokens, cost) = match steps {
            Some(steps) => steps,
            None => (said.tokens.unwrap_or_default(), said.cost),
        };
        self.reported |= cost.is_some();
        let time = time.map(|t| t.as_str().to_owned());
        self.adds
            .push((time, said.model, tokens, cost.unwrap_or_default()));
    }

    /// The session's messages into `usage`.
    fn end(self, usage: &mut SessionUsage) {
        let model = self.model.unwrap_or_default();
        for (time, own, tokens, cost) in self.adds {
            let own = own.unwrap_or_else(|| model.clone());
            usage.add(time.as_deref(), &own, &tokens);
            if self.reported {
                usage.report(time.as_deref(), &own, cost);
            }
        }
    }
}

impl Open {
    fn step(&mut self, part: Said) {
        let (tokens, cost) = self.steps.get_or_insert_with(Default::default);
        if let Some(used) = &part.tokens {
            tokens.add(used);
        }
        if let Some(spent) = part.cost {
            *cost = Some(cost.unwrap_or(0.0) + spent);
        }
    }
}

/// One session tree's usage: its database rows, or its files.
pub(super) fn read(found: &Found) -> io::Result<SessionUsage> {
    let mut usage = SessionUsage {
        agent: "OpenCode",
        ..SessionUsage::default()
    };
    match (&found.row, &found.files.main) {
        #[cfg(feature = "import-sqlite")]
        (Some(id), Some(db)) => {
            database::read(db, id, &mut usage).map_err(io::Error::other)?;
            usage.session.clone_from(id);
        }
        #[cfg(not(feature = "import-sqlite"))]
        (Some(_), Some(db)) => {
            return Err(io::Error::other(format!(
                "{}: an OpenCode database needs the `import-sqlite` feature",
                db.display()
            )));
        }
        (_, main) => {
            let main = main.clone().unwrap_or_default();
            read_files(&main, &found.files.subagents, &mut usage)?;
            usage.session = main
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
        }
    }
    Ok(usage)
}

/// A session tree of the JSON layout: `storage/session/<project>/<id>.json` and below.
fn read_files(main: &Path, below: &[PathBuf], usage: &mut SessionUsage) -> io::Result<()> {
    // The importer refuses a tree whose root is no session.
    let root = std::fs::read(main)?;
    if !matches!(serde_json::from_slice::<Value>(&root), Ok(Value::Object(_))) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "not an OpenCode session file (empty, or no JSON object): `axt import` refuses it",
        ));
    }
    let sieve = Sieve::new();
    let bad = |usage: &mut SessionUsage, file: &Path, NotAnObject(kind, message)| {
        usage.problem(file, kind, (1, 0), message);
    };
    for file in std::iter::once(main).chain(below.iter().map(PathBuf::as_path)) {
        let storage = file.ancestors().nth(3).unwrap_or(Path::new(""));
        let id = file.file_stem().unwrap_or_default();
        let mut session = Session::default();
        for message in opencode_json_files(&storage.join("message").join(id)) {
            let bytes = std::fs::read(&message)?;
            let said = match said(&bytes) {
                Ok(said) => said,
                Err(not) => {
                    bad(usage, &message, not);
                    continue;
                }
            };
            let mut open = Open { said, steps: None };
            let parts = storage
                .join("part")
                .join(message.file_stem().unwrap_or_default());
            for part in opencode_json_files(&parts) {
                match sieve.part(&std::fs::read(&part)?) {
                    Ok(Some(step)) => open.step(step),
                    Ok(None) => {}
                    Err(not) => bad(usage, &part, not),
                }
            }
            session.close(Some(open), usage);
        }
        session.end(usage);
    }
    Ok(())
}

/// The database: one read transaction over the tree's sessions.
#[cfg(feature = "import-sqlite")]
mod database {
    use std::cell::RefCell;
    use std::path::{Path, PathBuf};
    use std::time::Duration;

    use rusqlite::blob::Blob;
    use rusqlite::types::ValueRef;
    use rusqlite::{Connection, OpenFlags, params};

    use crate::usage::opencode::{NotAnObject, Open, Session, Sieve, said};
    use crate::usage::tally::SessionUsage;

    /// The ids of a session and every session below it (the importer's tree).
    const TREE: &str = "WITH RECURSIVE tree(id) AS (SELECT id FROM session WHERE id = ?1 \
        UNION SELECT session.id FROM session JOIN tree ON session.parent_id = tree.id)";

    /// A part's `data` up to this many bytes is read whole (it lies in its row's page); a
    /// bigger one first by its head (see [`first_kind`]).
    const SMALL: i64 = 2048;

    fn bytes<'r>(value: ValueRef<'r>) -> &'r [u8] {
        match value {
            ValueRef::Text(bytes) | ValueRef::Blob(bytes) => bytes,
            _ => b"",
        }
    }

    /// The type a part gives first when it is written as OpenCode writes every part
    /// (`{"type":"tool",...`, a plain string); `None` for any other head.
    fn first_kind(head: &[u8]) -> Option<&[u8]> {
        let rest = head.strip_prefix(b"{\"type\":\"")?;
        let end = memchr::memchr2(b'"', b'\\', rest)?;
        (rest[end] == b'"').then(|| &rest[..end])
    }

    /// The head of the big part of `rowid` through `blob` (opened on the first, moved to
    /// each next); `None` where it cannot be read so (then the part is read whole).
    fn head<'c>(
        connection: &'c Connection,
        blob: &mut Option<Blob<'c>>,
        rowid: i64,
        buffer: &mut [u8; 64],
    ) -> Option<usize> {
        let moved = match blob {
            Some(open) => open.reopen(rowid).is_ok(),
            None => false,
        };
        if !moved {
            *blob = connection
                .blob_open("main", "part", "data", rowid, true)
                .ok();
        }
        let open = blob.as_ref()?;
        let n = open.len().min(buffer.len());
        open.read_at_exact(&mut buffer[..n], 0).ok()?;
        Some(n)
    }

    thread_local! {
        /// The database this thread read last, open for its next session tree: opening
        /// one (its schema parsed again) was a tenth of the instructions of a 2 MiB
        /// session's reading. Each tree is still read in a read transaction of its own.
        static OPEN: RefCell<Option<(PathBuf, Connection)>> = const { RefCell::new(None) };
    }

    pub(super) fn read(db: &Path, root: &str, usage: &mut SessionUsage) -> rusqlite::Result<()> {
        OPEN.with_borrow_mut(|open| {
            let mut connection = match open.take() {
                Some((path, connection)) if path == db => connection,
                _ => {
                    let connection = Connection::open_with_flags(
                        db,
                        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                    )?;
                    connection.busy_timeout(Duration::from_secs(5))?;
                    // Each page is read once, in order: a small page cache does (SQLite's
                    // default, 2 MiB, kept warm per worker, was 2 MiB more peak memory).
                    connection.pragma_update(None, "cache_size", -256)?;
                    connection
                }
            };
            let read = read_tree(&mut connection, db, root, usage);
            // Kept for the next tree unless something went wrong (then opened again).
            if read.is_ok() {
                *open = Some((db.to_owned(), connection));
            }
            read
        })
    }

    fn read_tree(
        connection: &mut Connection,
        db: &Path,
        root: &str,
        usage: &mut SessionUsage,
    ) -> rusqlite::Result<()> {
        let transaction = connection.transaction()?;
        let sessions: Vec<String> = transaction
            .prepare(&format!("{TREE} SELECT id FROM tree"))?
            .query_map([root], |row| row.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        // Sorted by id without their `data` (then read by rowid): sorting it too spilled
        // to a temporary file (733 pwrite(2) on the 198 MiB bench database).
        let mut messages = transaction
            .prepare("SELECT id, rowid FROM message WHERE session_id = ?1 ORDER BY id")?;
        let mut message_data = transaction.prepare("SELECT data FROM message WHERE rowid = ?1")?;
        // A message's parts by OpenCode's index on `message_id` (the unary `+` keeps SQLite
        // from searching by `session_id` instead, each message's parts among all the
        // session's: quadratic), the session's own, as the importer's query has them. A
        // part's size is known without reading it (`octet_length`); a big part's `data`
        // is not read here: most of a database is tool parts' output, in pages of their
        // own that reading them whole cost a read(2) each (57,000 of them, half the CPU
        // time, for the 198 MiB bench database).
        let mut parts = transaction.prepare(&format!(
            "SELECT rowid, CASE WHEN octet_length(data) <= {SMALL} THEN data END \
             FROM part WHERE message_id = ?1 AND +session_id = ?2"
        ))?;
        let mut whole = transaction.prepare("SELECT data FROM part WHERE rowid = ?1")?;
        let mut blob: Option<Blob<'_>> = None;
        let mut buffer = [0u8; 64];
        let sieve = Sieve::new();
        for id in &sessions {
            let mut session = Session::default();
            // Where the importer feeds each record: line 1 is the session's first.
            let mut line = 0u64;
            let mut rows = messages.query(params![id])?;
            while let Some(row) = rows.next()? {
                // Bound as text: a text column equals no blob.
                let message: String = row.get(0)?;
                let rowid: i64 = row.get(1)?;
                line += 1;
                let read =
                    message_data.query_row([rowid], |row| Ok(said(bytes(row.get_ref(0)?))))?;
                let mut open = match read {
                    Ok(said) => Some(Open { said, steps: None }),
                    Err(NotAnObject(kind, text)) => {
                        usage.problem(db, kind, (line, 0), text);
                        None
                    }
                };
                let mut part_rows = parts.query(params![message, id])?;
                while let Some(part) = part_rows.next()? {
                    let held;
                    let data = match part.get_ref(1)? {
                        ValueRef::Null => {
                            let rowid: i64 = part.get(0)?;
                            // A big part that says first that it is of another type is
                            // none: OpenCode writes no member twice (a part that gave
                            // `type` again, later, would be the importer's step).
                            let kind = head(&transaction, &mut blob, rowid, &mut buffer)
                                .and_then(|n| first_kind(&buffer[..n]));
                            if open.is_some() && kind.is_some_and(|k| k != b"step-finish") {
                                continue;
                            }
                            held = whole
                                .query_row([rowid], |row| Ok(bytes(row.get_ref(0)?).to_vec()))?;
                            &held[..]
                        }
                        data => bytes(data),
                    };
                    let Some(open) = open.as_mut() else {
                        // The importer feeds each part of a message that is no object
                        // after it, as it is: it reports them, no usage is in them.
                        line += 1;
                        if let Err(NotAnObject(kind, text)) = said(data) {
                            usage.problem(db, kind, (line, 0), text);
                        }
                        continue;
                    };
                    match sieve.part(data) {
                        Ok(Some(step)) => open.step(step),
                        Ok(None) => {}
                        Err(NotAnObject(kind, text)) => {
                            line += 1;
                            usage.problem(db, kind, (line, 0), text);
                        }
                    }
                }
                session.close(open, usage);
            }
            session.end(usage);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The typed read of a message's or a part's fields gives what the tree read gives (the
    /// adapter's `tokens_usage`, `Value::as_*`), whatever the fields' types, a member given
    /// twice, escaped keys.
    #[test]
    fn typed_fields_read_as_the_tree() {
        let records = [
            r#"{"type":"step-finish","cost":0.004,"tokens":{"input":4266,"output":811,"reasoning":3,"cache":{"read":38396,"write":3821}}}"#,
            r#"{"role":"assistant","time":{"created":1773478801481,"completed":1},"modelID":"m","providerID":"p","cost":1,"tokens":{"input":1,"output":2}}"#,
            r#"{"role":"user","time":{"created":-5},"modelID":"m"}"#,
            r#"{"type":"step-finish","tokens":{"input":-1,"output":2.5,"reasoning":"3","cache":[1]},"cost":"x"}"#,
            r#"{"type":"step-finish","tokens":null,"cost":null,"time":null}"#,
            r#"{"type":"step-finish","tokens":{"input":1,"input":7,"cache":{"read":1},"cache":{"write":2}},"cost":-3}"#,
            r#"{"\u0074ype":"step\u002dfinish","tokens":{"\u0069nput":9},"time":{"created":18446744073709551615}}"#,
            r#"{"type":"step-finish","type":"tool","modelID":7,"providerID":{"a":1}}"#,
            r#"{"role":"assistant","time":[1],"tokens":5,"cost":true}"#,
        ];
        for record in records {
            let typed = said(record.as_bytes()).ok().unwrap();
            let tree: Value = serde_json::from_str(record).unwrap();
            let text = |field: &str| tree.get(field).and_then(Value::as_str);
            assert_eq!(typed.user, text("role") == Some("user"), "{record}");
            assert_eq!(
                typed.step_finish,
                text("type") == Some("step-finish"),
                "{record}"
            );
            assert_eq!(
                typed.model,
                model_of(text("modelID"), text("providerID")),
                "{record}"
            );
            let created = (tree.get("time").and_then(|t| t.get("created"))).and_then(Value::as_i64);
            assert_eq!(typed.created, created, "{record}");
            // `null` tokens read as no usage either way (zero added).
            let tokens = tree.get("tokens").map(tokens_usage).unwrap_or_default();
            assert_eq!(typed.tokens.unwrap_or_default(), tokens, "{record}");
            let cost = tree.get("cost").and_then(Value::as_f64);
            assert_eq!(typed.cost, cost, "{record}");
        }
    }

    /// A part is read when it can be a `step-finish`: the word, or an escape of one of its
    /// characters; escapes of anything else (`\u001b`, `\u00e9`) do not make it read.
    #[test]
    fn the_sieve_reads_what_could_be_a_step() {
        let sieve = Sieve::new();
        let step = |data: &str| sieve.part(data.as_bytes()).ok().unwrap().is_some();
        assert!(step(r#"{"type":"step-finish","tokens":{"input":1}}"#));
        assert!(step(r#"{"type":"step\u002Dfinish"}"#));
        assert!(step(r#"{"type":"\u0073tep-finish"}"#));
        assert!(!step(r#"{"type":"tool","output":"\u001b[31m\u00e9"}"#));
        assert!(sieve.part(b"{\"type\":\"tool\"").is_err());
    }
}
