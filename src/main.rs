//! The `axt` command line: a thin layer over the library; see `cli/` for the subcommands.

mod cli;

fn main() -> std::process::ExitCode {
    cli::run()
}
