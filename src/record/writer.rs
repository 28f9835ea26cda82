//! The append-only run file: creating it privately, reopening it after a crash, and appending
//! one whole line per `write(2)`.
//!
//! This module owns the bytes on disk and nothing else: it does not assign `seq` (the
//! recorder does, and tells it which `seq` the file ends with) and it never rewrites a line
//! that ends in LF. The only bytes it ever removes are a torn tail (a final line without its
//! LF), only after copying them, synced, to a sidecar file, and what a failed append of its
//! own left behind.
//!
//! Every append and sync goes through [`Storage`], a seam: the real [`File`] in the
//! library, and in the crate's own tests a file that fails on cue (`faults.rs`: write
//! errors, short writes, ENOSPC, failed syncs), so that each failure path runs in a test
//! without filling a real disk. The seam is a type alias, so the library's hot path is the
//! same direct `write(2)` it was.

use std::fs::{DirBuilder, File, Metadata, OpenOptions, Permissions, TryLockError};
use std::io::{self, ErrorKind, Read, Seek, SeekFrom};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::fs::{DirBuilderExt, FileExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{OnceLock, mpsc};
use std::time::{Duration, Instant};

use super::error::RecordError;
use super::storage::Storage;
use crate::model::decode_event;

/// Longest accepted run id, in bytes: the file name adds `.jsonl` and, for a sidecar,
/// `.torn-<20 digits>.<n>` (a replacement being placed: `.` before and `.new-<pid>-<n>`
/// after), and most file systems stop at 255 bytes per name.
const MAX_RUN_ID_LEN: usize = 200;

/// How far back [`RunFile::open`] reads per step while looking for line ends.
const SCAN_CHUNK: u64 = 64 * 1024;

/// Checks that `run_id` can be used as a file name inside the run directory, and nowhere else.
pub(crate) fn check_run_id(run_id: &str) -> Result<(), RecordError> {
    let reason = if run_id.is_empty() {
        Some("it is empty")
    } else if run_id == "." || run_id == ".." {
        Some("it names a directory")
    } else if run_id.contains(['/', '\\']) {
        // `\` is a separator on Windows; refusing it keeps run files portable.
        Some("it contains a path separator")
    } else if run_id.contains('\0') {
        Some("it contains NUL")
    } else if run_id.chars().any(char::is_control) {
        Some("it contains a control character")
    } else if run_id.len() > MAX_RUN_ID_LEN {
        Some("it is longer than 200 bytes")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(RecordError::InvalidRunId {
            run_id: run_id.to_owned(),
            reason,
        }),
        None => Ok(()),
    }
}

/// The path of a run's transcript: `<dir>/<run-id>.jsonl`.
pub(crate) fn run_path(dir: &Path, run_id: &str) -> PathBuf {
    dir.join(format!("{run_id}.jsonl"))
}

/// The storage every run file and raw output file is written through.
#[cfg(not(test))]
pub(crate) type Disk = File;
/// The storage every run file and raw output file is written through: in the crate's tests,
/// a file that fails when a test says so (and otherwise is the real file).
#[cfg(test)]
pub(crate) type Disk = super::faults::FaultyFile;

/// An append-only file whose failed appends leave nothing behind: the file always ends
/// where the last successful append ended.
///
/// Its owner must be the file's only writer (the run file's `flock`; a raw output file is
/// created new by its one capture), so the length it knows is the file's length.
#[derive(Debug)]
pub(crate) struct Appender<S: Storage = Disk> {
    io: S,
    path: PathBuf,
    /// The file's length after the last successful append.
    len: u64,
    /// A failed append left bytes after `len` and cutting them off failed too: they are cut
    /// before anything else is appended, or the next line would continue them.
    dirty: bool,
}

impl<S: Storage> Appender<S> {
    /// Takes `file` (opened with `O_APPEND`, `len` bytes long) as the only writer.
    pub(crate) fn new(file: File, path: PathBuf, len: u64) -> Self {
        Appender {
            io: S::wrap(file, &path),
            path,
            len,
            dirty: false,
        }
    }

    /// The file's length after the last successful append.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// The file's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn file(&self) -> &File {
        self.io.file()
    }

    /// Appends `bytes` whole, or not at all.
    ///
    /// One `write(2)`, repeated only after a short write (which Linux does for a regular file
    /// only on a full disk or a fatal signal) or `EINTR`. When it fails, whatever part of
    /// `bytes` reached the file is cut off again; when even that fails, the file is marked
    /// dirty and cut back before the next append, which fails without writing while the cut
    /// still does. So a failed append never leaves a fragment that a later one continues.
    #[inline]
    pub(crate) fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.dirty {
            self.io.set_len(self.len)?;
            self.dirty = false;
        }
        match write_all(&mut self.io, bytes) {
            Ok(()) => {
                self.len += bytes.len() as u64;
                Ok(())
            }
            Err(error) => {
                self.dirty = self.io.set_len(self.len).is_err();
                Err(error)
            }
        }
    }

    /// Cuts the file back to `len` (no longer than it is): the undo of appends that were
    /// written but must not count (a line whose sync failed).
    pub(crate) fn cut_back(&mut self, len: u64) -> io::Result<()> {
        debug_assert!(len <= self.len);
        self.io.set_len(len)?;
        self.len = len;
        self.dirty = false;
        Ok(())
    }

    /// Makes sure no fragment of a failed append remains (at close).
    pub(crate) fn settle(&mut self) -> io::Result<()> {
        if self.dirty {
            self.io.set_len(self.len)?;
            self.dirty = false;
        }
        Ok(())
    }

    /// `fdatasync(2)`: the data and the metadata needed to read it back (the length).
    pub(crate) fn sync_data(&self) -> io::Result<()> {
        self.io.sync_data()
    }

    /// `fsync(2)`: the data and all metadata.
    pub(crate) fn sync_all(&self) -> io::Result<()> {
        self.io.sync_all()
    }
}

/// `write_all` over [`Storage::write`].
#[inline]
fn write_all(io: &mut impl Storage, mut bytes: &[u8]) -> io::Result<()> {
    while !bytes.is_empty() {
        match io.write(bytes) {
            Ok(0) => return Err(ErrorKind::WriteZero.into()),
            Ok(written) => bytes = &bytes[written..],
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

/// Options for a file axt creates: mode 0600, and never through a symbolic link
/// (`O_NOFOLLOW`; with `create_new`, `O_EXCL` refuses one too). `O_CLOEXEC` is std's.
pub(crate) fn private_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    options
}

/// Creates `path` (it must not exist, not even as a symbolic link) for appending, mode 0600.
pub(crate) fn create_private(path: &Path) -> io::Result<File> {
    private_options().append(true).create_new(true).open(path)
}

/// Options for reopening a file axt writes again (a run's transcript): as
/// [`private_options`], plus `O_NONBLOCK`, so that a FIFO planted at the path does not hang
/// the open waiting for a reader, and `O_NOCTTY`, so that a terminal planted there does not
/// become the process's controlling terminal. Both change nothing for a regular file, the
/// only kind [`check_reused`] lets through.
fn reopen_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY);
    options
}

/// Checks a file axt opened to write again, before a byte goes to it: it must be a regular
/// file (a FIFO would hand the transcript to whoever reads it, a device would swallow it)
/// owned by this process's user (a file another user planted in a shared directory stays
/// theirs to read); its mode is then made 0600 (a planted, empty, world-readable file would
/// otherwise keep its mode, and the transcript with it).
pub(crate) fn check_reused(file: &File, meta: &Metadata, path: &Path) -> Result<(), RecordError> {
    let kind = meta.file_type();
    let what = if kind.is_file() {
        None
    } else if kind.is_fifo() {
        Some("a FIFO")
    } else if kind.is_char_device() {
        Some("a character device")
    } else if kind.is_block_device() {
        Some("a block device")
    } else if kind.is_socket() {
        Some("a socket")
    } else if kind.is_dir() {
        Some("a directory")
    } else {
        Some("not a regular file")
    };
    if let Some(what) = what {
        return Err(RecordError::NotARegularFile {
            path: path.to_owned(),
            what,
        });
    }
    let user = rustix::process::geteuid().as_raw();
    if meta.uid() != user {
        return Err(RecordError::NotOwned {
            path: path.to_owned(),
            owner: meta.uid(),
        });
    }
    if meta.mode() & 0o7777 != 0o600 {
        // fchmod on the open file: the file checked is the file changed.
        file.set_permissions(Permissions::from_mode(0o600))
            .map_err(|source| RecordError::io(path, source))?;
    }
    Ok(())
}

/// What opening a run's file does when the run already has one with lines in it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum IfExists {
    /// Continue it, after its last intact line (a restarted executor).
    #[default]
    Continue,
    /// Fail with [`RecordError::Exists`] before anything is written: a second transcript
    /// of the same run appended to the first would hold two runs' lifecycles in one file.
    Refuse,
    /// Start the run anew in a new, empty file put in the old one's place, under the old
    /// one's lock: a run another recorder is writing is never replaced
    /// ([`RecordError::Busy`]). The new file is made beside the old one and renamed over
    /// it (emptying the old one in place waited for its blocks to be freed); the old one
    /// is closed on a thread of its own, and a recorder that was waiting for its lock
    /// opens the new one instead. Other names of the old file (hard links) keep the old
    /// run.
    Replace,
}

/// How long opening a run waits for a lock held elsewhere before saying the run is busy.
///
/// The lock belongs to the open file, and a child process being started by any thread of
/// this process shares every open file from the moment it is forked until it executes its
/// program (close-on-exec closes them only then). So a recorder closed a moment ago can
/// still hold its run's lock for as long as a sibling thread's child takes to reach `exec`:
/// microseconds, or a scheduling slice or two on a busy machine. Reopening the run at that
/// moment (an importer's second pass, a workflow resumed in-process) must not be refused
/// for it. A second recorder really writing the run holds the lock for good and is still
/// refused, this much later.
const LOCK_PATIENCE: Duration = Duration::from_millis(500);

/// Takes `file`'s exclusive lock, retrying for [`LOCK_PATIENCE`]; `false` when another
/// holder kept it all that time.
fn lock_patiently(file: &File) -> io::Result<bool> {
    let deadline = Instant::now() + LOCK_PATIENCE;
    let mut pause = Duration::from_millis(1);
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(true),
            Err(TryLockError::Error(error)) => return Err(error),
            Err(TryLockError::WouldBlock) if Instant::now() >= deadline => return Ok(false),
            Err(TryLockError::WouldBlock) => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(25));
            }
        }
    }
}

/// Creates `dir` and its missing parents with mode 0700; an existing directory is left as
/// it is.
pub(crate) fn create_private_dir(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// Whether `file` is still the file at `path`: the same inode, not a symbolic link.
///
/// A recorder that opened a run's file and then waited for its lock may find, once it has
/// the lock, that the run was replaced meanwhile ([`IfExists::Replace`]: a new file renamed
/// over the one it opened); what it wrote then would go to a file no name leads to.
fn still_at(file: &File, path: &Path) -> io::Result<bool> {
    let open = file.metadata()?;
    match std::fs::symlink_metadata(path) {
        Ok(named) => Ok(named.dev() == open.dev() && named.ino() == open.ino()),
        Err(error) if error.kind() == ErrorKind::NotFound => Ok(false),
        Err(error) => Err(error),
    }
}

/// How many replaced run files may wait for the closer thread ([`close_aside`]); past
/// that, one is closed where it was replaced.
const CLOSING_AT_ONCE: usize = 16;

/// Replaced run files handed to the closer thread and not yet closed.
static CLOSING: AtomicUsize = AtomicUsize::new(0);

/// The closer thread's queue of replaced run files ([`close_aside`]) and the process that
/// started it; `None` if the thread could not be started.
static CLOSER: OnceLock<Option<(u32, mpsc::Sender<File>)>> = OnceLock::new();

/// Names the temporary files of [`replace_with_new`], with the process id.
static REPLACEMENTS: AtomicU64 = AtomicU64::new(0);

/// Replaces the run file `old` (open, locked, at `path` in `dir`) by a new, empty file:
/// created beside it (0600, `O_EXCL`, under a name no transcript has:
/// `.<run-id>.jsonl.new-<pid>-<n>`), locked, and renamed over it. `old` keeps its lock
/// until it is closed, on the closer thread ([`close_aside`]); a recorder that was waiting
/// for that lock finds, once it has it, that the file is no longer the run's and opens the
/// new one ([`still_at`]).
///
/// Emptying the file in place (`ftruncate(2)`) cost the run's writer what freeing the old
/// file's blocks costs, on the writer's thread: on ext4 mounted with `discard` (many cloud
/// disks) a discard request waited for per extent, after the old pages' writeback, 1-3 ms
/// a file; and ext4 then forces the rewritten file's writeback when it is closed (its
/// `auto_da_alloc` for files truncated to nothing). A new inode has neither: the old one's
/// blocks are freed when the thread closes it.
///
/// Should the new file not be made or placed (a file planted at the temporary name, a
/// file system without `rename(2)` over a file), `old` is emptied in place, as before.
fn replace_with_new(old: File, dir: &Path, run_id: &str, path: &Path) -> io::Result<File> {
    let n = REPLACEMENTS.fetch_add(1, Ordering::Relaxed);
    let temporary = dir.join(format!(".{run_id}.jsonl.new-{}-{n}", std::process::id()));
    let mut options = reopen_options();
    options.read(true).append(true).create_new(true);
    let Ok(new) = options.open(&temporary) else {
        old.set_len(0)?;
        return Ok(old);
    };
    // Nobody else can have the new file yet (its name was made just now, `O_EXCL`), but a
    // run's file is only ever written under its lock, so it is locked before it is placed.
    let placed = match new.try_lock() {
        Ok(()) => std::fs::rename(&temporary, path),
        Err(_) => Err(io::Error::from(ErrorKind::WouldBlock)),
    };
    if placed.is_err() {
        let _ = std::fs::remove_file(&temporary);
        old.set_len(0)?;
        return Ok(old);
    }
    close_aside(old);
    Ok(new)
}

/// Closes a replaced run file on the closer thread, one long-lived thread that closes them
/// one after another (at most [`CLOSING_AT_ONCE`] waiting; otherwise here). The last close
/// of a file no name leads to frees its blocks.
///
/// A thread spawned per file (as before) cost a batch that replaces every run (`normalize
/// --replace --out` over 40 inputs) a thread's creation and exit per input: its stack
/// mapped, guarded and unmapped (a TLB shootdown of every core the process runs on, an
/// exit to the hypervisor on a VM), its allocator arena set up, on top of the close.
fn close_aside(old: File) {
    let closer = CLOSER.get_or_init(|| {
        let (send, receive) = mpsc::channel::<File>();
        std::thread::Builder::new()
            .name("axt-replaced".into())
            // The default stack: with 64 KiB, a debug build's thread overflowed it (SIGSEGV
            // in 3 of 6 runs of batch.rs's replacing FIFO test); the pages are only reserved.
            .spawn(move || {
                // Lives as long as the process: the sender is a static, never dropped.
                for file in receive {
                    drop(file);
                    CLOSING.fetch_sub(1, Ordering::Relaxed);
                }
            })
            .ok()
            .map(|_| (std::process::id(), send))
    });
    // A child forked after the thread started (Python's `multiprocessing`, an executor
    // that forks) has the queue but not the thread: a file sent there would stay open,
    // and locked, for the child's life. Such a child closes its files here.
    let Some((started_by, closer)) = closer else {
        drop(old);
        return;
    };
    if *started_by != std::process::id() {
        drop(old);
        return;
    }
    if CLOSING.fetch_add(1, Ordering::Relaxed) >= CLOSING_AT_ONCE {
        CLOSING.fetch_sub(1, Ordering::Relaxed);
        drop(old);
        return;
    }
    if let Err(mpsc::SendError(old)) = closer.send(old) {
        // The closer thread is gone (it cannot be, but a file is never left open for it).
        CLOSING.fetch_sub(1, Ordering::Relaxed);
        drop(old);
    }
}

/// What [`RunFile::open`] found in an existing file.
#[derive(Debug)]
pub(crate) struct Recovered {
    /// `seq` of the last intact line; 0 for a new or empty file.
    pub(crate) last_seq: u64,
    /// Where a torn final line was moved, if there was one.
    pub(crate) torn: Option<TornTail>,
}

/// A torn final line that opening the run file found and moved aside
/// ([`Recorder::torn_tail`](super::Recorder::torn_tail)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TornTail {
    /// Byte offset in the run file where the torn line started (the file's length now).
    pub offset: u64,
    /// How many bytes were moved.
    pub len: u64,
    /// The sidecar file that holds them, byte for byte.
    pub sidecar: PathBuf,
}

/// An open, locked run file positioned for appending. Its length as the [`Appender`]
/// knows it is exact, because the file is locked for us: it is where a failed append is cut
/// back to.
#[derive(Debug)]
pub(crate) struct RunFile {
    out: Appender,
}

impl RunFile {
    /// Opens `<dir>/<run_id>.jsonl` for appending, creating it (0600) and `dir` (0700) when
    /// missing, and recovers an existing file: a torn final line is moved to a sidecar and the
    /// last intact line's `seq` is returned so that numbering continues after it.
    ///
    /// The file is locked (`flock`, exclusive) for as long as the `RunFile` lives: two
    /// writers on one run would each number from the same `seq`. The lock is released by the
    /// kernel when the process dies, so a killed executor never leaves its run locked.
    pub(crate) fn open(
        dir: &Path,
        run_id: &str,
        sync_metadata: bool,
        if_exists: IfExists,
    ) -> Result<(RunFile, Recovered), RecordError> {
        check_run_id(run_id)?;
        let path = run_path(dir, run_id);
        let io_error = |source| RecordError::io(&path, source);
        create_private_dir(dir).map_err(|source| RecordError::io(dir, source))?;
        // Read access only serves recovery (`pread` of the tail); every write goes through
        // O_APPEND, so each line lands at the end of the file whatever the file offset says.
        // O_NOFOLLOW on the reopen too: a symbolic link planted at the run's name would
        // otherwise send the transcript wherever it points.
        let mut options = reopen_options();
        options.read(true).append(true);
        let deadline = Instant::now() + LOCK_PATIENCE;
        let mut file = loop {
            let (file, created) = match options.clone().create_new(true).open(&path) {
                Ok(file) => (file, true),
                Err(error) if error.kind() == ErrorKind::AlreadyExists => {
                    (options.open(&path).map_err(io_error)?, false)
                }
                Err(error) => return Err(io_error(error)),
            };
            if !created {
                // Whatever is at the path is checked on the open file, not by name first: a
                // file swapped in between a look and the open cannot slip through.
                let meta = file.metadata().map_err(io_error)?;
                check_reused(&file, &meta, &path)?;
            }
            // The lock before anything else is decided: whether the run has lines, and above
            // all emptying it to replace it, are the lock holder's to do.
            match lock_patiently(&file) {
                Ok(true) => {}
                Ok(false) => return Err(RecordError::Busy { path }),
                Err(error) => return Err(io_error(error)),
            }
            // The file locked must still be the run's: a recorder that replaced the run
            // while this one waited for the lock put a new file at the path, which is
            // opened and locked in turn.
            if still_at(&file, &path).map_err(io_error)? {
                break file;
            }
            if Instant::now() >= deadline {
                return Err(RecordError::Busy { path });
            }
        };
        let has_lines = file.metadata().map_err(io_error)?.len() > 0;
        match if_exists {
            IfExists::Refuse if has_lines => return Err(RecordError::Exists { path }),
            IfExists::Replace if has_lines => {
                file = replace_with_new(file, dir, run_id, &path).map_err(io_error)?;
            }
            _ => {}
        }
        if sync_metadata {
            // The file's name lives in the directory: without this, a power loss can lose
            // the whole file even though its lines were synced. Also on a reopen, since the
            // file may have been created under a policy that did not sync.
            sync_dir(dir)?;
        }
        let len = file.metadata().map_err(io_error)?.len();
        let mut run_file = RunFile {
            out: Appender::new(file, path, len),
        };
        let recovered = run_file.recover(run_id)?;
        Ok((run_file, recovered))
    }

    /// The file's path.
    pub(crate) fn path(&self) -> &Path {
        self.out.path()
    }

    /// The appender: lines go through it whole or not at all.
    pub(crate) fn out(&mut self) -> &mut Appender {
        &mut self.out
    }

    fn recover(&mut self, run_id: &str) -> Result<Recovered, RecordError> {
        let path = self.out.path().to_owned();
        let file = self.out.file();
        let len = self.out.len();
        let last_lf = rfind_lf(file, len).map_err(|source| RecordError::io(&path, source))?;
        let intact_len = last_lf.map_or(0, |at| at + 1);
        let torn = if intact_len < len {
            Some(self.move_torn_tail(intact_len)?)
        } else {
            None
        };
        let file = self.out.file();
        let io_error = |source| RecordError::io(&path, source);
        let last_seq = match last_lf {
            None => 0,
            Some(end) => {
                let start = rfind_lf(file, end)
                    .map_err(io_error)?
                    .map_or(0, |at| at + 1);
                let line = read_range(file, start, end).map_err(io_error)?;
                let corrupt = |reason: String| RecordError::Corrupt {
                    path: path.clone(),
                    offset: start,
                    reason,
                };
                let event = decode_event(&line).map_err(|error| corrupt(error.to_string()))?;
                if event.run_id != run_id {
                    return Err(corrupt(format!(
                        "the last line belongs to run {:?}",
                        event.run_id
                    )));
                }
                event.seq
            }
        };
        Ok(Recovered { last_seq, torn })
    }

    /// Copies the bytes from `offset` to the end into a new 0600 sidecar, syncs it and its
    /// directory entry, and only then cuts the run file back to `offset`.
    ///
    /// The order makes the recovery itself crash-safe: killed before the cut, the next open
    /// finds the same tail and saves it again (a second sidecar, nothing lost); killed after
    /// it, the sidecar is already durable. The sync costs nothing in the common case, since
    /// recovery only runs after a crash, so it is done whatever the durability policy.
    fn move_torn_tail(&mut self, offset: u64) -> Result<TornTail, RecordError> {
        let len = self.out.len() - offset;
        let path = self.out.path().to_owned();
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let dir = path.parent().unwrap_or(Path::new("."));
        // The same offset can tear twice (a restarted executor killed during its first
        // write), so a sidecar is never overwritten: the next free suffix is taken instead.
        let mut attempt = 0u32;
        let (mut sidecar_file, sidecar) = loop {
            let candidate = match attempt {
                0 => dir.join(format!("{name}.torn-{offset}")),
                n => dir.join(format!("{name}.torn-{offset}.{n}")),
            };
            let opened = private_options()
                .write(true)
                .create_new(true)
                .open(&candidate);
            match opened {
                Ok(file) => break (file, candidate),
                Err(error) if error.kind() == ErrorKind::AlreadyExists => attempt += 1,
                Err(error) => return Err(RecordError::io(&candidate, error)),
            }
        };
        // Streamed, not read whole: after a crash the tail can be anything, of any size. The
        // read offset is free to move, since every write to the run file is O_APPEND.
        let file = self.out.file();
        (&mut &*file)
            .seek(SeekFrom::Start(offset))
            .map_err(|source| RecordError::io(&path, source))?;
        let copied = io::copy(&mut file.take(len), &mut sidecar_file)
            .and_then(|copied| sidecar_file.sync_all().map(|()| copied))
            .map_err(|source| RecordError::io(&sidecar, source))?;
        if copied != len {
            let short = io::Error::new(
                ErrorKind::UnexpectedEof,
                "the torn tail shrank while copied",
            );
            return Err(RecordError::io(&path, short));
        }
        sync_dir(dir)?;
        self.out
            .cut_back(offset)
            .and_then(|()| self.out.sync_all())
            .map_err(|source| RecordError::io(&path, source))?;
        Ok(TornTail {
            offset,
            len,
            sidecar,
        })
    }
}

/// Syncs a directory, so that the names created in it survive a power loss.
fn sync_dir(dir: &Path) -> Result<(), RecordError> {
    File::open(dir)
        .and_then(|handle| handle.sync_all())
        .map_err(|source| RecordError::io(dir, source))
}

/// Offset of the last LF before `end`, reading backwards in chunks.
fn rfind_lf(file: &File, end: u64) -> io::Result<Option<u64>> {
    // No bigger than what is read: opening a new, empty run file allocates nothing (a
    // zeroed 64 KiB per run was most of what creating a recorder cost).
    let mut chunk = vec![0; end.min(SCAN_CHUNK) as usize];
    let mut stop = end;
    while stop > 0 {
        let start = stop.saturating_sub(SCAN_CHUNK);
        let buf = &mut chunk[..(stop - start) as usize];
        file.read_exact_at(buf, start)?;
        if let Some(at) = memchr::memrchr(b'\n', buf) {
            return Ok(Some(start + at as u64));
        }
        stop = start;
    }
    Ok(None)
}

fn read_range(file: &File, start: u64, end: u64) -> io::Result<Vec<u8>> {
    let mut bytes = vec![0; (end - start) as usize];
    file.read_exact_at(&mut bytes, start)?;
    Ok(bytes)
}
