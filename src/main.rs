//! The `axt` binary: the command line (`axt::cli`, behind the `cli` feature) on this
//! process's arguments.

// The binary records, captures, imports and exports, which need Unix (see Cargo.toml);
// say so once instead of failing on the first missing module.
#[cfg(not(unix))]
compile_error!(
    "the axt binary needs Unix; off Unix build the library alone: --no-default-features --lib"
);

/// jemalloc, not the system's malloc: Cargo.toml's `jemalloc` feature says why. The binary's
/// choice alone; the library leaves the allocator to whoever embeds it.
#[cfg(feature = "jemalloc")]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(axt::cli::run(std::env::args_os()))
}
