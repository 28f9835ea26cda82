//! agx's integration tests: one binary, one module per area.

mod bench_stream;
mod cli;
mod fuzz_regressions;
mod model;
