//! Subcommands, argument parsing and exit codes.
//!
//! Exit codes: 0 when the input was clean; 1 when input problems were found and reported
//! (the valid data around them is still used); 2 for usage and I/O errors (a file that
//! cannot be opened). A closed stdout (`axt ... | head`) ends the command
//! quietly with 0. `axt exec` exits with its agent's exit code instead.

// The command line is where output is printed.
#![allow(clippy::print_stderr, clippy::print_stdout)]

mod cat;
mod check;
mod exec;
#[cfg(unix)]
mod export;
#[cfg(unix)]
mod import;
mod normalize;
mod stats;
mod tree;

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "axt",
    version,
    about = "Canonical transcripts for AI coding agents"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
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
    let cli = Cli::parse();
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
    };
    match outcome {
        Ok(Outcome::Clean) => ExitCode::SUCCESS,
        Ok(Outcome::InputProblems) => ExitCode::from(1),
        Ok(Outcome::Exited(code)) => ExitCode::from(code),
        Ok(Outcome::Failed) => ExitCode::from(2),
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("axt: {error}");
            ExitCode::from(2)
        }
    }
}

/// A file, or stdin for `-`.
pub(crate) fn open(path: &Path) -> io::Result<Box<dyn Read>> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(io::stdin().lock()));
    }
    let file = File::open(path).map_err(|error| with_path(path, error))?;
    Ok(Box::new(file))
}

pub(crate) fn with_path(path: &Path, error: io::Error) -> io::Error {
    io::Error::new(error.kind(), format!("{}: {error}", path.display()))
}

/// The name diagnostics use for an input.
pub(crate) fn display_name(path: &Path) -> String {
    path.display().to_string()
}
