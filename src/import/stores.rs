//! The stores axt imports, by name: where each keeps its sessions (under the home
//! directory, or where the agent's own environment variables move it), how to find its
//! sessions under a path, and how to plan one. The one list every caller derives from
//! (`axt import`'s store argument, discovery, the tests).
//!
//! This room owns the names, the locations and the dispatch to each store's folder; what a
//! store's files mean is the folder's.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use super::claude_code::{self, Skipped};
use super::codex;
use super::copilot;
use super::entries;
use super::feed::SessionPlan;
use super::gemini;
use super::opencode;
use super::qwen;
use super::session::{ImportError, Imported, Session, SessionFiles};
use super::write::{self, Mode};

/// The stores axt imports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Store {
    /// Claude Code's session logs (`~/.claude/projects`), their sub-agents and workflows.
    ClaudeCode,
    /// Codex's session files (`~/.codex/sessions`), their sub-agent and review threads.
    Codex,
    /// GitHub Copilot CLI's session logs (`~/.copilot/session-state`), their sub-agents.
    Copilot,
    /// Gemini CLI's saved sessions (`~/.gemini/tmp/<project>/chats`), their sub-agents,
    /// and its saved chats.
    Gemini,
    /// Qwen Code's sessions (`~/.qwen/projects/<project>/chats`), their sub-agents.
    Qwen,
    /// OpenCode's sessions (`~/.local/share/opencode`: `opencode.db`, or the JSON files
    /// under `storage/` of versions before 1.2), the sessions they spawned.
    OpenCode,
}

impl Store {
    /// Every store, in the order discovery lists them.
    pub const ALL: [Store; 6] = [
        Store::ClaudeCode,
        Store::Codex,
        Store::Copilot,
        Store::Gemini,
        Store::Qwen,
        Store::OpenCode,
    ];

    /// The name on the command line and in the state file.
    pub fn as_str(self) -> &'static str {
        match self {
            Store::ClaudeCode => "claude-code",
            Store::Codex => "codex",
            Store::Copilot => "copilot",
            Store::Gemini => "gemini",
            Store::Qwen => "qwen",
            Store::OpenCode => "opencode",
        }
    }

    /// The agent whose store it is, for people.
    pub fn agent_name(self) -> &'static str {
        match self {
            Store::ClaudeCode => "Claude Code",
            Store::Codex => "Codex",
            Store::Copilot => "GitHub Copilot CLI",
            Store::Gemini => "Gemini CLI",
            Store::Qwen => "Qwen Code",
            Store::OpenCode => "OpenCode",
        }
    }

    /// Where the agent keeps its sessions, most specific first: the directories its own
    /// environment variables name, else its defaults under the home directory. Some may
    /// not exist.
    pub fn roots(self, env: &Env) -> Vec<PathBuf> {
        let mut roots = Vec::new();
        match self {
            Store::ClaudeCode => {
                // CLAUDE_CONFIG_DIR moves the whole configuration directory; without it,
                // Claude Code 1.0.30 and later use ~/.config/claude, older ones ~/.claude.
                if let Some(dir) = env.var("CLAUDE_CONFIG_DIR") {
                    roots.push(PathBuf::from(dir).join("projects"));
                } else if let Some(home) = env.home() {
                    roots.push(home.join(".config/claude/projects"));
                    roots.push(home.join(".claude/projects"));
                }
            }
            Store::Codex => {
                // CODEX_HOME moves Codex's whole directory (default ~/.codex).
                let home = match env.var("CODEX_HOME") {
                    Some(dir) => Some(PathBuf::from(dir)),
                    None => env.home().map(|home| home.join(".codex")),
                };
                if let Some(home) = home {
                    roots.push(home.join("sessions"));
                    roots.push(home.join("archived_sessions"));
                }
            }
            Store::Copilot => {
                // COPILOT_HOME moves it (default ~/.copilot); CLIs before 1.0 kept their
                // state under $XDG_STATE_HOME/.copilot, which later ones move home.
                match env.var("COPILOT_HOME") {
                    Some(dir) => roots.push(PathBuf::from(dir).join("session-state")),
                    None => {
                        if let Some(home) = env.home() {
                            roots.push(home.join(".copilot/session-state"));
                        }
                        if let Some(state) = env.var("XDG_STATE_HOME") {
                            roots.push(PathBuf::from(state).join(".copilot/session-state"));
                        }
                    }
                }
            }
            Store::Gemini => {
                // GEMINI_CLI_HOME stands for the home directory the CLI puts `.gemini` in;
                // under the macOS sandbox (SANDBOX=sandbox-exec) it writes to
                // ~/.cache/.gemini instead.
                match env.var("GEMINI_CLI_HOME") {
                    Some(dir) => roots.push(PathBuf::from(dir).join(".gemini/tmp")),
                    None => {
                        if let Some(home) = env.home() {
                            roots.push(home.join(".gemini/tmp"));
                            roots.push(home.join(".cache/.gemini/tmp"));
                        }
                    }
                }
            }
            Store::Qwen => {
                if let Some(home) = env.home() {
                    roots.push(home.join(".qwen/projects"));
                }
            }
            Store::OpenCode => {
                // OpenCode keeps its data under XDG_DATA_HOME (default ~/.local/share) on
                // every platform: the database and, before 1.2, `storage/`.
                match env.var("XDG_DATA_HOME") {
                    Some(dir) => roots.push(PathBuf::from(dir).join("opencode")),
                    None => {
                        if let Some(home) = env.home() {
                            roots.push(home.join(".local/share/opencode"));
                        }
                    }
                }
            }
        }
        roots
    }

    /// The sessions under `path` (a session file, or a directory searched recursively),
    /// sorted.
    pub fn discover(self, path: &Path) -> io::Result<Vec<Found>> {
        self.discover_skipping(path).map(|(found, _)| found)
    }

    /// [`Store::discover`], and the files it left out because their names say they are no
    /// session (`~/.claude/history.jsonl`), so that a caller can say so.
    pub fn discover_skipping(self, path: &Path) -> io::Result<(Vec<Found>, Vec<Skipped>)> {
        let mut skipped = Vec::new();
        let found = match self {
            Store::ClaudeCode => {
                let (found, left_out) = claude_code::discover_skipping(path)?;
                skipped = left_out;
                found
            }
            Store::Codex => codex::discover(path)?,
            Store::Copilot => copilot::discover(path)?,
            Store::Gemini => gemini::discover(path)?,
            Store::Qwen => qwen::discover(path)?,
            Store::OpenCode => {
                let found = opencode::discover(path)?
                    .into_iter()
                    .map(|(files, row)| Found {
                        store: self,
                        files,
                        row,
                    })
                    .collect();
                return Ok((found, skipped));
            }
        };
        let found = found
            .into_iter()
            .map(|files| Found::new(self, files))
            .collect();
        Ok((found, skipped))
    }

    /// Reads a session's files and decides its runs.
    pub(crate) fn plan(self, found: &Found) -> Result<SessionPlan, ImportError> {
        match self {
            Store::ClaudeCode => claude_code::plan(&found.files),
            Store::Codex => codex::plan(&found.files),
            Store::Copilot => copilot::plan(&found.files),
            Store::Gemini => gemini::plan(&found.files),
            Store::Qwen => qwen::plan(&found.files),
            Store::OpenCode => opencode::plan(&found.files, found.row.as_deref()),
        }
    }
}

impl fmt::Display for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is no store's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown store {name:?} (expected one of: {})", Store::ALL.map(Store::as_str).join(", "))]
pub struct UnknownStore {
    /// The name given.
    pub name: String,
}

impl FromStr for Store {
    type Err = UnknownStore;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Store::ALL
            .into_iter()
            .find(|store| store.as_str() == name)
            .ok_or_else(|| UnknownStore {
                name: name.to_owned(),
            })
    }
}

/// One session a store has, found by path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// Whose.
    pub store: Store,
    /// Its files: the session's own, and its agents'.
    pub files: SessionFiles,
    /// Its id in the store's database, when `files.main` is a database (OpenCode's
    /// `opencode.db`) rather than the session's own file.
    pub row: Option<String>,
}

impl Found {
    fn new(store: Store, files: SessionFiles) -> Found {
        Found {
            store,
            files,
            row: None,
        }
    }

    /// Reads the session's files and makes its runs. Pure: nothing is written.
    pub fn convert(&self) -> Result<Session, ImportError> {
        write::convert(&self.store.plan(self)?)
    }

    /// Reads the session's files and writes its runs into `dir`, streaming, as `mode` says
    /// for a run that has a file already.
    pub fn import(&self, dir: &Path, mode: Mode) -> Result<Imported, ImportError> {
        let imported = self.import_checked(dir, mode, &mut |_| true)?;
        Ok(imported.expect("nothing refused the writing"))
    }

    /// [`Found::import`], `ready` told the run ids of the session once it is read, before
    /// any of its runs is written: it may wait (a batch waits there for an earlier session
    /// writing one of them: [`batch::Claims`](crate::batch::Claims)), or refuse what was
    /// read (its files moved meanwhile), and then nothing is written (`None`).
    pub(crate) fn import_checked(
        &self,
        dir: &Path,
        mode: Mode,
        ready: &mut dyn FnMut(&[&str]) -> bool,
    ) -> Result<Option<Imported>, ImportError> {
        let plan = self.store.plan(self)?;
        let run_ids: Vec<&str> = plan.runs.iter().map(|run| run.run_id.as_str()).collect();
        if !ready(&run_ids) {
            return Ok(None);
        }
        write::write_plan(&plan, dir, mode).map(Some)
    }

    /// Every file the session is read from, main first (a database session: the database
    /// and its write-ahead log, which other sessions share).
    pub fn paths(&self) -> Vec<PathBuf> {
        match self.store {
            Store::OpenCode => opencode::paths(&self.files, self.row.as_deref()),
            _ => self
                .files
                .main
                .iter()
                .chain(&self.files.subagents)
                .cloned()
                .collect(),
        }
    }

    /// The stamps of what the session is read from now ([`Found::paths`]'s, and for a
    /// session in a database being written, what its log has published): the same stamps,
    /// the same content.
    pub fn stamps(&self) -> Vec<super::state::Stamp> {
        match self.store {
            Store::OpenCode => opencode::stamps(&self.files, self.row.as_deref()),
            _ => super::state::stamps(&self.paths()),
        }
    }

    /// The hash of everything the session is read from: its files' content, or its rows'
    /// in a database (which other sessions share, so its files' would not do).
    pub fn content_hash(&self) -> Result<String, ImportError> {
        match self.store {
            Store::OpenCode => opencode::content_hash(&self.files, self.row.as_deref()),
            _ => {
                let paths = self.paths();
                super::state::content_hash(&paths).map_err(|source| ImportError::Io {
                    path: paths.first().cloned().unwrap_or_default(),
                    source,
                })
            }
        }
    }

    /// The session's files read whole, once ([`entries::Held`]): for every store whose
    /// [`content_hash`](Found::content_hash) is its files', when they are small enough to
    /// hold; `None` for the others (read as they go).
    pub(crate) fn read_whole(&self) -> Option<entries::Held> {
        match self.store {
            Store::OpenCode => None,
            _ => entries::Held::read(&self.paths()),
        }
    }

    /// When the session last changed, when its store says so better than its files' times
    /// (a session in a database: its own `time_updated`).
    pub(crate) fn updated(&self) -> Option<std::time::SystemTime> {
        match self.store {
            Store::OpenCode => opencode::modified(&self.files, self.row.as_deref()),
            _ => None,
        }
    }

    /// The working directory the session ran in, when its files say.
    pub fn project(&self) -> Option<PathBuf> {
        match self.store {
            Store::ClaudeCode => self.paths().iter().find_map(|path| claude_code::cwd(path)),
            Store::Codex => self.paths().iter().find_map(|path| codex::cwd(path)),
            Store::Copilot => self.paths().iter().find_map(|path| copilot::cwd(path)),
            Store::Gemini => self.paths().iter().find_map(|path| gemini::cwd(path)),
            Store::Qwen => self.paths().iter().find_map(|path| qwen::cwd(path)),
            Store::OpenCode => opencode::cwd(&self.files, self.row.as_deref()),
        }
    }

    /// The session's identity in the state file: `<store>:<its main file>` (or, for a
    /// session known only by its agents' files, their directory).
    pub fn key(&self) -> String {
        let path = match (&self.files.main, self.files.subagents.first()) {
            (Some(main), _) => main.clone(),
            (None, Some(agent)) => agent.parent().unwrap_or(agent).to_owned(),
            (None, None) => PathBuf::new(),
        };
        // Absolute, so that imports run from different directories know it again.
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        match &self.row {
            Some(row) => format!("{}:{}#{row}", self.store, path.display()),
            None => format!("{}:{}", self.store, path.display()),
        }
    }
}

/// The environment stores are looked for in: the home directory and the agents' own
/// variables. [`Env::from_process`] reads the process's; a test makes a fake home.
#[derive(Clone, Debug, Default)]
pub struct Env {
    home: Option<PathBuf>,
    vars: BTreeMap<String, OsString>,
}

/// The variables that move a store, read by [`Env::from_process`].
const VARIABLES: &[&str] = &[
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "COPILOT_HOME",
    "GEMINI_CLI_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
];

impl Env {
    /// The process's home directory (`HOME`) and the agents' variables.
    pub fn from_process() -> Env {
        let mut env = Env {
            home: std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from),
            vars: BTreeMap::new(),
        };
        for name in VARIABLES {
            if let Some(value) = std::env::var_os(name).filter(|v| !v.is_empty()) {
                env.vars.insert((*name).to_owned(), value);
            }
        }
        env
    }

    /// `home` and no variables.
    pub fn with_home(home: impl Into<PathBuf>) -> Env {
        Env {
            home: Some(home.into()),
            vars: BTreeMap::new(),
        }
    }

    /// The same, with `name` set to `value`.
    pub fn set(mut self, name: &str, value: impl Into<OsString>) -> Env {
        self.vars.insert(name.to_owned(), value.into());
        self
    }

    /// The home directory.
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// A variable's value.
    pub fn var(&self, name: &str) -> Option<&OsStr> {
        self.vars.get(name).map(OsString::as_os_str)
    }
}
