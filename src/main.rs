//! The `axt` command line: a thin layer over the library; see `cli/` for the subcommands.

// The binary records, captures, imports and exports, which need Unix (see Cargo.toml);
// say so once instead of failing on the first missing module.
#[cfg(not(unix))]
compile_error!(
    "the axt binary needs Unix; off Unix build the library alone: --no-default-features --lib"
);

mod cli;

fn main() -> std::process::ExitCode {
    cli::run()
}
