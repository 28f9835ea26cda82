//! The `axt` command line: subcommands, argument parsing and exit codes.
//!
//! Behind the `cli` feature, the top layer: it stands on every module of the library and
//! none of them imports it. It is in the library (hidden from its docs, not part of its
//! API) only so that more than one program can run it: `src/main.rs` (the `axt` binary)
//! and the Python package's `axt` command both call [`run`] with their arguments.
//!
//! It owns what a person at a terminal sees (options,
//! messages, colours, progress, exit codes) and nothing a library user needs; any logic worth
//! reusing belongs in the library (auto-detection is `normalize::detect_head`, say), and the
//! library never imports from here.
//!
//! Exit codes, one rule for every command: 0 when the input was clean; 1 when problems were
//! found in the input, each reported on stderr (the valid data around them is still used);
//! 2 for a usage error, an input that cannot be opened or read (reported with its path), or
//! an output that cannot be written. A closed stdout (`axt ... | head`) ends the command
//! quietly with 0; a closed stderr changes nothing but what is shown. `axt exec` exits with
//! its agent's exit code when that is not 0, and by the same rule when it is.
//!
//! Conventions every command follows: `-` (or no FILE where one is optional) reads stdin;
//! the product goes to stdout and problems to stderr ([`console`]); `--out DIR` names a
//! directory, `-o FILE` (`--output`) a file.

// The doc comments below this module are clap's help texts, written for a terminal
// (`DIR/<run-id>.jsonl`), not HTML; and the module is hidden from the library's docs, so its
// links to its private files lead nowhere a reader goes.
#![allow(rustdoc::invalid_html_tags, rustdoc::private_intra_doc_links)]

// No `eprintln!` or `println!` here (the lints deny them): they panic when the stream is
// closed. stderr goes through `console`, stdout through a writer whose errors are handled.

mod cat;
mod check;
mod common;
mod console;
mod exec;
mod exec_acp;
mod export;
mod hints;
mod import;
mod ls;
mod manual;
mod normalize;
mod present;
mod proxy;
mod show;
mod stats;
mod supervise;
mod tree;
mod usage;
mod view;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::io::{self, IsTerminal};

// The helpers every command shares, re-exported so a command imports them from `super`.
pub(crate) use common::{
    Outcome, display_name, open, prices, report_error, with_path, write_indented,
};

#[derive(Parser)]
#[command(
    name = "axt",
    version,
    about = "Canonical transcripts for AI coding agents",
    long_about = "Canonical transcripts for AI coding agents.\n\n\
        axt turns the raw output of AI coding agents (Claude Code, Codex, Gemini CLI, Copilot \
        CLI, OpenAI-compatible HTTP) into one canonical JSONL transcript per run, and reads \
        transcripts back: checks, trees, statistics, exports, a page to read them in a \
        browser.\n\n\
        Conventions of every command: FILE `-` (or no FILE where it is optional) is stdin; \
        the product goes to stdout, problems to stderr, one per line, as \
        FILE:LINE: byte OFFSET: KIND: MESSAGE (a warning's message starts with `warning: `; \
        with --json, one JSON object per line); `--out DIR` names a directory and \
        `-o FILE` (--output) a file; text from the input is escaped before it is printed.",
    after_help = "Exit status: 0 clean, 1 problems found in the input (each reported on stderr), \
                  2 usage error, an input that cannot be read or an output that cannot be \
                  written; axt exec exits with its agent's code when that is not 0. A closed \
                  stdout ends a command quietly with 0."
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
    Proxy(proxy::Args),
    Check(check::Args),
    Ls(ls::Args),
    Show(show::Args),
    Tree(tree::Args),
    Stats(stats::Args),
    Import(import::Args),
    Usage(usage::Args),
    Export(export::Args),
    View(view::Args),
    Completions(manual::CompletionsArgs),
    Man(manual::ManArgs),
}

/// Runs the command line on `args` (the program name first, as `std::env::args_os` gives
/// them) and returns the exit status: 0 clean, 1 problems found in the input, 2 a usage
/// error or an input or output that failed; `axt exec` its agent's when not 0. Prints to the
/// process's stdout and stderr.
pub fn run(args: impl IntoIterator<Item = OsString>) -> u8 {
    let args: Vec<OsString> = args.into_iter().collect();
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
            return u8::try_from(error.exit_code()).unwrap_or(2);
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
        Command::Proxy(args) => proxy::run(args),
        Command::Check(args) => check::run(args),
        Command::Ls(args) => ls::run(args),
        Command::Show(args) => show::run(args),
        Command::Tree(args) => tree::run(args),
        Command::Stats(args) => stats::run(args),
        Command::Import(args) => import::run(args),
        Command::Usage(args) => usage::run(args),
        Command::Export(args) => export::run(args),
        Command::View(args) => view::run(args),
        Command::Completions(args) => manual::completions(args, Cli::command()),
        Command::Man(args) => manual::man(args, Cli::command()),
    };
    match outcome {
        Ok(Outcome::Clean) => 0,
        Ok(Outcome::InputProblems) => 1,
        Ok(Outcome::Exited(code)) => code,
        Ok(Outcome::Failed) => 2,
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => 0,
        Err(error) => {
            report_error(&error);
            2
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
