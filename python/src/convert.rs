//! Between JSON and Python objects, through Python's own `json` module: what Python gives
//! is serialized the way `json.dumps` would (so its errors are Python's `TypeError` and
//! `ValueError`), and what axt gives is read by `json.loads`, which keeps the canonical
//! key order of an event.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyBytes;
use serde_json::Value;

static LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static DUMPS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn loads(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    LOADS.import(py, "json", "loads")
}

fn dumps(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    DUMPS.import(py, "json", "dumps")
}

/// A JSON text (bytes) as a Python object.
pub(crate) fn from_json<'py>(py: Python<'py>, text: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    loads(py)?.call1((PyBytes::new(py, text),))
}

/// Anything serializable as a Python object (through its JSON).
pub(crate) fn serialize<'py>(
    py: Python<'py>,
    value: &impl serde::Serialize,
) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_vec(value).map_err(crate::errors::record_error)?;
    from_json(py, &text)
}

/// A Python object (None, bool, int, float, str, list, tuple, dict with str keys, or
/// anything `json.dumps` takes) as a JSON value.
pub(crate) fn to_value(object: &Bound<'_, PyAny>) -> PyResult<Value> {
    if object.is_none() {
        return Ok(Value::Null);
    }
    let py = object.py();
    let text: String = dumps(py)?
        .call((object,), Some(&[("allow_nan", false)].into_py_dict(py)?))?
        .extract()?;
    serde_json::from_str(&text)
        .map_err(|error| pyo3::exceptions::PyValueError::new_err(error.to_string()))
}

/// Canonical JSONL (one event a line, each ending with LF) as a list of dicts: the lines
/// joined into one JSON array, read by one `json.loads`.
pub(crate) fn events<'py>(py: Python<'py>, jsonl: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    let body = jsonl.strip_suffix(b"\n").unwrap_or(jsonl);
    let mut array = Vec::with_capacity(body.len() + 2);
    array.push(b'[');
    // An encoded event never holds a raw LF (JSON escapes it in strings), so every LF is
    // a line end.
    array.extend(body.iter().map(|b| if *b == b'\n' { b',' } else { *b }));
    array.push(b']');
    from_json(py, &array)
}

use pyo3::types::IntoPyDict;
