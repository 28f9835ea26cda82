//! The exception hierarchy, and how the crate's errors map onto it.
//!
//! `axt.Error` is the base of everything axt raises on purpose; a caller catches one class
//! for "axt could not do it". Below it, one class per kind of cause:
//!
//! * `InputError`: an input cannot be opened or read, or its provider cannot be detected;
//! * `RecordError`: the recorder failed (a file that cannot be written, a busy or corrupt
//!   run file, a run id already recorded, events the disk never took, a closed recorder,
//!   an event the strict writer refuses);
//! * `StepError`: a scope was used out of turn (ended, a step already running at that path
//!   and iteration, an invalid step name, the wrong step kind, a call id used twice).
//!
//! Problems *in* an input are never exceptions: normalizing gives diagnostics, reading
//! gives located problems. Bad arguments are Python's own `ValueError` and `TypeError`.

use pyo3::exceptions::PyException;
use pyo3::prelude::*;

use axt::workflow::RunError;

pyo3::create_exception!(
    axt,
    Error,
    PyException,
    "The base of every exception axt raises."
);
pyo3::create_exception!(
    axt,
    InputError,
    Error,
    "An input cannot be opened or read, or its provider cannot be detected."
);
pyo3::create_exception!(
    axt,
    RecordError,
    Error,
    "The recorder failed: a run file that cannot be written, is busy or corrupt, a closed \
     recorder, or an event the strict writer refuses."
);
pyo3::create_exception!(
    axt,
    StepError,
    Error,
    "A run, step or tool scope was used out of turn: it has ended, a step with that path \
     and iteration is already running, the step name is invalid, the step is of the wrong \
     kind, or a call id is used twice."
);

/// A scope's error as the exception that says what kind of cause it had.
pub(crate) fn run_error(error: RunError) -> PyErr {
    let message = error.to_string();
    match error {
        RunError::Record(_)
        | RunError::Raw { .. }
        | RunError::AlreadyRecorded { .. }
        | RunError::Unwritten { .. } => RecordError::new_err(message),
        RunError::Read(_) => InputError::new_err(message),
        _ => StepError::new_err(message),
    }
}

/// A recorder's error.
pub(crate) fn record_error(error: impl std::fmt::Display) -> PyErr {
    RecordError::new_err(error.to_string())
}

/// An input that cannot be read, named by its path.
pub(crate) fn input_error(path: &std::path::Path, error: impl std::fmt::Display) -> PyErr {
    InputError::new_err(format!("{}: {error}", path.display()))
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("Error", py.get_type::<Error>())?;
    module.add("InputError", py.get_type::<InputError>())?;
    module.add("RecordError", py.get_type::<RecordError>())?;
    module.add("StepError", py.get_type::<StepError>())?;
    Ok(())
}
