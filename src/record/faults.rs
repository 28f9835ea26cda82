//! Disk faults on cue, for the crate's own tests: the [`Storage`] that every run file and
//! raw output file goes through under `cfg(test)`.
//!
//! A test names a path and queues faults for it ([`inject`]); the file opened at that path
//! (now or later) takes them one per call of the matching kind, in order, then behaves as
//! the real file again. Paths no test named behave as the real file, so every other test of
//! the crate runs through here unchanged.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use super::storage::Storage;

/// One failure of one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// The next `write(2)` fails with this errno and writes nothing (`EIO`, `ENOSPC`, ...).
    Write(i32),
    /// The next `write(2)` writes only this many bytes and says so (a short write: the disk
    /// filled up mid-line, or a signal arrived).
    Short(usize),
    /// The next `ftruncate(2)` fails with this errno.
    SetLen(i32),
    /// The next `fsync(2)` or `fdatasync(2)` fails with this errno.
    Sync(i32),
}

/// The faults queued for one path.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    faults: Mutex<VecDeque<Fault>>,
}

impl Plan {
    /// The faults not taken yet.
    pub(crate) fn pending(&self) -> usize {
        lock(&self.faults).len()
    }

    /// Takes the first queued fault if `matches` it.
    fn take(&self, matches: impl Fn(&Fault) -> bool) -> Option<Fault> {
        let mut faults = lock(&self.faults);
        match faults.front() {
            Some(fault) if matches(fault) => faults.pop_front(),
            _ => None,
        }
    }
}

static PLANS: LazyLock<Mutex<HashMap<PathBuf, Arc<Plan>>>> = LazyLock::new(Mutex::default);

/// Queues `faults` for the file at `path`, in order; returns its plan.
pub(crate) fn inject(path: &Path, faults: impl IntoIterator<Item = Fault>) -> Arc<Plan> {
    let plan = plan(path);
    lock(&plan.faults).extend(faults);
    plan
}

fn plan(path: &Path) -> Arc<Plan> {
    Arc::clone(lock(&PLANS).entry(path.to_owned()).or_default())
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The real file, failing when its plan says so.
#[derive(Debug)]
pub(crate) struct FaultyFile {
    file: File,
    plan: Arc<Plan>,
}

impl FaultyFile {
    fn fault(&self, matches: impl Fn(&Fault) -> bool) -> Option<Fault> {
        self.plan.take(matches)
    }
}

impl Storage for FaultyFile {
    fn wrap(file: File, path: &Path) -> Self {
        // Every file gets its plan now, so a test may queue faults after the open.
        FaultyFile {
            file,
            plan: plan(path),
        }
    }

    fn file(&self) -> &File {
        &self.file
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let fault = self.fault(|f| matches!(f, Fault::Write(_) | Fault::Short(_)));
        let bytes = match fault {
            Some(Fault::Write(errno)) => return Err(io::Error::from_raw_os_error(errno)),
            Some(Fault::Short(len)) => &bytes[..len.min(bytes.len())],
            _ => bytes,
        };
        io::Write::write(&mut self.file, bytes)
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        match self.fault(|f| matches!(f, Fault::SetLen(_))) {
            Some(Fault::SetLen(errno)) => Err(io::Error::from_raw_os_error(errno)),
            _ => self.file.set_len(len),
        }
    }

    fn sync_data(&self) -> io::Result<()> {
        match self.fault(|f| matches!(f, Fault::Sync(_))) {
            Some(Fault::Sync(errno)) => Err(io::Error::from_raw_os_error(errno)),
            _ => self.file.sync_data(),
        }
    }

    fn sync_all(&self) -> io::Result<()> {
        match self.fault(|f| matches!(f, Fault::Sync(_))) {
            Some(Fault::Sync(errno)) => Err(io::Error::from_raw_os_error(errno)),
            _ => self.file.sync_all(),
        }
    }
}

/// One test per failure kind: what the file holds, what the caller is told, which `seq`
/// comes next, and whether the recorder goes on.
#[cfg(test)]
mod tests {
    use std::fs;
    use std::io::ErrorKind;
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::{Fault, inject};
    use crate::model::{ContentBlock, EventType, ExchangeEvent, Fidelity, Payload, decode_event};
    use crate::model::{MessagePayload, Role};
    use crate::record::{Delivery, Durability, RecordError, Recorder, RecorderOptions};

    const EIO: i32 = libc::EIO;
    const ENOSPC: i32 = libc::ENOSPC;
    const RUN: &str = "run-faults";

    /// A fresh directory, removed when dropped.
    struct Dir(PathBuf);

    impl Dir {
        fn new(name: &str) -> Dir {
            static NEXT: AtomicU64 = AtomicU64::new(0);
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let dir =
                std::env::temp_dir().join(format!("axt-faults-{}-{name}-{n}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            Dir(dir)
        }

        fn run_file(&self) -> PathBuf {
            self.0.join(format!("{RUN}.jsonl"))
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn event(text: &str) -> ExchangeEvent {
        let payload = Payload::Message(MessagePayload {
            role: Role::Assistant,
            blocks: vec![ContentBlock::text(Fidelity::AgentEmitted, text)],
            message_id: None,
        });
        ExchangeEvent::new(RUN, EventType::MessageAssistant, "", payload)
    }

    /// Every line of the file decodes, ends with LF and numbers from 1 by 1; returns the
    /// texts in order.
    fn lines(path: &Path) -> Vec<String> {
        let bytes = fs::read(path).unwrap();
        assert!(
            bytes.is_empty() || bytes.ends_with(b"\n"),
            "the file ends with a fragment: {:?}",
            String::from_utf8_lossy(&bytes)
        );
        let mut texts = Vec::new();
        for (at, line) in bytes
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .enumerate()
        {
            let event = decode_event(line).unwrap_or_else(|e| panic!("line {}: {e}", at + 1));
            assert_eq!(event.seq, at as u64 + 1, "seq in file order");
            let Payload::Message(message) = event.payload else {
                panic!("a message")
            };
            let crate::model::Block::Text { text, .. } = &message.blocks[0].block else {
                panic!("a text block")
            };
            texts.push(text.clone());
        }
        texts
    }

    fn os_error(error: &RecordError) -> Option<i32> {
        match error {
            RecordError::Io { source, .. } => source.raw_os_error(),
            _ => None,
        }
    }

    fn create(dir: &Dir, durability: Durability) -> Recorder {
        let options = RecorderOptions::default().durability(durability);
        Recorder::create(&dir.0, RUN, options).unwrap()
    }

    #[test]
    fn a_failed_write_leaves_nothing_uses_no_seq_and_the_next_record_continues() {
        let dir = Dir::new("eio");
        let rec = create(&dir, Durability::None);
        let mut live = rec.subscribe();
        assert_eq!(rec.record(event("one")).unwrap(), 1);
        let plan = inject(&dir.run_file(), [Fault::Write(EIO)]);
        let error = rec.record(event("lost")).unwrap_err();
        assert_eq!(os_error(&error), Some(EIO));
        assert!(
            error
                .to_string()
                .starts_with(&dir.run_file().display().to_string())
        );
        assert_eq!(plan.pending(), 0);
        assert_eq!(rec.last_seq(), 1, "no seq used");
        assert_eq!(lines(&dir.run_file()), ["one"]);
        assert_eq!(rec.record(event("two")).unwrap(), 2);
        rec.close().unwrap();
        assert_eq!(lines(&dir.run_file()), ["one", "two"]);
        let seen: Vec<u64> = std::iter::from_fn(|| live.recv())
            .map(|delivery| match delivery {
                Delivery::Event(event) => event.seq,
                Delivery::Missed { .. } => panic!("nothing missed"),
            })
            .collect();
        assert_eq!(seen, [1, 2], "a subscriber never sees the failed line");
    }

    #[test]
    fn a_short_write_is_cut_back_so_no_later_line_continues_it() {
        let dir = Dir::new("short");
        let rec = create(&dir, Durability::None);
        rec.record(event("one")).unwrap();
        // 10 bytes of the line reach the file, then the disk fails.
        inject(&dir.run_file(), [Fault::Short(10), Fault::Write(EIO)]);
        let error = rec.record(event("half")).unwrap_err();
        assert_eq!(os_error(&error), Some(EIO));
        assert_eq!(lines(&dir.run_file()), ["one"], "the fragment is gone");
        assert_eq!(rec.record(event("two")).unwrap(), 2);
        assert_eq!(lines(&dir.run_file()), ["one", "two"]);
    }

    #[test]
    fn a_short_write_that_completes_on_retry_is_one_whole_line() {
        let dir = Dir::new("short-ok");
        let rec = create(&dir, Durability::None);
        inject(&dir.run_file(), [Fault::Short(7)]);
        assert_eq!(rec.record(event("one")).unwrap(), 1);
        assert_eq!(lines(&dir.run_file()), ["one"]);
    }

    #[test]
    fn enospc_is_reported_as_storage_full_and_recording_resumes_when_space_returns() {
        let dir = Dir::new("enospc");
        let rec = create(&dir, Durability::None);
        rec.record(event("one")).unwrap();
        // The disk fills mid-line, and stays full for two more attempts.
        inject(
            &dir.run_file(),
            [
                Fault::Short(20),
                Fault::Write(ENOSPC),
                Fault::Write(ENOSPC),
                Fault::Write(ENOSPC),
            ],
        );
        for _ in 0..3 {
            let error = rec.record(event("no room")).unwrap_err();
            let RecordError::Io { source, .. } = &error else {
                panic!("an I/O error: {error}")
            };
            assert_eq!(source.kind(), ErrorKind::StorageFull);
            assert_eq!(rec.last_seq(), 1);
        }
        assert_eq!(lines(&dir.run_file()), ["one"]);
        // Space returns.
        assert_eq!(rec.record(event("two")).unwrap(), 2);
        rec.close().unwrap();
        assert_eq!(lines(&dir.run_file()), ["one", "two"]);
    }

    #[test]
    fn a_fragment_that_cannot_be_cut_is_cut_before_the_next_line_or_that_line_is_refused() {
        let dir = Dir::new("cut");
        let rec = create(&dir, Durability::None);
        rec.record(event("one")).unwrap();
        let one = fs::metadata(dir.run_file()).unwrap().len();
        // A fragment lands, and cutting it off fails: the file ends torn for now.
        inject(
            &dir.run_file(),
            [Fault::Short(12), Fault::Write(ENOSPC), Fault::SetLen(EIO)],
        );
        assert!(rec.record(event("torn")).is_err());
        assert_eq!(fs::metadata(dir.run_file()).unwrap().len(), one + 12);
        // The next record cuts first; while the cut fails, it writes nothing.
        inject(&dir.run_file(), [Fault::SetLen(EIO)]);
        let error = rec.record(event("refused")).unwrap_err();
        assert_eq!(os_error(&error), Some(EIO));
        assert_eq!(fs::metadata(dir.run_file()).unwrap().len(), one + 12);
        assert_eq!(rec.last_seq(), 1);
        // Then the cut works, and the line after it is whole and numbered 2.
        assert_eq!(rec.record(event("two")).unwrap(), 2);
        rec.close().unwrap();
        assert_eq!(lines(&dir.run_file()), ["one", "two"]);
    }

    #[test]
    fn a_fragment_still_there_at_close_is_moved_aside_by_the_next_open() {
        let dir = Dir::new("close-torn");
        let rec = create(&dir, Durability::None);
        rec.record(event("one")).unwrap();
        inject(
            &dir.run_file(),
            [
                Fault::Short(12),
                Fault::Write(EIO),
                Fault::SetLen(EIO),
                Fault::SetLen(EIO),
            ],
        );
        assert!(rec.record(event("torn")).is_err());
        let error = rec.close().unwrap_err();
        assert_eq!(os_error(&error), Some(EIO), "close reports the fragment");
        drop(rec);
        let rec = create(&dir, Durability::None);
        let torn = rec.torn_tail().expect("the fragment is a torn tail");
        assert_eq!(torn.len, 12);
        assert_eq!(rec.record(event("two")).unwrap(), 2);
        assert_eq!(lines(&dir.run_file()), ["one", "two"]);
    }

    #[rstest::rstest]
    #[case::flush(Durability::Flush)]
    #[case::fsync(Durability::Fsync)]
    fn a_failed_fsync_is_an_error_takes_the_line_back_and_stops_the_recorder(
        #[case] durability: Durability,
    ) {
        let dir = Dir::new("fsync");
        let rec = create(&dir, durability);
        let mut live = rec.subscribe();
        assert_eq!(rec.record(event("one")).unwrap(), 1);
        inject(&dir.run_file(), [Fault::Sync(EIO)]);
        let error = rec.record(event("not durable")).unwrap_err();
        assert_eq!(os_error(&error), Some(EIO), "never ignored");
        assert_eq!(rec.last_seq(), 1, "no seq used");
        assert_eq!(lines(&dir.run_file()), ["one"], "the line is taken back");
        // A later sync could succeed over pages the kernel dropped: the recorder does not
        // write again, so it never claims a durability it cannot have.
        let stopped = rec.record(event("later")).unwrap_err();
        assert!(matches!(stopped, RecordError::Failed { .. }), "{stopped}");
        assert!(stopped.to_string().contains("failed sync"));
        assert_eq!(lines(&dir.run_file()), ["one"]);
        // The subscribers end after the last durable line.
        assert!(matches!(live.recv(), Some(Delivery::Event(e)) if e.seq == 1));
        assert!(live.recv().is_none());
        rec.close().unwrap();
    }

    #[test]
    fn after_a_failed_fsync_a_new_recorder_continues_from_the_last_synced_line() {
        let dir = Dir::new("fsync-reopen");
        let rec = create(&dir, Durability::Fsync);
        rec.record(event("one")).unwrap();
        inject(&dir.run_file(), [Fault::Sync(EIO)]);
        assert!(rec.record(event("not durable")).is_err());
        drop(rec);
        let rec = create(&dir, Durability::Fsync);
        assert!(rec.torn_tail().is_none());
        assert_eq!(rec.record(event("two")).unwrap(), 2);
        assert_eq!(lines(&dir.run_file()), ["one", "two"]);
    }

    #[test]
    fn a_failed_fsync_whose_line_cannot_be_taken_back_keeps_it_whole_with_its_seq() {
        let dir = Dir::new("fsync-kept");
        let rec = create(&dir, Durability::Flush);
        rec.record(event("one")).unwrap();
        inject(&dir.run_file(), [Fault::Sync(EIO), Fault::SetLen(EIO)]);
        assert!(rec.record(event("kept")).is_err());
        assert_eq!(rec.last_seq(), 2, "the line is in the file, with its seq");
        assert!(matches!(
            rec.record(event("later")),
            Err(RecordError::Failed { .. })
        ));
        drop(rec);
        let rec = create(&dir, Durability::Flush);
        assert_eq!(rec.record(event("three")).unwrap(), 3);
        assert_eq!(lines(&dir.run_file()), ["one", "kept", "three"]);
    }

    #[test]
    fn a_failed_fsync_at_close_is_an_error_under_fsync_on_close() {
        let dir = Dir::new("fsync-close");
        let rec = create(&dir, Durability::FsyncOnClose);
        rec.record(event("one")).unwrap();
        inject(&dir.run_file(), [Fault::Sync(EIO)]);
        let error = rec.close().unwrap_err();
        assert_eq!(os_error(&error), Some(EIO));
        assert!(matches!(
            rec.record(event("later")),
            Err(RecordError::Closed { .. })
        ));
    }

    /// A batch is one append: its events read back with consecutive seqs after what came
    /// before, and a subscriber gets them after the append, in order.
    #[test]
    fn a_batch_is_written_whole_with_consecutive_seqs_and_its_subscribers_get_it_in_order() {
        let dir = Dir::new("batch");
        let rec = create(&dir, Durability::None);
        let mut live = rec.subscribe();
        assert_eq!(rec.record(event("one")).unwrap(), 1);
        let mut batch = vec![event("two"), event("three"), event("four")];
        batch[1].run_id = String::new();
        assert_eq!(rec.record_batch(&mut batch).unwrap(), 2..5);
        let seqs: Vec<u64> = batch.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [2, 3, 4], "the caller's events keep their seqs");
        assert_eq!(batch[1].run_id, "", "and their own run id");
        assert_eq!(
            rec.record_batch(&mut []).unwrap(),
            5..5,
            "an empty batch uses no seq"
        );
        assert_eq!(rec.record(event("five")).unwrap(), 5);
        rec.close().unwrap();
        assert_eq!(
            lines(&dir.run_file()),
            ["one", "two", "three", "four", "five"]
        );
        let seen: Vec<(u64, String)> = std::iter::from_fn(|| live.recv())
            .map(|delivery| match delivery {
                Delivery::Event(event) => (event.seq, event.run_id.clone()),
                Delivery::Missed { .. } => panic!("nothing missed"),
            })
            .collect();
        let expected: Vec<(u64, String)> = (1..=5).map(|seq| (seq, RUN.to_owned())).collect();
        assert_eq!(seen, expected);
    }

    /// A batch that fails part-way on a full disk, or at once on a failing one, leaves the
    /// file and the seq as they were, and no subscriber sees any of it; the next batch
    /// continues right after the last line.
    #[rstest::rstest]
    #[case::full_disk(vec![Fault::Short(30), Fault::Write(ENOSPC)], libc::ENOSPC)]
    #[case::failing_disk(vec![Fault::Write(EIO)], libc::EIO)]
    fn a_failed_batch_leaves_the_file_and_the_seq_as_they_were(
        #[case] faults: Vec<Fault>,
        #[case] errno: i32,
    ) {
        let dir = Dir::new("batch-fails");
        let rec = create(&dir, Durability::None);
        let mut live = rec.subscribe();
        rec.record(event("one")).unwrap();
        let before = fs::read(dir.run_file()).unwrap();
        inject(&dir.run_file(), faults);
        let mut batch = vec![event("lost"), event("lost too")];
        let error = rec.record_batch(&mut batch).unwrap_err();
        assert_eq!(os_error(&error), Some(errno));
        assert_eq!(rec.last_seq(), 1, "no seq used");
        assert_eq!(
            fs::read(dir.run_file()).unwrap(),
            before,
            "the file as it was"
        );
        let mut batch = vec![event("two"), event("three")];
        assert_eq!(rec.record_batch(&mut batch).unwrap(), 2..4);
        rec.close().unwrap();
        assert_eq!(lines(&dir.run_file()), ["one", "two", "three"]);
        let seen: Vec<u64> = std::iter::from_fn(|| live.recv())
            .map(|delivery| match delivery {
                Delivery::Event(event) => event.seq,
                Delivery::Missed { .. } => panic!("nothing missed"),
            })
            .collect();
        assert_eq!(seen, [1, 2, 3], "a subscriber never sees the failed batch");
    }

    /// An event the writer refuses refuses its whole batch: nothing written, no seq used.
    #[test]
    fn an_event_that_cannot_be_encoded_refuses_its_whole_batch() {
        let dir = Dir::new("batch-refused");
        let rec = create(&dir, Durability::None);
        rec.record(event("one")).unwrap();
        let mut refused = event("refused");
        refused.event_type = EventType::Unknown("no.such.type".to_owned());
        let mut batch = vec![event("lost"), refused];
        let error = rec.record_batch(&mut batch).unwrap_err();
        assert!(matches!(error, RecordError::Encode(_)), "{error}");
        assert_eq!(rec.last_seq(), 1);
        assert_eq!(rec.record(event("two")).unwrap(), 2);
        rec.close().unwrap();
        assert_eq!(lines(&dir.run_file()), ["one", "two"]);
    }

    /// A batch is one write and, under the sync policies, one sync after it; a failed sync
    /// takes the whole batch back and stops the recorder.
    #[rstest::rstest]
    #[case::flush(Durability::Flush)]
    #[case::fsync(Durability::Fsync)]
    fn a_batch_is_one_write_and_one_sync_and_a_failed_sync_takes_all_of_it_back(
        #[case] durability: Durability,
    ) {
        let dir = Dir::new("batch-sync");
        let rec = create(&dir, durability);
        // Two writes that succeed whole, then a failing sync: a batch that took more than
        // one write, or synced before its last write, would reach the failure.
        let whole = Fault::Short(usize::MAX);
        let plan = inject(&dir.run_file(), [whole, whole, Fault::Sync(EIO)]);
        let mut batch = vec![event("one"), event("two"), event("three")];
        assert_eq!(rec.record_batch(&mut batch).unwrap(), 1..4);
        assert_eq!(plan.pending(), 2, "one write for the batch");
        let mut batch = vec![event("lost"), event("lost too")];
        let error = rec.record_batch(&mut batch).unwrap_err();
        assert_eq!(os_error(&error), Some(EIO), "its one sync failed");
        assert_eq!(plan.pending(), 0);
        assert_eq!(rec.last_seq(), 3, "no seq used");
        assert_eq!(
            lines(&dir.run_file()),
            ["one", "two", "three"],
            "taken back"
        );
        let stopped = rec.record_batch(&mut [event("later")]).unwrap_err();
        assert!(matches!(stopped, RecordError::Failed { .. }), "{stopped}");
    }

    #[test]
    fn without_sync_policies_no_sync_is_attempted_so_none_can_fail() {
        let dir = Dir::new("no-sync");
        let rec = create(&dir, Durability::None);
        let plan = inject(&dir.run_file(), [Fault::Sync(EIO)]);
        rec.record(event("one")).unwrap();
        rec.close().unwrap();
        assert_eq!(plan.pending(), 1);
    }
}
