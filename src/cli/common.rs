//! What every command shares: how it ended ([`Outcome`]), opening an input (a file or
//! stdin), I/O errors that name their file, and the one parser of `--provider`.
//!
//! A file of its own so that the commands import it directly, not from the dispatcher in
//! `cli/mod.rs` that imports them.

use std::fs::File;
use std::io::{self, IsTerminal, Read, Write};
use std::path::Path;

use clap::builder::{PossibleValuesParser, TypedValueParser};

use super::console;
use crate::model::Provider;

/// What `--provider` names: a provider, or `auto` where the command can recognize it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ProviderChoice {
    Auto,
    Named(Provider),
}

/// The value parser of `--provider`: `auto`, then the registry's names ([`Provider::ALL`],
/// read back by `Provider::from_str`, the one parser of them). `--help` lists them, and any
/// other name is refused with the list. Every command that takes `--provider` can
/// recognize the provider itself (`axt exec` too, since it can wait for the first records).
pub(crate) fn provider_or_auto_parser() -> impl TypedValueParser<Value = ProviderChoice> {
    let names = std::iter::once("auto").chain(Provider::ALL.map(Provider::as_str));
    PossibleValuesParser::new(names).try_map(|name: String| match name.as_str() {
        "auto" => Ok(ProviderChoice::Auto),
        name => name.parse().map(ProviderChoice::Named),
    })
}

/// How a subcommand ended, when it ended normally.
#[derive(Clone, Copy)]
pub(crate) enum Outcome {
    Clean,
    /// Problems in the input were reported: exit 1.
    InputProblems,
    /// `axt exec`: the agent's exit code.
    Exited(u8),
    /// An input could not be read (already reported on stderr): exit 2.
    Failed,
}

impl Outcome {
    /// The worse of two outcomes, for a command over several inputs: a failure to read or
    /// write over problems in an input, those over a clean input.
    pub(crate) fn worse(self, other: Outcome) -> Outcome {
        let rank = |o: &Outcome| match o {
            Outcome::Clean => 0,
            Outcome::InputProblems => 1,
            Outcome::Failed | Outcome::Exited(_) => 2,
        };
        if rank(&other) > rank(&self) {
            other
        } else {
            self
        }
    }
}

/// A file, or stdin for `-`. A directory is refused here: opening one succeeds on Unix and
/// only the first read fails, which would make it look like a damaged file.
pub(crate) fn open(path: &Path) -> io::Result<Box<dyn Read + Send>> {
    if path.as_os_str() == "-" {
        let stdin = io::stdin();
        if stdin.is_terminal() {
            // Without this a user who forgot the FILE sees axt hang.
            console::notice(&"reading from stdin (a terminal); end the input with Ctrl-D");
        }
        return Ok(Box::new(stdin));
    }
    let file = File::open(path).map_err(|error| with_path(path, error))?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        let error = io::Error::new(io::ErrorKind::IsADirectory, "is a directory");
        return Err(with_path(path, error));
    }
    Ok(Box::new(file))
}

/// `error` on the file at `path`: shown as `axt: PATH: error`, and with `--json` with the
/// path in its own field.
pub(crate) fn with_path(path: &Path, error: io::Error) -> io::Error {
    let kind = error.kind();
    io::Error::new(
        kind,
        PathError {
            path: display_name(path),
            error,
        },
    )
}

/// An I/O error and the file it happened to.
#[derive(Debug)]
struct PathError {
    path: String,
    error: io::Error,
}

impl std::fmt::Display for PathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.error)
    }
}

impl std::error::Error for PathError {}

/// Prints an error that ended a command: with its file when it has one.
pub(crate) fn report_error(error: &io::Error) {
    match error.get_ref().and_then(|e| e.downcast_ref::<PathError>()) {
        Some(PathError { path, error }) => console::unreadable(path, error),
        None => console::error(error),
    }
}

/// The price table estimates come from: the shipped one with the user's laid over it
/// (`AXT_PRICES`, `$XDG_CONFIG_HOME/axt/prices.json`). A user's table that cannot be read is
/// reported as a warning and the shipped one used: a cost estimate is not worth stopping a
/// command for, but a table silently ignored would make wrong figures look right.
pub(crate) fn prices() -> crate::read::Prices {
    match crate::read::Prices::load() {
        Ok((prices, _)) => prices,
        Err(error) => {
            console::warning(&format!(
                "price table not read, using the one axt ships ({}): {error}",
                crate::read::Prices::builtin().date
            ));
            crate::read::Prices::builtin().clone()
        }
    }
}

/// The name diagnostics use for an input.
pub(crate) fn display_name(path: &Path) -> String {
    path.display().to_string()
}

/// `text` with `indent` before each line (before the first too when `first`): a value
/// pretty-printed alone, indented, is the value as a pretty-printed document nests it
/// (JSON strings hold no raw line break), so a long array or object can be written one
/// element at a time.
pub(crate) fn write_indented(
    out: &mut (impl Write + ?Sized),
    text: &str,
    indent: &str,
    first: bool,
) -> io::Result<()> {
    for (n, line) in text.split('\n').enumerate() {
        if n > 0 {
            out.write_all(b"\n")?;
        }
        if n > 0 || first {
            out.write_all(indent.as_bytes())?;
        }
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}
