//! What an ACP client serves its agent: text files and terminals, confined to one directory.
//!
//! * `fs/read_text_file` (`path`, optional 1-based `line` and `limit` in lines) and
//!   `fs/write_text_file` (`path`, `content`; missing parent directories are made): the path
//!   must be absolute and, with every symbolic link resolved, inside the workspace root; a
//!   file that does not exist is `-32002` (resource not found), a path outside the root or
//!   not absolute `-32602` (invalid params), any other failure `-32603`.
//! * `terminal/create` (`command`, `args`, `env`, `cwd` inside the root, default the root;
//!   `outputByteLimit`): the command runs without a shell, stdin closed, stdout and stderr
//!   into one buffer that keeps the last `outputByteLimit` bytes (cut at a character
//!   boundary); answered at once with its id. `terminal/output` answers with the output so
//!   far, whether it was truncated and, once the command exited, its exit status;
//!   `terminal/wait_for_exit` answers when it exits (from a thread of its own, so the agent's
//!   other messages go on being read); `terminal/kill` kills it; `terminal/release` kills it
//!   if still running and forgets it.
//!
//! This file owns the service and its confinement. It must not speak the protocol's framing
//! or record anything: the session (`acp.rs`) hands it requests and sends its answers.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};

/// A JSON-RPC error: its code and message.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RpcError {
    pub(crate) code: i64,
    pub(crate) message: String,
}

impl RpcError {
    fn invalid(message: impl Into<String>) -> Self {
        RpcError {
            code: -32602,
            message: message.into(),
        }
    }

    fn not_found(message: impl Into<String>) -> Self {
        RpcError {
            code: -32002,
            message: message.into(),
        }
    }

    fn internal(message: impl Into<String>) -> Self {
        RpcError {
            code: -32603,
            message: message.into(),
        }
    }
}

/// An answer: now, or later through the callback (`terminal/wait_for_exit`).
pub(crate) enum Answer {
    Now(Result<Value, RpcError>),
    Later,
}

/// Called with an answer that comes later.
pub(crate) type Later = Arc<dyn Fn(Result<Value, RpcError>) + Send + Sync>;

/// The files and terminals of one session, under `root`.
pub(crate) struct Workspace {
    root: PathBuf,
    terminals: HashMap<String, Arc<Terminal>>,
    made: u64,
}

/// A command running for the agent.
struct Terminal {
    child: Mutex<Child>,
    output: Mutex<Output>,
    exit: Mutex<Option<ExitStatus>>,
}

#[derive(Default)]
struct Output {
    bytes: Vec<u8>,
    truncated: bool,
    limit: Option<usize>,
}

impl Workspace {
    /// A workspace at `root`, which must exist (it is resolved once, symbolic links and all).
    pub(crate) fn new(root: &Path) -> std::io::Result<Self> {
        Ok(Workspace {
            root: root.canonicalize()?,
            terminals: HashMap::new(),
            made: 0,
        })
    }

    /// The root, absolute and resolved: the session's `cwd`.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// Serves one request of the agent; `None` for a method this service does not offer.
    pub(crate) fn serve(&mut self, method: &str, params: &Value, later: Later) -> Option<Answer> {
        let answer = match method {
            "fs/read_text_file" => Answer::Now(self.read(params)),
            "fs/write_text_file" => Answer::Now(self.write(params)),
            "terminal/create" => Answer::Now(self.create(params)),
            "terminal/output" => Answer::Now(self.terminal(params).map(|t| t.report())),
            "terminal/wait_for_exit" => match self.terminal(params) {
                Ok(terminal) => {
                    thread::spawn(move || later(Ok(terminal.wait())));
                    Answer::Later
                }
                Err(error) => Answer::Now(Err(error)),
            },
            "terminal/kill" => Answer::Now(self.terminal(params).map(|t| {
                t.kill();
                json!({})
            })),
            "terminal/release" => Answer::Now(self.terminal(params).map(|terminal| {
                terminal.kill();
                if let Some(id) = params.get("terminalId").and_then(Value::as_str) {
                    self.terminals.remove(id);
                }
                json!({})
            })),
            _ => return None,
        };
        Some(answer)
    }

    fn read(&self, params: &Value) -> Result<Value, RpcError> {
        let path = self.confined(params, false)?;
        let text = std::fs::read(&path).map_err(|error| match error.kind() {
            std::io::ErrorKind::NotFound => {
                RpcError::not_found(format!("Resource not found: {}", path.display()))
            }
            _ => RpcError::internal(format!("{}: {error}", path.display())),
        })?;
        let text = String::from_utf8_lossy(&text);
        let line = params
            .get("line")
            .and_then(Value::as_u64)
            .unwrap_or(1)
            .max(1);
        let limit = params.get("limit").and_then(Value::as_u64);
        if line == 1 && limit.is_none() {
            return Ok(json!({"content": text}));
        }
        let lines = text
            .split_inclusive('\n')
            .skip(usize::try_from(line - 1).unwrap_or(usize::MAX));
        let content: String = match limit {
            Some(limit) => lines
                .take(usize::try_from(limit).unwrap_or(usize::MAX))
                .collect(),
            None => lines.collect(),
        };
        Ok(json!({"content": content}))
    }

    fn write(&self, params: &Value) -> Result<Value, RpcError> {
        let content = params
            .get("content")
            .and_then(Value::as_str)
            .ok_or_else(|| RpcError::invalid("`content` must be a string"))?;
        let path = self.confined(params, true)?;
        let internal =
            |error: std::io::Error| RpcError::internal(format!("{}: {error}", path.display()));
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(internal)?;
        }
        std::fs::write(&path, content).map_err(internal)?;
        Ok(json!({}))
    }

    /// The request's `path`, checked to be absolute and inside the root once every symbolic
    /// link is resolved. For a file to be made (`new_ok`), its nearest existing ancestor is
    /// resolved, and the rest may not climb (`..`).
    fn confined(&self, params: &Value, new_ok: bool) -> Result<PathBuf, RpcError> {
        let path = params
            .get("path")
            .and_then(Value::as_str)
            .ok_or_else(|| RpcError::invalid("`path` must be a string"))?;
        self.inside(Path::new(path), new_ok)
    }

    fn inside(&self, path: &Path, new_ok: bool) -> Result<PathBuf, RpcError> {
        if !path.is_absolute() {
            return Err(RpcError::invalid(format!(
                "{} is not an absolute path",
                path.display()
            )));
        }
        let outside = || {
            RpcError::invalid(format!(
                "{} is outside the workspace {}",
                path.display(),
                self.root.display()
            ))
        };
        let resolved = match path.canonicalize() {
            Ok(resolved) => resolved,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                let mut existing = path;
                let mut rest = Vec::new();
                while let Some(parent) = existing.parent() {
                    rest.push(existing.file_name().ok_or_else(outside)?);
                    existing = parent;
                    if existing.exists() {
                        break;
                    }
                }
                if path.components().any(|c| c == Component::ParentDir) {
                    return Err(outside());
                }
                let base = existing.canonicalize().map_err(|_| outside())?;
                if !base.starts_with(&self.root) {
                    return Err(outside());
                }
                if !new_ok {
                    return Err(RpcError::not_found(format!(
                        "Resource not found: {}",
                        path.display()
                    )));
                }
                rest.iter().rev().fold(base, |at, name| at.join(name))
            }
            Err(error) => return Err(RpcError::internal(format!("{}: {error}", path.display()))),
        };
        if resolved.starts_with(&self.root) {
            Ok(resolved)
        } else {
            Err(outside())
        }
    }

    fn create(&mut self, params: &Value) -> Result<Value, RpcError> {
        let command = params
            .get("command")
            .and_then(Value::as_str)
            .ok_or_else(|| RpcError::invalid("`command` must be a string"))?;
        let cwd = match params.get("cwd").and_then(Value::as_str) {
            Some(cwd) => self.inside(Path::new(cwd), false)?,
            None => self.root.clone(),
        };
        let mut process = Command::new(command);
        process
            .current_dir(&cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for arg in params
            .get("args")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            process.arg(
                arg.as_str()
                    .ok_or_else(|| RpcError::invalid("`args` must be strings"))?,
            );
        }
        for variable in params
            .get("env")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let name = variable.get("name").and_then(Value::as_str);
            let value = variable.get("value").and_then(Value::as_str);
            if let (Some(name), Some(value)) = (name, value) {
                process.env(name, value);
            }
        }
        let mut child = process
            .spawn()
            .map_err(|error| RpcError::internal(format!("cannot run {command}: {error}")))?;
        let limit = params
            .get("outputByteLimit")
            .and_then(Value::as_u64)
            .and_then(|limit| usize::try_from(limit).ok());
        let pipes: Vec<Box<dyn Read + Send>> = [
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        ]
        .into_iter()
        .flatten()
        .collect();
        let terminal = Arc::new(Terminal {
            child: Mutex::new(child),
            output: Mutex::new(Output {
                limit,
                ..Output::default()
            }),
            exit: Mutex::new(None),
        });
        for mut pipe in pipes {
            let terminal = Arc::clone(&terminal);
            thread::spawn(move || {
                let mut buffer = [0u8; 8192];
                while let Ok(read) = pipe.read(&mut buffer) {
                    if read == 0 {
                        break;
                    }
                    lock(&terminal.output).push(&buffer[..read]);
                }
            });
        }
        self.made += 1;
        let id = format!("term-{}", self.made);
        self.terminals.insert(id.clone(), terminal);
        Ok(json!({"terminalId": id}))
    }

    fn terminal(&self, params: &Value) -> Result<Arc<Terminal>, RpcError> {
        let id = params
            .get("terminalId")
            .and_then(Value::as_str)
            .ok_or_else(|| RpcError::invalid("`terminalId` must be a string"))?;
        self.terminals
            .get(id)
            .cloned()
            .ok_or_else(|| RpcError::not_found(format!("no terminal {id}")))
    }

    /// Kills every terminal still running: the session is over.
    pub(crate) fn close(&mut self) {
        for terminal in self.terminals.values() {
            terminal.kill();
        }
        self.terminals.clear();
    }
}

impl Output {
    /// Appends, keeping the last `limit` bytes.
    fn push(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
        if let Some(limit) = self.limit
            && self.bytes.len() > limit
        {
            let cut = self.bytes.len() - limit;
            self.bytes.drain(..cut);
            self.truncated = true;
        }
    }

    /// The output as text: a character cut by the limit at the start is dropped.
    fn text(&self) -> String {
        let start = if self.truncated {
            self.bytes
                .iter()
                .take_while(|b| (**b & 0xC0) == 0x80)
                .count()
        } else {
            0
        };
        String::from_utf8_lossy(&self.bytes[start..]).into_owned()
    }
}

impl Terminal {
    fn exited(&self) -> Option<ExitStatus> {
        let mut exit = lock(&self.exit);
        if exit.is_none()
            && let Ok(Some(status)) = lock(&self.child).try_wait()
        {
            *exit = Some(status);
        }
        *exit
    }

    fn report(&self) -> Value {
        let output = lock(&self.output);
        let mut report = json!({"output": output.text(), "truncated": output.truncated});
        drop(output);
        if let Some(status) = self.exited() {
            report["exitStatus"] = exit_status(status);
        }
        report
    }

    fn wait(&self) -> Value {
        loop {
            if let Some(status) = self.exited() {
                // Let the readers take the last of the output before anyone asks for it.
                thread::sleep(Duration::from_millis(20));
                return exit_status(status);
            }
            thread::sleep(Duration::from_millis(10));
        }
    }

    fn kill(&self) {
        if self.exited().is_none() {
            let mut child = lock(&self.child);
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// `{exitCode, signal}` of an exit status.
fn exit_status(status: ExitStatus) -> Value {
    use std::os::unix::process::ExitStatusExt;
    let signal = status.signal().map(|signal| match signal {
        9 => "SIGKILL".to_owned(),
        15 => "SIGTERM".to_owned(),
        2 => "SIGINT".to_owned(),
        other => format!("signal {other}"),
    });
    json!({"exitCode": status.code(), "signal": signal})
}

/// A lock that a panicking reader thread cannot poison for the others.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_outside_the_root_are_refused_even_through_a_link() {
        let base = std::env::temp_dir().join(format!("axt-serve-{}", std::process::id()));
        let root = base.join("root");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(base.join("secret"), "no").unwrap();
        let _ = std::fs::remove_file(root.join("link"));
        std::os::unix::fs::symlink(base.join("secret"), root.join("link")).unwrap();
        let workspace = Workspace::new(&root).unwrap();
        let read = |path: &Path| workspace.read(&json!({"path": path}));
        assert_eq!(read(&base.join("secret")).unwrap_err().code, -32602);
        assert_eq!(read(&root.join("link")).unwrap_err().code, -32602);
        assert_eq!(read(&root.join("../secret")).unwrap_err().code, -32602);
        assert_eq!(read(Path::new("relative")).unwrap_err().code, -32602);
        assert_eq!(read(&root.join("missing")).unwrap_err().code, -32002);
        let write = |path: &Path| workspace.write(&json!({"path": path, "content": "x\ny\nz\n"}));
        assert_eq!(
            write(&root.join("new/dir/../../../escape"))
                .unwrap_err()
                .code,
            -32602
        );
        write(&root.join("new/dir/file.txt")).unwrap();
        let part =
            workspace.read(&json!({"path": root.join("new/dir/file.txt"), "line": 2, "limit": 1}));
        assert_eq!(part.unwrap(), json!({"content": "y\n"}));
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn output_keeps_the_last_bytes_at_a_character_boundary() {
        let mut output = Output {
            limit: Some(4),
            ..Output::default()
        };
        output.push("aé€".as_bytes());
        assert!(output.truncated);
        assert_eq!(output.text(), "€");
    }
}
