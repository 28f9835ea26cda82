//! The benchmarks' global allocator: the `axt` binary's (Cargo.toml's `jemalloc` feature), so
//! that they measure what ships; every row, the baselines' too, allocates through it.
//!
//! Included with `#[path]` by each bench binary (`normalize.rs`, `read.rs`, `recorder.rs`),
//! not by `measure/`: the integration tests include that, and they (ThreadSanitizer's run
//! among them) keep the system allocator.

#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// The report's line that says so, after its profile line.
pub(crate) const REPORT: &str =
    "allocator: jemalloc, the axt binary's (every row, the baselines too)";
