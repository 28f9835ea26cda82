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
//! A message is always read (its fields typed and borrowed; the small `time` and `tokens`
//! objects as trees). A part is read only when it can be a `step-finish`: its bytes hold
//! the word, or a `\u00XX` escape of a printable ASCII character that could spell it; a
//! part that does not look like an object (not `{`...`}`) is reported where the importer
//! reports it, one that does is otherwise not checked (`axt import` reports it).

use std::borrow::Cow;
use std::io;
use std::path::{Path, PathBuf};

use memchr::memmem;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::codex::escapes_ascii;
use super::tally::SessionUsage;
use crate::import::Found;
use crate::model::{Timestamp, Usage};
use crate::normalize::DiagnosticKind;
use crate::normalize::opencode::tokens_usage;

/// The fields of a message's or a part's `data` this reader needs.
#[derive(Deserialize)]
struct Fields<'a> {
    #[serde(borrow, default)]
    role: Option<&'a RawValue>,
    #[serde(rename = "type", borrow, default)]
    kind: Option<&'a RawValue>,
    #[serde(rename = "modelID", borrow, default)]
    model: Option<&'a RawValue>,
    #[serde(rename = "providerID", borrow, default)]
    provider: Option<&'a RawValue>,
    #[serde(borrow, default)]
    time: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tokens: Option<&'a RawValue>,
    #[serde(borrow, default)]
    cost: Option<&'a RawValue>,
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
    // A struct also reads from an array: only an object is one.
    if trimmed.first() == Some(&b'{')
        && let Ok(fields) = serde_json::from_slice::<Fields<'_>>(data)
    {
        let text = |raw: Option<&RawValue>| -> Option<String> {
            serde_json::from_str::<Cow<'_, str>>(raw?.get())
                .ok()
                .map(Cow::into_owned)
        };
        let tree = |raw: Option<&RawValue>| -> Option<Value> {
            serde_json::from_str::<Value>(raw?.get()).ok()
        };
        let kind = text(fields.kind);
        return Ok(Said {
            user: text(fields.role).as_deref() == Some("user"),
            step_finish: kind.as_deref() == Some("step-finish"),
            model: model_of(
                text(fields.model).as_deref(),
                text(fields.provider).as_deref(),
            ),
            created: tree(fields.time).and_then(|t| t.get("created").and_then(Value::as_i64)),
            tokens: fields.tokens.map(|raw| match tree(Some(raw)) {
                Some(tokens) => tokens_usage(&tokens),
                None => Usage::default(),
            }),
            cost: tree(fields.cost).as_ref().and_then(Value::as_f64),
        });
    }
    // A member twice (the tree keeps the last), or no object: read as the tree.
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
        Err(error) => Err(NotAnObject(
            match error.is_eof() {
                true => DiagnosticKind::Truncated,
                false => DiagnosticKind::InvalidJson,
            },
            error.to_string(),
        )),
    }
}

/// Whether a part's `data` could be a `step-finish` (and so must be read).
struct Sieve {
    word: memmem::Finder<'static>,
    escape: memmem::Finder<'static>,
}

impl Sieve {
    fn new() -> Sieve {
        Sieve {
            word: memmem::Finder::new(b"step-finish"),
            escape: memmem::Finder::new(b"\\u00"),
        }
    }

    /// The part's steps, if it is a `step-finish`; `Err` for a part that is no object.
    fn part(&self, data: &[u8]) -> Result<Option<Said>, NotAnObject> {
        let trimmed = data.trim_ascii();
        let looks = trimmed.first() == Some(&b'{') && trimmed.last() == Some(&b'}');
        if looks && self.word.find(data).is_none() && !escapes_ascii(&self.escape, data) {
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

/// The JSON files of one directory, sorted by name.
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json") && p.is_file())
        .collect();
    files.sort();
    files
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
        for message in json_files(&storage.join("message").join(id)) {
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
            for part in json_files(&parts) {
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
    use std::path::Path;
    use std::time::Duration;

    use rusqlite::types::ValueRef;
    use rusqlite::{Connection, OpenFlags, params};

    use crate::usage::opencode::{NotAnObject, Open, Session, Sieve, said};
    use crate::usage::tally::SessionUsage;

    /// The ids of a session and every session below it (the importer's tree).
    const TREE: &str = "WITH RECURSIVE tree(id) AS (SELECT id FROM session WHERE id = ?1 \
        UNION SELECT session.id FROM session JOIN tree ON session.parent_id = tree.id)";

    fn bytes<'r>(value: ValueRef<'r>) -> &'r [u8] {
        match value {
            ValueRef::Text(bytes) | ValueRef::Blob(bytes) => bytes,
            _ => b"",
        }
    }

    pub(super) fn read(db: &Path, root: &str, usage: &mut SessionUsage) -> rusqlite::Result<()> {
        let mut connection = Connection::open_with_flags(
            db,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        connection.busy_timeout(Duration::from_secs(5))?;
        let transaction = connection.transaction()?;
        let sessions: Vec<String> = transaction
            .prepare(&format!("{TREE} SELECT id FROM tree"))?
            .query_map([root], |row| row.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        let mut messages = transaction
            .prepare("SELECT id, data FROM message WHERE session_id = ?1 ORDER BY id")?;
        // A message's parts by OpenCode's index on `message_id` (the unary `+` keeps SQLite
        // from searching by `session_id` instead, each message's parts among all the
        // session's: quadratic), the session's own, as the importer's query has them.
        let mut parts = transaction
            .prepare("SELECT data FROM part WHERE message_id = ?1 AND +session_id = ?2")?;
        let sieve = Sieve::new();
        for id in &sessions {
            let mut session = Session::default();
            // Where the importer feeds each record: line 1 is the session's first.
            let mut line = 0u64;
            let mut rows = messages.query(params![id])?;
            while let Some(row) = rows.next()? {
                // Bound as text: a text column equals no blob.
                let message: String = row.get(0)?;
                let data = bytes(row.get_ref(1)?);
                line += 1;
                let mut open = match said(data) {
                    Ok(said) => Some(Open { said, steps: None }),
                    Err(NotAnObject(kind, text)) => {
                        usage.problem(db, kind, (line, 0), text);
                        None
                    }
                };
                let mut part_rows = parts.query(params![message, id])?;
                while let Some(part) = part_rows.next()? {
                    let data = bytes(part.get_ref(0)?);
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
