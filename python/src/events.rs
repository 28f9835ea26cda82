//! `Normalized.events`: a transcript's events as a read-only sequence of dicts, each made
//! from its canonical JSON line the first time it is asked for (`json.loads` of that line)
//! and the same dict after that, so that asking for `.events` costs no Python object per
//! event, and a program that reads a few events pays for those only.
//!
//! It behaves as the list it stands for: `len`, indexing (negative too), slices (a list),
//! iteration, `in`, `==` with a list (or any sequence of the same dicts) and a list's
//! `repr`; it is registered as a `collections.abc.Sequence`. `list(result.events)` makes the
//! list itself (for `json.dumps`, say).

use std::sync::Arc;

use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PySlice};

use crate::convert;

/// The events of one transcript, made on access.
#[pyclass(module = "axt", name = "Events", frozen, sequence)]
pub(crate) struct Events {
    jsonl: Arc<Vec<u8>>,
    /// Where each event's line starts and ends (without its LF) in `jsonl`.
    lines: Vec<(usize, usize)>,
    /// Each event's dict, once made.
    made: Vec<PyOnceLock<Py<PyAny>>>,
}

impl Events {
    /// The events of canonical JSONL (one event a line, each ending with LF; an encoded
    /// event never holds a raw LF, JSON escapes it in strings).
    pub(crate) fn new(jsonl: Arc<Vec<u8>>) -> Events {
        let mut lines = Vec::new();
        let mut start = 0;
        for (at, byte) in jsonl.iter().enumerate() {
            if *byte == b'\n' {
                lines.push((start, at));
                start = at + 1;
            }
        }
        if start < jsonl.len() {
            lines.push((start, jsonl.len()));
        }
        let made = (0..lines.len()).map(|_| PyOnceLock::new()).collect();
        Events { jsonl, lines, made }
    }

    /// Event `index` (below the length), made if it was not yet.
    fn get(&self, py: Python<'_>, index: usize) -> PyResult<Py<PyAny>> {
        let (start, end) = self.lines[index];
        self.made[index]
            .get_or_try_init(py, || {
                convert::from_json(py, &self.jsonl[start..end]).map(Bound::unbind)
            })
            .map(|event| event.clone_ref(py))
    }

    /// Every event, as a list.
    fn list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let events = (0..self.lines.len())
            .map(|index| self.get(py, index))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, events)
    }
}

#[pymethods]
impl Events {
    fn __len__(&self) -> usize {
        self.lines.len()
    }

    /// An event (negative indexes count from the end), or a list of them for a slice.
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        if let Ok(slice) = key.cast::<PySlice>() {
            let taken = slice.indices(self.lines.len() as isize)?;
            let mut events = Vec::with_capacity(taken.slicelength);
            let mut index = taken.start;
            for _ in 0..taken.slicelength {
                events.push(self.get(py, index as usize)?);
                index += taken.step;
            }
            return Ok(PyList::new(py, events)?.into_any().unbind());
        }
        let index: isize = key
            .extract()
            .map_err(|_| PyTypeError::new_err("event indices must be integers or slices"))?;
        let length = self.lines.len() as isize;
        let at = if index < 0 { index + length } else { index };
        if !(0..length).contains(&at) {
            return Err(PyIndexError::new_err("event index out of range"));
        }
        self.get(py, at as usize)
    }

    fn __iter__(slf: Bound<'_, Self>) -> EventsIter {
        EventsIter {
            events: slf.unbind(),
            next: 0,
        }
    }

    fn __reversed__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let events = self.list(py)?;
        events.reverse()?;
        Ok(events.try_iter()?.into_any().unbind())
    }

    /// Where the first event equal to `value` is (`ValueError` if none is).
    fn index(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<usize> {
        self.list(py)?.index(value)
    }

    /// How many events are equal to `value`.
    fn count(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<usize> {
        self.list(py)?.call_method1("count", (value,))?.extract()
    }

    fn __contains__(&self, py: Python<'_>, item: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.list(py)?.contains(item)
    }

    /// Equal to a list (or any sequence) of the same dicts in the same order, as the list
    /// it stands for is.
    fn __richcmp__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        op: CompareOp,
    ) -> PyResult<Py<PyAny>> {
        let theirs = match other.cast::<Events>() {
            Ok(events) => events.get().list(py)?.into_any(),
            Err(_) if other.cast::<PyList>().is_ok() => other.clone(),
            Err(_) => match other.try_iter() {
                Ok(items) => PyList::new(py, items.collect::<PyResult<Vec<_>>>()?)?.into_any(),
                Err(_) => return Ok(py.NotImplemented()),
            },
        };
        let ours = self.list(py)?;
        match op {
            CompareOp::Eq => Ok(ours
                .eq(&theirs)?
                .into_pyobject(py)?
                .to_owned()
                .into_any()
                .unbind()),
            CompareOp::Ne => Ok(ours
                .ne(&theirs)?
                .into_pyobject(py)?
                .to_owned()
                .into_any()
                .unbind()),
            _ => Ok(py.NotImplemented()),
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(self.list(py)?.repr()?.to_string())
    }
}

/// Iterating over [`Events`], each made as it is reached.
#[pyclass(module = "axt")]
pub(crate) struct EventsIter {
    events: Py<Events>,
    next: usize,
}

#[pymethods]
impl EventsIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let events = self.events.get();
        if self.next >= events.lines.len() {
            return Ok(None);
        }
        self.next += 1;
        events.get(py, self.next - 1).map(Some)
    }
}
