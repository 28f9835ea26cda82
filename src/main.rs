//! The `axt` binary: the command line (`axt::cli`, behind the `cli` feature) on this
//! process's arguments.

// The binary records, captures, imports and exports, which need Unix (see Cargo.toml);
// say so once instead of failing on the first missing module.
#[cfg(not(unix))]
compile_error!(
    "the axt binary needs Unix; off Unix build the library alone: --no-default-features --lib"
);

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(axt::cli::run(std::env::args_os()))
}
