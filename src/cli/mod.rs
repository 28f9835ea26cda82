//! Subcommands, argument parsing and exit codes.
//!
//! Exit codes, one rule for every command: 0 when the input was clean; 1 when problems were
//! found in the input, each reported on stderr (the valid data around them is still used);
//! 2 for a usage error, an input that cannot be opened or read (reported with its path), or
//! an output that cannot be written. A closed stdout (`axt ... | head`) ends the command
//! quietly with 0; a closed stderr changes nothing but what is shown. `axt exec` exits with
//! its agent's exit code instead.
//!
//! Conventions every command follows: `-` (or no FILE where one is optional) reads stdin;
//! the product goes to stdout and problems to stderr ([`console`]); `--out DIR` names a
//! directory, `-o FILE` (`--output`) a file.

// No `eprintln!` or `println!` here (the lints deny them): they panic when the stream is
// closed. stderr goes through `console`, stdout through a writer whose errors are handled.

mod cat;
mod check;
mod console;
mod exec;
#[cfg(unix)]
mod export;
#[cfg(unix)]
mod import;
mod manual;
mod normalize;
mod stats;
mod tree;

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, IsTerminal, Read};
use std::path::Path;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "axt",
    version,
    about = "Canonical transcripts for AI coding agents",
    long_about = "Canonical transcripts for AI coding agents.\n\n\
        axt turns the raw output of AI coding agents (Claude Code, Codex, Gemini CLI, Copilot \
        CLI, OpenAI-compatible HTTP) into one canonical JSONL transcript per run, and reads \
        transcripts back: checks, trees, statistics, exports.\n\n\
        Conventions of every command: FILE `-` (or no FILE where it is optional) is stdin; \
        the product goes to stdout, problems to stderr, one per line, as \
        FILE:LINE: byte OFFSET: KIND: MESSAGE (a warning's message starts with `warning: `; \
        with --json, one JSON object per line); `--out DIR` names a directory and \
        `-o FILE` (--output) a file; text from the input is escaped before it is printed.",
    after_help = "Exit status: 0 clean, 1 problems found in the input (each reported on stderr), \
                  2 usage error, an input that cannot be read or an output that cannot be \
                  written; axt exec exits with its agent's code. A closed stdout ends a \
                  command quietly with 0."
)]
struct Cli {
    /// When to colour diagnostics: auto (stderr is a terminal and NO_COLOR is unset),
    /// always or never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    color: ColorChoice,
    /// No progress bars, notices or `wrote ...` lines; problems are still reported.
    #[arg(long, short, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand)]
enum Command {
    Normalize(normalize::Args),
    Cat(cat::Args),
    Exec(exec::Args),
    Check(check::Args),
    Tree(tree::Args),
    Stats(stats::Args),
    #[cfg(unix)]
    Import(import::Args),
    #[cfg(unix)]
    Export(export::Args),
    Completions(manual::CompletionsArgs),
    Man(manual::ManArgs),
}

/// How a subcommand ended, when it ended normally.
pub(crate) enum Outcome {
    Clean,
    /// Problems in the input were reported: exit 1.
    InputProblems,
    /// `axt exec`: the agent's exit code.
    Exited(u8),
    /// An input could not be read (already reported on stderr): exit 2.
    Failed,
}

pub(crate) fn run() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    // clap prints its own errors before the arguments are parsed, so `--color` is looked up
    // first to colour those too.
    let choice = color_choice(&args);
    let clap_choice = match choice {
        ColorChoice::Auto => clap::ColorChoice::Auto,
        ColorChoice::Always => clap::ColorChoice::Always,
        ColorChoice::Never => clap::ColorChoice::Never,
    };
    let cli = match Cli::command()
        .color(clap_choice)
        .try_get_matches_from(&args)
        .and_then(|matches| Cli::from_arg_matches(&matches))
    {
        Ok(cli) => cli,
        Err(error) => {
            // --help and --version are "errors" that print to stdout and exit 0; a closed
            // stdout or stderr must not turn them into a panic.
            let _ = error.print();
            return ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2));
        }
    };
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    console::init(
        use_colour(cli.color, io::stderr().is_terminal(), no_color),
        use_colour(cli.color, io::stdout().is_terminal(), no_color),
        cli.quiet,
    );
    let outcome = match cli.command {
        Command::Normalize(args) => normalize::run(args),
        Command::Cat(args) => cat::run(args),
        Command::Exec(args) => exec::run(args),
        Command::Check(args) => check::run(args),
        Command::Tree(args) => tree::run(args),
        Command::Stats(args) => stats::run(args),
        #[cfg(unix)]
        Command::Import(args) => import::run(args),
        #[cfg(unix)]
        Command::Export(args) => export::run(args),
        Command::Completions(args) => manual::completions(args),
        Command::Man(args) => manual::man(args),
    };
    match outcome {
        Ok(Outcome::Clean) => ExitCode::SUCCESS,
        Ok(Outcome::InputProblems) => ExitCode::from(1),
        Ok(Outcome::Exited(code)) => ExitCode::from(code),
        Ok(Outcome::Failed) => ExitCode::from(2),
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            report_error(&error);
            ExitCode::from(2)
        }
    }
}

/// The `--color` value among raw arguments (before `--`), for clap's own messages.
fn color_choice(args: &[OsString]) -> ColorChoice {
    let mut choice = ColorChoice::Auto;
    let mut words = args.iter().skip(1).map(|a| a.to_str().unwrap_or_default());
    while let Some(word) = words.next() {
        let value = match word {
            "--" => break,
            "--color" => words.next().unwrap_or_default(),
            _ => match word.strip_prefix("--color=") {
                Some(value) => value,
                None => continue,
            },
        };
        if let Ok(parsed) = ColorChoice::from_str(value, false) {
            choice = parsed;
        }
    }
    choice
}

/// Whether axt's own messages on stderr are coloured: `always` and `never` are obeyed;
/// `auto` colours a terminal unless `NO_COLOR` is set (<https://no-color.org>).
fn use_colour(choice: ColorChoice, terminal: bool, no_color: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => terminal && !no_color,
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

/// The name diagnostics use for an input.
pub(crate) fn display_name(path: &Path) -> String {
    path.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn color_is_found_before_parsing_and_stops_at_the_separator() {
        let args = |list: &[&str]| -> Vec<OsString> { list.iter().map(OsString::from).collect() };
        assert_eq!(color_choice(&args(&["axt", "cat"])), ColorChoice::Auto);
        assert_eq!(
            color_choice(&args(&["axt", "--color", "never", "cat"])),
            ColorChoice::Never
        );
        assert_eq!(
            color_choice(&args(&["axt", "check", "--color=always", "x"])),
            ColorChoice::Always
        );
        assert_eq!(
            color_choice(&args(&["axt", "exec", "--", "agent", "--color=always"])),
            ColorChoice::Auto
        );
    }

    #[test]
    fn no_color_only_changes_auto() {
        assert!(use_colour(ColorChoice::Auto, true, false));
        assert!(!use_colour(ColorChoice::Auto, true, true));
        assert!(!use_colour(ColorChoice::Auto, false, false));
        assert!(use_colour(ColorChoice::Always, false, true));
        assert!(!use_colour(ColorChoice::Never, true, false));
    }
}
