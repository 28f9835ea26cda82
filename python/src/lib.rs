//! `axt._axt`: the native module of the `axt` Python package.
//!
//! A thin layer over the crate: each function and class here converts Python arguments,
//! releases the GIL around the crate's work (normalizing, reading, writing), and maps the
//! crate's errors onto the exception hierarchy of [`errors`]. What a result holds is made by
//! the crate itself (the same transcriber as `axt normalize`, the same report builders as
//! the command line's `--json`), so the two never drift apart.
//!
//! Nothing here may panic on any input: a panic would reach Python as a `PanicException`.

mod cli;
mod convert;
mod errors;
mod events;
mod normalize;
mod read;
mod workflow;

use pyo3::prelude::*;

#[pymodule]
fn _axt(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The crate's provider registry, so that Python never lists the providers by hand.
    let providers: Vec<&str> = axt::model::Provider::ALL
        .map(axt::model::Provider::as_str)
        .into();
    module.add(
        "PROVIDERS",
        pyo3::types::PyTuple::new(module.py(), providers)?,
    )?;
    errors::register(module)?;
    module.add_function(wrap_pyfunction!(normalize::normalize, module)?)?;
    module.add_class::<normalize::Normalizer>()?;
    module.add_class::<normalize::Normalized>()?;
    module.add_class::<events::Events>()?;
    module.add_class::<normalize::Diagnostic>()?;
    module.add_class::<workflow::Run>()?;
    module.add_class::<workflow::Step>()?;
    module.add_class::<workflow::AgentStep>()?;
    module.add_class::<workflow::ToolCall>()?;
    module.add_class::<workflow::Subscription>()?;
    module.add_class::<read::TranscriptReader>()?;
    module.add_function(wrap_pyfunction!(read::read, module)?)?;
    module.add_function(wrap_pyfunction!(read::tree, module)?)?;
    module.add_function(wrap_pyfunction!(read::stats, module)?)?;
    module.add_function(wrap_pyfunction!(read::export, module)?)?;
    module.add_function(wrap_pyfunction!(cli::run_cli, module)?)?;
    Ok(())
}
