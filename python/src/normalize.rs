//! `axt.normalize` and `axt.Normalizer`: provider output in, the canonical transcript out,
//! exactly as `axt normalize` writes it (a [`Transcriber`] into a [`JsonlSink`], the same
//! two pieces the command line joins).

use std::io;
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axt::Timestamp;
use axt::normalize::{
    DEFAULT_MAX_RECORD_BYTES, Detection, Diagnostic as AxtDiagnostic, Options, Provider, RunMeta,
    detect_head,
};
use axt::transcribe::{EventOptions, JsonlSink, Transcriber};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyString};

use crate::events::Events;

use crate::convert;
use crate::errors::{InputError, input_error};

/// A problem in an input, at its line and byte offset: a diagnostic of `normalize`, or a
/// problem `read`, `tree`, `stats` and `export` found in a transcript (those name their
/// `file`).
#[pyclass(module = "axt", name = "Diagnostic", frozen, eq, get_all)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Diagnostic {
    /// The file, for a problem found reading transcripts; None for `normalize`'s.
    pub(crate) file: Option<String>,
    /// 1-based line.
    pub(crate) line: u64,
    /// Byte offset in the input.
    pub(crate) offset: u64,
    /// The kind, kebab-case (`invalid-json`, `seq-gap`, ...).
    pub(crate) kind: String,
    /// `error` or `warning`.
    pub(crate) severity: String,
    /// What was wrong, for a person.
    pub(crate) message: String,
}

#[pymethods]
impl Diagnostic {
    fn __repr__(&self) -> String {
        let file = self
            .file
            .as_deref()
            .map(|f| format!("file={f:?}, "))
            .unwrap_or_default();
        format!(
            "Diagnostic({file}line={}, offset={}, kind={:?}, severity={:?}, message={:?})",
            self.line, self.offset, self.kind, self.severity, self.message
        )
    }

    fn __str__(&self) -> String {
        let file = self
            .file
            .as_deref()
            .map(|f| format!("{f}:"))
            .unwrap_or_default();
        let warning = if self.severity == "warning" {
            "warning: "
        } else {
            ""
        };
        format!(
            "{file}{}: byte {}: {}: {warning}{}",
            self.line, self.offset, self.kind, self.message
        )
    }

    /// The problem as the command line's `--json` prints it on stderr (`file` only when
    /// there is one).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        if let Some(file) = &self.file {
            dict.set_item("file", file)?;
        }
        dict.set_item("line", self.line)?;
        dict.set_item("offset", self.offset)?;
        dict.set_item("kind", &self.kind)?;
        dict.set_item("severity", &self.severity)?;
        dict.set_item("message", &self.message)?;
        Ok(dict)
    }
}

impl From<AxtDiagnostic> for Diagnostic {
    fn from(diagnostic: AxtDiagnostic) -> Self {
        let severity = match diagnostic.severity() {
            axt::normalize::Severity::Error => "error",
            axt::normalize::Severity::Warning => "warning",
        };
        Diagnostic {
            file: None,
            line: diagnostic.line,
            offset: diagnostic.offset,
            kind: diagnostic.kind.as_str().to_owned(),
            severity: severity.to_owned(),
            message: diagnostic.message,
        }
    }
}

type OnDiagnostic = Box<dyn FnMut(AxtDiagnostic) -> io::Result<()> + Send>;

/// A transcriber writing canonical JSONL into memory, seq from 1, as `axt normalize` does
/// on stdout; diagnostics collected. The JSONL stays in the sink's buffer until taken: a
/// whole input is written into one buffer, sized from the input up front, and handed over
/// at the end, never copied chunk by chunk into another.
struct Transcript {
    provider: Provider,
    transcriber: Transcriber,
    sink: JsonlSink<Vec<u8>, OnDiagnostic>,
    diagnostics: Receiver<AxtDiagnostic>,
}

impl Transcript {
    /// `capacity`: the bytes of JSONL expected (the input's length for a whole input, 0
    /// for a stream), reserved if memory allows, so the buffer does not grow by copies.
    fn new(provider: Provider, settings: &Settings, capacity: usize) -> Transcript {
        let (send, diagnostics) = mpsc::channel();
        let on_diagnostic: OnDiagnostic = Box::new(move |diagnostic| {
            // The receiver lives as long as the sink: a send cannot fail.
            let _ = send.send(diagnostic);
            Ok(())
        });
        let clock: axt::transcribe::Clock = match settings.clock.clone() {
            Some(time) => Box::new(move || time.clone()),
            None => Box::new(Timestamp::now),
        };
        let events = EventOptions {
            run_id: settings.run_id.clone(),
            clock,
        };
        let options = Options {
            max_record_bytes: settings.max_record_bytes,
        };
        Transcript {
            provider,
            transcriber: Transcriber::new(provider, options, events),
            sink: JsonlSink::new(reserved(capacity), on_diagnostic),
            diagnostics,
        }
    }

    /// Pushes `bytes`; the JSONL they completed joins the buffer.
    fn push(&mut self, bytes: &[u8]) -> PyResult<()> {
        self.transcriber
            .push(bytes, &mut self.sink)
            .map_err(written)
    }

    /// Ends the input; the JSONL it completed joins the buffer.
    fn finish(&mut self) -> PyResult<()> {
        self.transcriber.finish(&mut self.sink).map_err(written)
    }

    /// The JSONL written since the last take.
    fn take(&mut self) -> Vec<u8> {
        std::mem::take(self.sink.get_mut())
    }

    fn diagnostics(&self) -> impl Iterator<Item = Diagnostic> + '_ {
        self.diagnostics.try_iter().map(Diagnostic::from)
    }
}

/// An empty buffer with room for `capacity` bytes when memory allows (a hint: the
/// buffer grows as any would past it, and a failed reservation is no error).
fn reserved(capacity: usize) -> Vec<u8> {
    let mut buffer = Vec::new();
    let _ = buffer.try_reserve_exact(capacity);
    buffer
}

/// Writing to memory cannot fail; an event axt cannot encode is a bug in axt.
fn written(error: io::Error) -> PyErr {
    crate::errors::Error::new_err(error.to_string())
}

/// What the caller chose: the provider (None for auto-detection), run id, clock, limit.
#[derive(Clone)]
struct Settings {
    provider: Option<Provider>,
    run_id: Option<String>,
    clock: Option<Timestamp>,
    max_record_bytes: usize,
}

impl Settings {
    fn new(
        provider: &str,
        run_id: Option<String>,
        clock: Option<&str>,
        max_record_bytes: usize,
    ) -> PyResult<Settings> {
        let provider = match provider {
            "auto" => None,
            name => Some(provider_named(name)?),
        };
        let clock = match clock {
            None | Some("now") => None,
            Some(text) => {
                let time = text.strip_prefix("fixed:").ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "clock {text:?} is neither \"now\" nor \"fixed:<RFC 3339 time>\""
                    ))
                })?;
                Some(
                    Timestamp::parse(time)
                        .map_err(|error| PyValueError::new_err(error.to_string()))?,
                )
            }
        };
        if max_record_bytes == 0 {
            return Err(PyValueError::new_err("max_record_bytes must be positive"));
        }
        Ok(Settings {
            provider,
            run_id,
            clock,
            max_record_bytes,
        })
    }
}

/// A provider by its name ([`Provider::ALL`]'s, read by the crate's one parser of them).
pub(crate) fn provider_named(name: &str) -> PyResult<Provider> {
    name.parse().map_err(|_| {
        PyValueError::new_err(format!(
            "unknown provider {name:?}: one of auto, {}",
            Provider::names(", ")
        ))
    })
}

/// Why auto-detection gave up, as the command line says it.
fn undetected(detection: Detection) -> Option<PyErr> {
    let seen = match detection {
        Detection::Found(_) | Detection::NeedMore => return None,
        Detection::Empty => "the input is empty",
        Detection::RecordTooLong => "its first record is longer than max_record_bytes",
        Detection::Undetected(why) => why,
    };
    let names: Vec<&str> = Provider::ALL.iter().map(|p| p.as_str()).collect();
    Some(InputError::new_err(format!(
        "cannot detect the provider ({seen}); pass provider= ({})",
        names.join("|")
    )))
}

/// The result of [`normalize`]: the transcript, its diagnostics and the run's metadata.
#[pyclass(module = "axt", name = "Normalized", frozen)]
pub(crate) struct Normalized {
    provider: Provider,
    /// Shared with `.events`, never copied: `Arc<[u8]>` would copy the whole buffer.
    jsonl: Arc<Vec<u8>>,
    diagnostics: Vec<Diagnostic>,
    meta: RunMeta,
    events: PyOnceLock<Py<Events>>,
}

#[pymethods]
impl Normalized {
    /// The provider whose output it was (detected, or as given).
    #[getter]
    fn provider(&self) -> &'static str {
        self.provider.as_str()
    }

    /// The transcript's events, each exactly its canonical JSON line as a dict (`seq` from
    /// 1): a sequence that makes each dict from its line when it is first asked for
    /// ([`Events`]), the same sequence after that.
    #[getter]
    fn events(&self, py: Python<'_>) -> PyResult<Py<Events>> {
        self.events
            .get_or_try_init(py, || Py::new(py, Events::new(Arc::clone(&self.jsonl))))
            .map(|events| events.clone_ref(py))
    }

    /// Every problem found in the input, in order: objects with `line`, `offset`, `kind`,
    /// `severity` and `message`.
    #[getter]
    fn diagnostics(&self) -> Vec<Diagnostic> {
        self.diagnostics.clone()
    }

    /// The run's metadata, as its `run.completed` carries it.
    #[getter]
    fn meta<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::serialize(py, &self.meta)
    }

    /// The transcript as bytes: canonical JSONL, exactly what `axt normalize` prints
    /// (timestamps of undated events and a made-up run id aside). No Python object is
    /// made per event.
    fn jsonl<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.jsonl)
    }

    /// Whether no diagnostic is an error (warnings allowed) and the run is whole, as `axt
    /// normalize`'s exit status 0: an input that ended before the run's terminal record (cut
    /// off, or empty) is not ok, though the library reports it as a warning (a live stream
    /// may still go on; a result is made from an input that has ended).
    #[getter]
    fn ok(&self) -> bool {
        self.diagnostics
            .iter()
            .all(|d| d.severity != "error" && d.kind != "missing-terminal")
    }

    fn __repr__(&self) -> String {
        let events = self.jsonl.iter().filter(|b| **b == b'\n').count();
        format!(
            "Normalized(provider={:?}, events={events}, diagnostics={})",
            self.provider.as_str(),
            self.diagnostics.len()
        )
    }
}

/// The input of `normalize`: bytes or str are the provider's output itself, an
/// `os.PathLike` names a file holding it.
enum Input<'a> {
    Bytes(&'a [u8]),
    Text(std::borrow::Cow<'a, str>),
    Owned(Vec<u8>),
    File(PathBuf),
}

fn input<'a>(data: &'a Bound<'_, PyAny>) -> PyResult<Input<'a>> {
    if let Ok(bytes) = data.cast::<PyBytes>() {
        return Ok(Input::Bytes(bytes.as_bytes()));
    }
    if let Ok(text) = data.cast::<PyString>() {
        return Ok(Input::Text(text.to_cow()?));
    }
    if data.hasattr("__fspath__")? {
        return Ok(Input::File(data.extract()?));
    }
    if let Ok(bytes) = data.extract::<Vec<u8>>() {
        // bytearray, memoryview.
        return Ok(Input::Owned(bytes));
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "normalize takes bytes, str or an os.PathLike, not {}",
        data.get_type().name()?
    )))
}

/// Normalizes one agent's whole output. See the stub for the full contract.
#[pyfunction]
#[pyo3(signature = (data, provider = "auto", run_id = None, *, clock = None, max_record_bytes = DEFAULT_MAX_RECORD_BYTES))]
pub(crate) fn normalize(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    provider: &str,
    run_id: Option<String>,
    clock: Option<&str>,
    max_record_bytes: usize,
) -> PyResult<Normalized> {
    let settings = Settings::new(provider, run_id, clock, max_record_bytes)?;
    let input = input(data)?;
    py.detach(move || {
        let bytes: &[u8] = match &input {
            Input::Bytes(bytes) => bytes,
            Input::Text(text) => text.as_bytes(),
            Input::Owned(bytes) => bytes,
            Input::File(path) => return normalize_file(path, settings),
        };
        let provider = match settings.provider {
            Some(provider) => provider,
            None => match detect_head(bytes, true, settings.max_record_bytes) {
                Detection::Found(provider) => provider,
                other => return Err(undetected(other).unwrap_or_else(unreachable_err)),
            },
        };
        let mut transcript = Transcript::new(provider, &settings, bytes.len());
        transcript.push(bytes)?;
        transcript.finish()?;
        let diagnostics = transcript.diagnostics().collect();
        Ok(Normalized {
            provider,
            jsonl: Arc::new(transcript.take()),
            diagnostics,
            meta: transcript.transcriber.meta().clone(),
            events: PyOnceLock::new(),
        })
    })
}

/// A file read in chunks, as `axt normalize` reads it, through what [`Normalizer`] does with
/// pushed bytes (auto-detection included): never held whole. Reading a 53 MB stream whole
/// first made the binding fault in every page of it, a fifth of its time beside the
/// command's (`make bench-python`).
fn normalize_file(path: &std::path::Path, settings: Settings) -> PyResult<Normalized> {
    use std::io::Read;
    let mut file = std::fs::File::open(path).map_err(|error| input_error(path, error))?;
    // The file's length sizes the output (a hint: a pipe or a file still growing says 0).
    let length = file.metadata().map_or(0, |meta| meta.len());
    let mut state = State::new(settings);
    state.capacity = usize::try_from(length).unwrap_or(0);
    let mut chunk = vec![0; FILE_CHUNK];
    loop {
        let read = match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(read) => read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(input_error(path, error)),
        };
        state.write(&chunk[..read])?;
    }
    state.end()?;
    let jsonl = state.take();
    let Some(transcript) = state.transcript else {
        return Err(unreachable_err());
    };
    Ok(Normalized {
        provider: transcript.provider,
        jsonl: Arc::new(jsonl),
        diagnostics: state.diagnostics,
        meta: transcript.transcriber.meta().clone(),
        events: PyOnceLock::new(),
    })
}

/// The bytes `normalize` reads from a file at a time: what `axt normalize` reads at a time.
const FILE_CHUNK: usize = 256 << 10;

fn unreachable_err() -> PyErr {
    crate::errors::Error::new_err("auto-detection asked for more input at its end")
}

/// Incremental normalization: `push` bytes as they arrive (from a `Popen` pipe, chunk by
/// chunk, split anywhere), get the events they completed; `finish` for the rest.
#[pyclass(module = "axt", name = "Normalizer")]
pub(crate) struct Normalizer {
    state: Mutex<State>,
}

struct State {
    settings: Settings,
    /// What auto-detection has read so far, before the provider is known.
    head: Vec<u8>,
    transcript: Option<Transcript>,
    diagnostics: Vec<Diagnostic>,
    finished: bool,
    /// The bytes of JSONL expected, reserved when the transcript is made (0: a stream,
    /// whose output is taken after every push).
    capacity: usize,
}

impl State {
    fn new(settings: Settings) -> State {
        State {
            settings,
            head: Vec::new(),
            transcript: None,
            diagnostics: Vec::new(),
            finished: false,
            capacity: 0,
        }
    }

    /// The transcript, once the provider is known; `at_end` forces a decision.
    fn transcript(&mut self, at_end: bool) -> PyResult<Option<&mut Transcript>> {
        if self.transcript.is_none() {
            let provider = match self.settings.provider {
                Some(provider) => provider,
                None => match detect_head(&self.head, at_end, self.settings.max_record_bytes) {
                    Detection::Found(provider) => provider,
                    Detection::NeedMore => return Ok(None),
                    other => return Err(undetected(other).unwrap_or_else(unreachable_err)),
                },
            };
            self.transcript = Some(Transcript::new(provider, &self.settings, self.capacity));
        }
        Ok(self.transcript.as_mut())
    }

    /// Pushes `bytes`; the JSONL they completed.
    fn push(&mut self, bytes: &[u8]) -> PyResult<Vec<u8>> {
        self.write(bytes)?;
        Ok(self.take())
    }

    /// Ends the input; the JSONL it completed.
    fn finish(&mut self) -> PyResult<Vec<u8>> {
        self.end()?;
        Ok(self.take())
    }

    /// The JSONL written since the last take.
    fn take(&mut self) -> Vec<u8> {
        self.transcript
            .as_mut()
            .map(Transcript::take)
            .unwrap_or_default()
    }

    /// Pushes `bytes`, the JSONL they complete kept until taken.
    fn write(&mut self, bytes: &[u8]) -> PyResult<()> {
        if self.finished {
            return Err(crate::errors::StepError::new_err(
                "the normalizer has finished",
            ));
        }
        let fresh = self.transcript.is_none();
        if fresh {
            self.head.extend_from_slice(bytes);
        }
        let head = match self.transcript(false) {
            Ok(None) => return Ok(()),
            Ok(Some(_)) => std::mem::take(&mut self.head),
            Err(error) => {
                self.finished = true;
                return Err(error);
            }
        };
        let input = if fresh { &head[..] } else { bytes };
        if let Some(transcript) = &mut self.transcript {
            transcript.push(input)?;
        }
        self.collect();
        Ok(())
    }

    /// Ends the input, the JSONL it completes kept until taken.
    fn end(&mut self) -> PyResult<()> {
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        let fresh = self.transcript.is_none();
        self.transcript(true)?;
        let head = std::mem::take(&mut self.head);
        let Some(transcript) = &mut self.transcript else {
            return Err(unreachable_err());
        };
        if fresh {
            transcript.push(&head)?;
        }
        transcript.finish()?;
        self.collect();
        Ok(())
    }

    fn collect(&mut self) {
        if let Some(transcript) = &self.transcript {
            self.diagnostics.extend(transcript.diagnostics());
        }
    }
}

impl Normalizer {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[pymethods]
impl Normalizer {
    #[new]
    #[pyo3(signature = (provider = "auto", run_id = None, *, clock = None, max_record_bytes = DEFAULT_MAX_RECORD_BYTES))]
    fn new(
        provider: &str,
        run_id: Option<String>,
        clock: Option<&str>,
        max_record_bytes: usize,
    ) -> PyResult<Normalizer> {
        let settings = Settings::new(provider, run_id, clock, max_record_bytes)?;
        Ok(Normalizer {
            state: Mutex::new(State::new(settings)),
        })
    }

    /// Feeds the next bytes (split anywhere); returns the events they completed, as dicts.
    fn push<'py>(&self, py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyAny>> {
        let jsonl = py.detach(|| self.lock().push(data))?;
        convert::events(py, &jsonl)
    }

    /// Ends the input; returns the events still open (the run's closing ones included).
    fn finish<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let jsonl = py.detach(|| self.lock().finish())?;
        convert::events(py, &jsonl)
    }

    /// The provider, once known (None while auto-detection is still reading).
    #[getter]
    fn provider(&self) -> Option<&'static str> {
        let state = self.lock();
        match &state.transcript {
            Some(_) => state.settings.provider.map(Provider::as_str).or_else(|| {
                state
                    .transcript
                    .as_ref()
                    .map(|t| t.transcriber.meta().provider.as_str())
            }),
            None => state.settings.provider.map(Provider::as_str),
        }
    }

    /// The run's metadata as the output has told it so far; final after `finish`.
    #[getter]
    fn meta<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let state = self.lock();
        match &state.transcript {
            Some(transcript) => convert::serialize(py, transcript.transcriber.meta()),
            None => Ok(PyDict::new(py).into_any()),
        }
    }

    /// Every diagnostic so far.
    #[getter]
    fn diagnostics(&self) -> Vec<Diagnostic> {
        self.lock().diagnostics.clone()
    }

    /// The run id, once the first event has been made.
    #[getter]
    fn run_id(&self) -> Option<String> {
        let state = self.lock();
        state
            .transcript
            .as_ref()
            .and_then(|t| t.transcriber.run_id().map(str::to_owned))
    }
}
