//! Making a planned session's runs: in memory (`convert`), or written through the
//! recorder into a directory (`write_plan`), root first, streaming each run's events
//! from its files into its run file.
//!
//! A run that has a file already is refused, replaced, or updated, as the caller says
//! ([`Mode`]). **Updating** is what a second import of a session does: the run's events
//! are made again from the source and compared, line by line as the recorder would write
//! them, with the file's; the lines that are the same stay as they are, never rewritten,
//! and the file is cut after the last of them (its closing events, when the source grew)
//! and continued with the rest. So a session that only grew gets its new events appended
//! (the reader of a run file that tails it loses nothing), a session that did not change
//! leaves its files untouched, and the result is always byte for byte what a first import
//! of the source as it is now writes: re-importing, from any machine, never writes a
//! second copy of a run. A file that is not the import's own (its first event differs, or
//! it ends in a `run.completed` without an `import` account: `axt normalize` of the same
//! session names its run after the session too) is refused, unless replacing.
//!
//! This room owns those three ways of writing and what each run became; what the events
//! are is `stream`'s, the run file's lock and numbering the recorder's.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

use super::feed::SessionPlan;
use super::session::{ImportError, Imported, ImportedRun, RunChange, Session, WrittenRun};
use super::stream::transcribe;
use crate::model::{ExchangeEvent, decode_event, encode_event};
use crate::record::{Batch, IfExists, RecordError, Recorder, RecorderOptions};

/// What writing a run does to a file the run has already.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Refuse the session ([`ImportError::Exists`]) before anything of it is written.
    Create,
    /// Write the run anew.
    Replace,
    /// Keep the lines that are still right and write the rest (see the module docs); a
    /// file that is not the import's own is refused.
    Update,
}

/// Makes a planned session's runs in memory. Pure: nothing is written.
pub(crate) fn convert(plan: &SessionPlan) -> Result<Session, ImportError> {
    let mut runs = Vec::with_capacity(plan.runs.len());
    let mut diagnostics = Vec::new();
    for (at, run) in plan.runs.iter().enumerate() {
        let mut events = Vec::new();
        diagnostics.extend(transcribe(plan, at, &mut |event| {
            events.push(event);
            Ok(())
        })?);
        runs.push(ImportedRun {
            run_id: run.run_id.clone(),
            parent_run_id: plan.parent_run_id(at).map(str::to_owned),
            source: run.source.clone(),
            events,
        });
    }
    Ok(Session {
        kept_out: plan.kept_out(),
        session_id: plan.session_id.clone(),
        runs,
        notes: plan.notes.clone(),
        diagnostics,
    })
}

/// Writes a planned session's runs into `dir`, root first, streaming: each run's records
/// are read again from the files one by one and their events go straight into the run's
/// file, so memory holds the session's plan, not its content.
pub(crate) fn write_plan(
    plan: &SessionPlan,
    dir: &Path,
    mode: Mode,
) -> Result<Imported, ImportError> {
    if mode == Mode::Create {
        refuse_existing(plan.runs.iter().map(|r| r.run_id.as_str()), dir)?;
    }
    let mut runs = Vec::with_capacity(plan.runs.len());
    let mut diagnostics = Vec::new();
    for (at, run) in plan.runs.iter().enumerate() {
        let parent_run_id = plan.parent_run_id(at).map(str::to_owned);
        let mut options = RecorderOptions::default();
        if let Some(parent) = &parent_run_id {
            options = options.parent_run_id(parent);
        }
        let path = dir.join(format!("{}.jsonl", run.run_id));
        let existed = std::fs::symlink_metadata(&path).is_ok_and(|m| m.len() > 0);
        let recorder = create(dir, &run.run_id, options, mode)?;
        let mut writer = RunWriter::new(&recorder, parent_run_id.clone());
        if mode == Mode::Update && existed {
            writer.compare_with(recorder.path())?;
        }
        let transcribed = transcribe(plan, at, &mut |event| writer.event(event));
        let transcribed = match transcribed {
            Ok(transcribed) => transcribed,
            Err(error) => {
                // What was made before the error is written, as when each event was
                // recorded on its own.
                let _ = writer.flush();
                return Err(error);
            }
        };
        diagnostics.extend(transcribed);
        let change = writer.finish(existed, mode)?;
        recorder.close()?;
        runs.push(WrittenRun {
            run_id: run.run_id.clone(),
            parent_run_id,
            source: run.source.clone(),
            path: recorder.path().to_owned(),
            events: writer.events,
            change,
        });
    }
    Ok(Imported {
        kept_out: plan.kept_out(),
        session_id: plan.session_id.clone(),
        runs,
        notes: plan.notes.clone(),
        diagnostics,
    })
}

/// Writes a converted session's runs into `dir`, root first; returns the files.
pub(crate) fn write_session(
    session: &Session,
    dir: &Path,
    replace: bool,
) -> Result<Vec<PathBuf>, ImportError> {
    let mode = if replace { Mode::Replace } else { Mode::Create };
    if !replace {
        refuse_existing(session.runs.iter().map(|r| r.run_id.as_str()), dir)?;
    }
    let mut written = Vec::new();
    for run in &session.runs {
        let mut options = RecorderOptions::default();
        if let Some(parent) = &run.parent_run_id {
            options = options.parent_run_id(parent);
        }
        let recorder = create(dir, &run.run_id, options, mode)?;
        let mut batch = Batch::default();
        for event in &run.events {
            if batch.push(event.clone()) {
                batch.record(&recorder).map_err(|(error, _)| error)?;
            }
        }
        batch.record(&recorder).map_err(|(error, _)| error)?;
        recorder.close()?;
        written.push(recorder.path().to_owned());
    }
    Ok(written)
}

/// The recorder of one imported run. Nothing is removed by hand: a run is refused
/// (creating), continued (updating) or emptied and written anew (replacing) by its recorder,
/// under the run's lock, so a run another process is recording is never replaced
/// ([`RecordError::Busy`]); [`refuse_existing`] checked first, but a file made since is
/// caught here.
fn create(
    dir: &Path,
    run_id: &str,
    options: RecorderOptions,
    mode: Mode,
) -> Result<Recorder, ImportError> {
    let policy = match mode {
        Mode::Create => IfExists::Refuse,
        Mode::Update => IfExists::Continue,
        Mode::Replace => IfExists::Replace,
    };
    Recorder::create(dir, run_id, options.if_exists(policy)).map_err(|error| match error {
        RecordError::Exists { path } => ImportError::Exists {
            run_id: run_id.to_owned(),
            path,
        },
        error => ImportError::Record(error),
    })
}

/// Refuses the runs' files that exist in `dir`, before any of them is written.
fn refuse_existing<'a>(
    run_ids: impl Iterator<Item = &'a str>,
    dir: &Path,
) -> Result<(), ImportError> {
    for run_id in run_ids {
        let path = dir.join(format!("{run_id}.jsonl"));
        if path.exists() {
            return Err(ImportError::Exists {
                run_id: run_id.to_owned(),
                path,
            });
        }
    }
    Ok(())
}

/// A run's events on their way into its file: compared with the file's lines while they
/// are the same (updating), then recorded, in batches.
struct RunWriter<'a> {
    recorder: &'a Recorder,
    parent_run_id: Option<String>,
    /// The old file's lines still to compare; `None` once recording.
    old: Option<OldLines>,
    /// Events made so far.
    events: usize,
    /// Lines of the old file kept, and where they end.
    kept: u64,
    kept_len: u64,
    /// Lines of the old file cut.
    cut: u64,
    line: Vec<u8>,
    /// Events made and not recorded yet.
    batch: Batch,
}

/// The lines of a run file, read one by one.
struct OldLines {
    path: PathBuf,
    input: BufReader<File>,
    line: Vec<u8>,
}

impl OldLines {
    /// The next whole line, without its LF; `None` at the end (a last line without LF is
    /// no whole line: the recorder moved such a tail aside when it opened the file).
    fn next(&mut self) -> Result<Option<&[u8]>, ImportError> {
        self.line.clear();
        self.input
            .read_until(b'\n', &mut self.line)
            .map_err(|source| ImportError::Io {
                path: self.path.clone(),
                source,
            })?;
        if self.line.pop() != Some(b'\n') {
            return Ok(None);
        }
        Ok(Some(&self.line))
    }

    /// How many whole lines are left.
    fn count_rest(&mut self) -> Result<u64, ImportError> {
        let mut n = 0;
        while self.next()?.is_some() {
            n += 1;
        }
        Ok(n)
    }
}

impl<'a> RunWriter<'a> {
    fn new(recorder: &'a Recorder, parent_run_id: Option<String>) -> Self {
        RunWriter {
            recorder,
            parent_run_id,
            old: None,
            events: 0,
            kept: 0,
            kept_len: 0,
            cut: 0,
            line: Vec::with_capacity(1024),
            batch: Batch::default(),
        }
    }

    /// Compares the events with the lines of the run's file (the recorder holds its lock)
    /// before writing any; refuses a file that is not the import's own.
    fn compare_with(&mut self, path: &Path) -> Result<(), ImportError> {
        let io_error = |source| ImportError::Io {
            path: path.to_owned(),
            source,
        };
        let file = File::open(path).map_err(io_error)?;
        if ends_outside_an_import(&file).map_err(io_error)? {
            return Err(self.not_ours(path));
        }
        self.old = Some(OldLines {
            path: path.to_owned(),
            input: BufReader::with_capacity(256 << 10, file),
            line: Vec::new(),
        });
        Ok(())
    }

    fn not_ours(&self, path: &Path) -> ImportError {
        ImportError::Exists {
            run_id: self.recorder.run_id().to_owned(),
            path: path.to_owned(),
        }
    }

    fn event(&mut self, mut event: ExchangeEvent) -> Result<(), ImportError> {
        self.events += 1;
        if let Some(old) = &mut self.old {
            // Encoded exactly as the recorder would write it as the next line.
            event.seq = self.kept + 1;
            event.run_id = self.recorder.run_id().to_owned();
            event.parent_run_id.clone_from(&self.parent_run_id);
            self.line.clear();
            encode_event(&event, &mut self.line)?;
            match old.next()? {
                Some(line) if line == self.line.as_slice() => {
                    self.kept += 1;
                    self.kept_len += line.len() as u64 + 1;
                    return Ok(());
                }
                Some(_) if self.kept == 0 => {
                    // Its first event is another run's: not the import's own file.
                    let path = old.path.clone();
                    return Err(self.not_ours(&path));
                }
                Some(_) => {
                    self.cut = 1 + old.count_rest()?;
                    self.cut_back()?;
                }
                None => self.cut_back()?,
            }
        }
        if self.batch.push(event) {
            self.flush()?;
        }
        Ok(())
    }

    /// Records the events made and not recorded yet.
    fn flush(&mut self) -> Result<(), ImportError> {
        Ok(self
            .batch
            .record(self.recorder)
            .map_err(|(error, _)| error)?)
    }

    fn cut_back(&mut self) -> Result<(), ImportError> {
        self.old = None;
        self.recorder.cut_back(self.kept, self.kept_len)?;
        Ok(())
    }

    /// Every event was made: lines the old file has beyond them are cut.
    fn finish(&mut self, existed: bool, mode: Mode) -> Result<RunChange, ImportError> {
        self.flush()?;
        if let Some(old) = &mut self.old {
            self.cut = old.count_rest()?;
            if self.cut > 0 {
                self.cut_back()?;
            }
            self.old = None;
        }
        Ok(match (existed, mode) {
            (false, _) => RunChange::Created,
            (true, Mode::Replace) => RunChange::Replaced,
            _ if self.kept as usize == self.events && self.cut == 0 => RunChange::Unchanged,
            _ => RunChange::Updated {
                kept: self.kept as usize,
                cut: self.cut as usize,
            },
        })
    }
}

impl From<crate::model::EncodeError> for ImportError {
    fn from(error: crate::model::EncodeError) -> Self {
        ImportError::Record(RecordError::from(error))
    }
}

/// Whether a run file's last line is a `run.completed` without the import's account: a
/// transcript made otherwise (`axt normalize` names its run after the session too).
fn ends_outside_an_import(file: &File) -> io::Result<bool> {
    use std::os::unix::fs::FileExt;
    let len = file.metadata()?.len();
    // A run.completed line is its metadata: read enough of the tail for the largest.
    let window = len.min(4 << 20);
    let mut tail = vec![0; window as usize];
    file.read_exact_at(&mut tail, len - window)?;
    let body = tail.strip_suffix(b"\n").unwrap_or(&tail);
    let last = match memchr::memrchr(b'\n', body) {
        Some(at) => &body[at + 1..],
        None if window == len => body,
        // A last line longer than the window is no run.completed the import wrote.
        None => return Ok(false),
    };
    Ok(match decode_event(last) {
        Ok(event) if event.event_type == crate::model::EventType::RunCompleted => {
            let crate::model::Payload::Step(step) = &event.payload else {
                return Ok(true);
            };
            step.result.get("import").is_none()
        }
        _ => false,
    })
}
