//! The `axt` command of the wheel: the crate's command line, run in this process.

use std::ffi::OsString;

use pyo3::prelude::*;

/// Runs the `axt` command line on `args` (the program name first) and returns its exit
/// status. The GIL is released while it runs, so the command's own threads and a long
/// `axt exec` hold no Python thread up.
#[pyfunction]
pub(crate) fn run_cli(py: Python<'_>, args: Vec<OsString>) -> u8 {
    py.detach(|| axt::cli::run(args))
}
