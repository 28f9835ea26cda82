//! `axt completions` and `axt man`: shell completions and manual pages, generated from the
//! same clap definitions as `--help`, so they cannot fall behind the commands.

use std::io::{self, Write};
use std::path::PathBuf;

use super::console::{self, plural};
use super::{Outcome, with_path};

/// Print shell completions for axt on stdout.
///
/// Example (bash): axt completions bash > ~/.local/share/bash-completion/completions/axt
/// Example (zsh): axt completions zsh > ~/.zfunc/_axt
/// Example (fish): axt completions fish > ~/.config/fish/completions/axt.fish
#[derive(clap::Args)]
pub(crate) struct CompletionsArgs {
    /// The shell.
    shell: clap_complete::Shell,
}

/// Print axt's manual page, or write a page per command.
///
/// Without --out the page of axt itself (every command, their options in the pages of
/// their own) goes to stdout: `axt man | man -l -`. With --out DIR, axt.1 and one page per
/// command (axt-normalize.1, axt-import-claude-code.1, ...) are written to DIR, for
/// `MANPATH` or a package.
#[derive(clap::Args)]
pub(crate) struct ManArgs {
    /// Write every page to DIR (created when missing) instead of axt.1 to stdout.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// Prints the completion script of `command` (the whole CLI's, from the dispatcher).
pub(crate) fn completions(
    args: CompletionsArgs,
    mut command: clap::Command,
) -> io::Result<Outcome> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "axt", &mut script);
    let mut out = io::stdout().lock();
    out.write_all(&script)?;
    out.flush()?;
    Ok(Outcome::Clean)
}

/// Writes the manual pages of `command` (the whole CLI's, from the dispatcher).
pub(crate) fn man(args: ManArgs, command: clap::Command) -> io::Result<Outcome> {
    // `axt help` gets no page of its own (generate_to skips it), so the list of commands
    // must not point at one either.
    let command = command.disable_help_subcommand(true);
    match args.out {
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(command).render(&mut page)?;
            let mut out = io::stdout().lock();
            out.write_all(&page)?;
            out.flush()?;
        }
        Some(dir) => {
            std::fs::create_dir_all(&dir).map_err(|e| with_path(&dir, e))?;
            clap_mangen::generate_to(command, &dir).map_err(|e| with_path(&dir, e))?;
            let pages = std::fs::read_dir(&dir)
                .map_err(|e| with_path(&dir, e))?
                .filter(|entry| {
                    entry
                        .as_ref()
                        .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "1"))
                })
                .count();
            console::notice(&format!(
                "wrote {} to {}",
                plural(pages as u64, "manual page"),
                dir.display()
            ));
        }
    }
    Ok(Outcome::Clean)
}
