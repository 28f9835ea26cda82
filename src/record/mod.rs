//! Recording a run: the append-only transcript file and its live fan-out.
//!
//! This module owns `seq`, the run files on disk and the live subscribers. It does not
//! decide what an event means (the [`model`](crate::model) does, and its strict encoder
//! refuses anything outside the vocabulary before a byte is written) and it never reads a
//! transcript back except to continue one after a crash.
//!
//! ```no_run
//! use axt::model::{EventType, ExchangeEvent, Payload};
//! use axt::record::{Recorder, RecorderOptions};
//!
//! let rec = Recorder::create("storage/transcripts", "run-abc", RecorderOptions::default())?;
//! rec.record(ExchangeEvent::new("run-abc", EventType::RunStarted, "", Payload::None))?;
//! rec.close()?;
//! # Ok::<(), axt::record::RecordError>(())
//! ```
//!
//! # The file
//!
//! One file per run, `<dir>/<run-id>.jsonl`: UTF-8 JSON Lines, LF-terminated, `seq` from 1
//! increasing by exactly 1 in file order. It is created with mode 0600 (its directory, when
//! the recorder creates it, 0700), opened with `O_APPEND`, and locked with `flock` while a
//! recorder has it open, so a second recorder for the same run fails ([`RecordError::Busy`])
//! instead of numbering from the same `seq`. Opening waits up to half a second for the lock
//! first: a child process being started shares the open file until it executes, so a run
//! closed a moment ago can hold its lock that long on a busy machine.
//!
//! * **One lock, one order.** Allocating `seq`, encoding, appending, syncing and offering
//!   the event to subscribers happen under one mutex, so file order is `seq` order whatever
//!   the number of recording threads, and a subscriber never sees an event that is not in the
//!   file (write, then broadcast).
//! * **One write per line.** A line and its LF go to the kernel in one `write(2)`
//!   (`write_all`, which loops only on a short write; Linux writes regular files whole
//!   except on a full disk or a fatal signal), from one reused buffer. With `O_APPEND` each
//!   write lands at the end of the file, whatever its size: `PIPE_BUF` only matters for
//!   pipes, and the mutex serializes lines of any size. A writer with many events at hand
//!   (an importer) hands them over as a batch ([`Recorder::record_batch`]): their lines go
//!   in one `write(2)`, all or nothing, with consecutive `seq`s and one sync per batch.
//! * **A failed append is undone.** If a write fails part-way, the file is cut back to its
//!   last whole line, so no later line ever continues a fragment (see [Failures](#failures)).
//! * **Crash recovery.** Opening an existing file continues it: `seq` resumes after the last
//!   intact line (a line is intact when it ends with LF; the last one must decode and belong
//!   to this run, or the open fails with [`RecordError::Corrupt`] rather than append to a file
//!   it cannot vouch for). Bytes after the last LF are a line torn by a crash: they are copied
//!   to `<run-id>.jsonl.torn-<offset>` (mode 0600, never overwritten: a second tear at the
//!   same offset gets `.1`, `.2`, ...), synced, and only then cut from the run file, so
//!   nothing is lost and the file is valid JSON Lines again. See [`Recorder::torn_tail`].
//!
//! # Failures
//!
//! What the recorder promises when the disk fails, per failure kind. Each is injected in the
//! crate's tests through the writer's seam (`writer.rs`'s `Storage`; `faults.rs` fails a
//! named file's `write(2)`, `ftruncate(2)` or `fsync(2)` on cue), one test per kind.
//!
//! * **A write fails** (`EIO`, `ENOSPC`, ...) with nothing written, or **after a short
//!   write** (the disk filled mid-line): the bytes that reached the file are cut off again
//!   (`ftruncate` to the last whole line, which the recorder knows exactly since it holds
//!   the lock), [`record`](Recorder::record) returns [`RecordError::Io`] with the path and
//!   the OS error (`ErrorKind::StorageFull` for a full disk), no `seq` is used, and no
//!   subscriber sees the event. The recorder stays open: the next `record` writes as soon as
//!   the disk lets it, numbered right after the last line in the file. Stopping would turn a
//!   full disk, which an operator can fix while the run goes on, into a lost run.
//! * **The cut fails too**: the fragment stays for now, and the recorder remembers it. Every
//!   later `record` first cuts it, and fails (writing nothing, using no `seq`) while the cut
//!   does; [`close`](Recorder::close) tries once more and reports failure. A fragment that
//!   outlives the process is a torn tail, moved aside by the next open. So a failed write
//!   never leaves a partial line that a later line continues.
//! * **A sync fails** under [`Durability::Flush`] or [`Durability::Fsync`]: an error, never
//!   ignored nor retried. The line is taken back (cut off, so `Err` still means "not
//!   recorded", no `seq` used, no subscriber told) and the recorder stops: every later
//!   `record` fails with [`RecordError::Failed`], and the subscriptions end. After a failed
//!   `fsync` Linux may have dropped the dirty pages and cleared the error, so a later
//!   `fsync` that succeeds says nothing about them ("fsyncgate", PostgreSQL 2018): a
//!   recorder that went on would claim a durability it cannot know. Every earlier line was
//!   synced by its own successful call, so a new recorder on the run continues from there
//!   honestly. If even the cut fails, the line stays with its `seq`
//!   ([`Recorder::last_seq`] counts it), but not necessarily whole: after a real writeback
//!   error the kernel may have dropped the pages it could not write, and the line (its LF
//!   too, when on the same page) then reads back as NUL bytes. A reader reports it where it
//!   is; the next open moves it aside as a torn tail when its LF is gone, and refuses the
//!   file ([`RecordError::Corrupt`]) when a NUL line ends with an LF, rather than vouch for
//!   it. Nothing after it is ever written by this recorder.
//! * **The sync at close fails** under [`Durability::FsyncOnClose`]: `close` returns the
//!   error; the lines stay in the file, but their durability is unknown.
//! * **The file is removed while it is written** (it, or its directory: `rm -rf` of the run
//!   directory mid-run): every write still succeeds, into a file nobody can open again.
//!   [`close`](Recorder::close) notices (the open file has no name left) and writes the
//!   lines back to the path, making the directory again, then returns
//!   [`RecordError::Removed`] saying so (or why it could not): a run is never "written"
//!   into nothing.
//!
//! The recorder stays usable after a failed write; the [`workflow`](crate::workflow) scopes
//! above it keep every event it refused and write it, in order, once the disk has room
//! (see [when the disk refuses a write](crate::workflow#when-the-disk-refuses-a-write)),
//! using [`Recorder::try_record`], which hands a refused event back.
//!
//! The same holds for the files around the transcript: the raw output of a capture is
//! appended the same way (a failed chunk leaves nothing behind, and is kept to be written
//! again), an export written with
//! `axt export -o` goes to a temporary file that is synced and renamed over the target (a
//! failed write is an error naming the file, and the target is left as it was), and
//! `axt import` writes through this recorder.
//!
//! # Durability
//!
//! A [`Durability`] policy says when a line is safe from what. Each event is already one
//! `write(2)` with no user-space buffer, so a line is in the kernel when
//! [`Recorder::record`] returns, under every policy.
//!
//! | policy | per event | at close | a returned `record` survives | cost (figures below) |
//! |---|---|---|---|---|
//! | [`None`](Durability::None) (default) | `write(2)` | nothing | a crash or kill of the process | none |
//! | [`Flush`](Durability::Flush) | `write(2)` + `fdatasync(2)` | nothing | power loss, OS crash | one disk flush per event |
//! | [`Fsync`](Durability::Fsync) | `write(2)` + `fsync(2)` | nothing | power loss, OS crash (metadata too) | one disk flush per event |
//! | [`FsyncOnClose`](Durability::FsyncOnClose) | `write(2)` | `fsync(2)` | a process crash; after `close` returns, power loss | one flush per run |
//!
//! Every policy but `None` also syncs the directory when it creates the file, so the file's
//! name survives a power loss with its lines. After a power loss under `None` (or before
//! `close` under `FsyncOnClose`), recent lines may be missing and the tail may be torn or
//! zero-filled: the next open moves such a tail aside, and the file stays consistent.
//!
//! The default is `None` because the threat the transcript must survive first is the
//! executor dying (killed, crashed), which the page cache survives, and because a disk flush
//! per event costs two to four orders of magnitude more than the write. Measured with
//! `make bench` (`benches/recorder.rs`: release build, one thread, 282-byte lines, events
//! built before timing, create to close, medians of 9 repetitions interleaved with a raw
//! `write(2)` loop of the same bytes on an `O_APPEND` file; 2-CPU VM, ext4 on a virtual disk):
//!
//! | policy | events | events/s | MB/s | µs/event | vs. the raw loop |
//! |---|---|---|---|---|---|
//! | raw `write(2)` loop | 200,000 | 3,721 k | 1,051 | 0.27 | 100% |
//! | **`None` (default)** | 200,000 | **2,497 k** | 705 | 0.40 | 67% |
//! | `None`, caller builds each event in the loop | 200,000 | 1,861 k | 526 | 0.54 | 50% |
//! | `FsyncOnClose` (one 56 MB fsync included) | 200,000 | 1,980 k | 559 | 0.50 | 53% |
//! | `Flush` | 1,000 | 36.5 k | 10.2 | 27.4 | 1% |
//! | `Fsync` | 1,000 | 36.7 k | 10.3 | 27.3 | 1% |
//!
//! So the default costs about 0.13 µs per event on top of the `write(2)` itself: the lock,
//! the strict encode (written directly, not through serde: `model/write.rs`), and freeing
//! the event the caller handed over. The bench takes that apart in each run (CPU time of
//! its one thread, medians of six runs at load 6-12, per event): the raw loop 0.50-0.54 µs;
//! freeing an event built earlier adds 0.12 (0.09-0.15), encoding it 0.13 (0.10-0.23), and
//! the recorder's own code (locks, fan-out, bookkeeping) 0.05 (0.02-0.19). A caller that
//! keeps its events ([`Recorder::record_ref`], which writes an event where it is; the
//! [`workflow`](crate::workflow) scopes fill one event again for each) does not pay the
//! freeing: the bench's `None, by reference` row, 74-85% of the raw loop by CPU time where
//! the same runs' `None` row was 72-77% (six runs at load 8-17). Freeing sets `None`'s
//! ceiling: the raw loop that only frees the events (`raw + freeing the event`) is at 83-90%
//! of the raw loop by CPU time (eight runs at load 5-10), so `None` at 80% would leave the
//! encode and the recorder's own code 2-5% of a `write(2)`; per event they are now about
//! 900 and 430 instructions, the freeing 670 (callgrind; the kernel's `write(2)` is about
//! three quarters of the row's CPU time). Opening and
//! locking the raw loop's file as the recorder opens its own changes nothing (98% of the
//! plain `O_APPEND` loop in one run). The raw loop itself ranged from 2.4 to 3.7 M lines/s
//! between runs on this VM (a `dd bs=279 oflag=append` ceiling measured 2.1 M/s), `None`
//! from 50% to 67% of it, and one disk flush from 3 ms down to 27 µs depending on the virtual
//! disk's cache: measure the sync policies on the disk you will use (`AXT_BENCH_DIR`).
//!
//! # Live fan-out
//!
//! [`Recorder::subscribe`] returns a [`Subscription`] with a bounded buffer (256 events by
//! default, [`RecorderOptions::subscriber_capacity`]). The writer only ever tries to enqueue,
//! and only once per event whatever the number of subscribers: into the queue of the
//! fan-out's own thread (started with the first subscriber), which offers it to each
//! subscriber. When a buffer is full the *newest* event is dropped for that subscriber
//! (drop-newest), so a slow, stuck, closed or dropped subscriber never blocks a write, and a
//! hundred waiting subscribers cost the writer what one does. A subscriber receives, in
//! `seq` order, every event that found room, and for every run of events that did not a
//! [`Delivery::Missed`] `{ from_seq, count }` in its place, so it can read exactly those
//! lines back from the file and lose nothing. Drops are counted per subscriber and in total
//! ([`Recorder::stats`]) and reported through `tracing` at WARN, at most once per second per
//! subscriber (plus once when it goes away with drops unreported), to the `tracing`
//! subscriber of the thread that subscribed first.
//!
//! # Threat model
//!
//! * **Transcripts hold secrets.** Prompts, system prompts, tool inputs and outputs are
//!   recorded verbatim; they routinely contain credentials. Every file axt writes (the
//!   transcript, the raw output `<run-id>.raw`, torn-tail sidecars, exports with `-o`,
//!   import outputs) is 0600, and directories it creates are 0700, so only the executor's
//!   user can read them. An existing directory's mode is left as it is.
//! * **No file through a symbolic link.** Files are created with `O_EXCL | O_NOFOLLOW`, and
//!   a transcript is reopened with `O_NOFOLLOW`: a link planted at a run's name (pointing at
//!   `~/.bashrc`, say) makes the open fail rather than send the transcript where it points.
//!   An export replaces its target by `rename(2)`, and refuses a link at the path.
//! * **Nothing planted at a run's path is used as it is.** A transcript is reopened with
//!   `O_NOFOLLOW | O_NONBLOCK | O_NOCTTY` and checked on the open file before anything is
//!   written: it must be a regular file (a FIFO would hand the transcript to whoever reads
//!   it, or hang the writer; a device node would swallow the run:
//!   [`RecordError::NotARegularFile`]) owned by the process's user
//!   ([`RecordError::NotOwned`]), and its mode is made 0600 (an empty world-readable file
//!   planted in a shared directory would otherwise keep its mode). Every other file a run
//!   writes (the raw output, torn-tail sidecars, an export's temporary file) is only ever
//!   created new, with `O_EXCL`, so nothing planted can be reused.
//! * **Replacing a run takes its lock.** A run is refused or replaced
//!   ([`RecorderOptions::if_exists`]: `axt normalize --out --replace`, `axt import
//!   --replace`) by the recorder that holds its lock, which puts a new file (made beside
//!   it, locked, renamed over it) in its place rather than remove it: a run another
//!   recorder is writing is never replaced ([`RecordError::Busy`]), a recorder that opened
//!   the old file and waited for its lock meanwhile opens the new one, and a file axt
//!   writes is written only under its lock.
//! * **No masking by default.** An opt-in hook ([`RecorderOptions::mask`]) runs on every
//!   event before it is encoded; [`RecorderOptions::redact_credentials`] plugs in
//!   [`Redactor::credentials`], which replaces common credential formats with
//!   `[REDACTED:<kind>]`. The raw output a capture keeps is masked too ([`RawMask`]: the
//!   caller's [`RecorderOptions::mask_raw`] a line at a time, or with `redact_credentials`
//!   the redactor across the pieces of a streamed message and through JSON escapes, see
//!   [`RawMasker`]); `redact_credentials` sets both, and a capture whose events are masked
//!   but whose raw output would not be refuses to keep it. `axt exec --redact` and `axt
//!   export --redact` use it. What `--redact` promises, and what not, is in the [model's
//!   threat model](crate::model#threat-model).
//! * **Run ids become file names.** Empty ids, `.`, `..`, path separators, NUL and control
//!   characters are refused ([`RecordError::InvalidRunId`]), so a run id cannot name a file
//!   outside the run directory.
//! * **Atomic append.** A reader never sees two lines interleaved; after a crash it may see a
//!   torn final line, which the next recorder to open the file moves aside.
//! * **The lock is advisory.** It keeps axt's writers apart (recorders, replacing, the
//!   in-memory recorder's `write_to`); a process that ignores it can still write to the
//!   file.
//!
//! # Versioning rules
//!
//! What is on disk, and what a change to the recorder may and may not do so that a file it
//! writes stays readable by older readers (and a file older recorders wrote stays
//! continuable).
//!
//! * **Layout.** A run directory holds, per run, `<run-id>.jsonl` (the transcript, mode
//!   0600), zero or more `<run-id>.jsonl.torn-<offset>` sidecars (a tail torn by a crash,
//!   moved aside on reopen; `.1`, `.2`, ... when one already exists at that offset), and,
//!   for a run recorded by [`capture`](crate::capture), `<run-id>.raw` (the provider's
//!   bytes, not events; masked when the recorder masks; `<run-id>.raw.jsonl` before 0.1,
//!   which readers walking a directory skip beside its transcript: the names are
//!   [`model::files`](crate::model::files)'). A sub-run is a run of its own, in its own
//!   file, linked by
//!   `parent_run_id` and `child_run_id`; how its id is derived is its writer's business
//!   (the importer names Claude Code sub-agents `<session-id>.agent-<id>`).
//! * **Lines are append-only.** A recorder never rewrites, reorders or renumbers a line once
//!   written: `seq` runs from 1 by exactly 1 in file order, and a reopened file continues
//!   after its last intact line. Only a torn tail (bytes after the last LF) is ever cut, and
//!   only after it is copied to its sidecar.
//! * **One run per file.** A file holds the events of one `run_id`; a recorder refuses to
//!   continue a file whose last line belongs to another run.
//! * **A change may** add optional fields and new values as the [model's rules
//!   allow](crate::model#versioning-and-forward-compatibility), add durability policies, and
//!   add sidecars named `<run-id>.jsonl.<suffix>` (after `.jsonl`, so nothing that globs
//!   `*.jsonl` takes them for transcripts).
//! * **A change may not** rename the transcript file, change its line format (UTF-8 JSON
//!   Lines, LF-terminated, one event per line, one `write(2)` per line), let `seq` skip or
//!   repeat, write two runs into one file, or reuse a sidecar name (a tear is never
//!   overwritten). Any of these is a format change for the model's schema version bump, not
//!   a recorder change.
//!
//! # The recorder port
//!
//! [`RunRecorder`] is what the [`workflow`](crate::workflow) scopes need of a recorder:
//! record, subscribe, close, make a sub-run's recorder. [`Recorder`] (the file) is the
//! default; [`MemoryRecorder`] keeps the same lines in memory ([`MemoryStore`]), so an
//! executor can unit-test its instrumentation without files and then, if it likes, write
//! the runs out ([`MemoryStore::write_to`]) for `axt check` and `axt tree`.
//!
//! # Sub-runs
//!
//! A `call_workflow` step runs a child run with its own file: [`Recorder::create_child`]
//! (or [`RecorderOptions::parent_run_id`] across processes) makes a recorder that stamps
//! `parent_run_id` on every event, and the parent records `step.call_workflow.started` and
//! `step.call_workflow.completed` with `child_run_id` set.

mod batch;
mod error;
mod fanout;
#[cfg(test)]
pub(crate) mod faults;
mod memory;
mod port;
mod raw_mask;
mod recorder;
mod redact;
mod storage;
mod writer;

pub(crate) use batch::Batch;
pub use error::{RecordError, Unrecorded};
pub use fanout::{
    DEFAULT_SUBSCRIBER_CAPACITY, Delivery, FanOutStats, SubscriberStats, Subscription,
};
pub use memory::{MemoryRecorder, MemoryStore};
pub use port::RunRecorder;
pub use raw_mask::{LineMask, RawMask, RawMasker};
pub(crate) use recorder::report_cuts;
pub use recorder::{Durability, Mask, Recorder, RecorderOptions};
pub use redact::Redactor;
pub(crate) use writer::{Appender, create_private, create_private_dir, private_options};
pub use writer::{IfExists, TornTail};
