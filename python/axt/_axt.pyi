"""Type stubs of axt's native module (built from python/src/ by maturin)."""

import os
from types import TracebackType
from typing import (
    IO,
    Any,
    Dict,
    Iterable,
    Iterator,
    List,
    Optional,
    Sequence,
    Tuple,
    Type,
    Union,
    overload,
)

_Path = Union[str, "os.PathLike[str]"]
_Json = Any
_Event = Dict[str, Any]

__version__: str
#: The providers whose output axt normalizes: the crate's registry (``Provider::ALL``).
PROVIDERS: Tuple[str, ...]

class Error(Exception):
    """The base of every exception axt raises."""

class InputError(Error):
    """An input cannot be opened or read, or its provider cannot be detected."""

class RecordError(Error):
    """The recorder failed: a run file that cannot be written, is busy or corrupt, a closed
    recorder, or an event the strict writer refuses."""

class StepError(Error):
    """A run, step or tool scope was used out of turn (ended, a step already running at that
    path and iteration, an invalid name, the wrong step kind, a call id used twice)."""

class Diagnostic:
    """A problem in an input, at its line and byte offset."""

    file: Optional[str]
    """The file, for a problem found reading transcripts; None for normalize's."""
    line: int
    """1-based line."""
    offset: int
    """Byte offset in the input."""
    kind: str
    """The kind, kebab-case: ``not-json``, ``invalid-json``, ``seq-gap``, ..."""
    severity: str
    """``error`` or ``warning``."""
    message: str
    """What was wrong, for a person."""
    def to_dict(self) -> Dict[str, Any]:
        """The problem as the command line's ``--json`` prints it on stderr."""

class Events(Sequence[_Event]):
    """A transcript's events, a read-only sequence of dicts made from their JSON lines on
    access (each once): indexing, slices (a list), ``len``, iteration, ``in``, and ``==``
    with a list of the same dicts, as the list it stands for."""

    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: int) -> _Event: ...
    @overload
    def __getitem__(self, index: slice) -> List[_Event]: ...
    def __iter__(self) -> Iterator[_Event]: ...

class Normalized:
    """What :func:`normalize` made of one agent's output."""

    @property
    def provider(self) -> str:
        """The provider whose output it was (detected, or as given)."""
    @property
    def events(self) -> Events:
        """The transcript's events, each exactly its canonical JSON line as a dict, ``seq``
        from 1: a sequence that makes each dict when it is first asked for, the same dict
        (and the same sequence) after that; ``list(result.events)`` for a list."""
    @property
    def diagnostics(self) -> List[Diagnostic]:
        """Every problem found in the input, in order."""
    @property
    def meta(self) -> Dict[str, Any]:
        """The run's metadata, as its ``run.completed`` carries it."""
    @property
    def ok(self) -> bool:
        """Whether no diagnostic is an error and the run is whole (``axt normalize`` would exit
        0): an input cut before its terminal record, or empty, is not ok."""
    def jsonl(self) -> bytes:
        """The transcript as canonical JSONL bytes, exactly what ``axt normalize`` prints;
        no Python object is made per event."""

def normalize(
    data: Union[bytes, bytearray, memoryview, str, "os.PathLike[str]"],
    provider: str = "auto",
    run_id: Optional[str] = None,
    *,
    clock: Optional[str] = None,
    max_record_bytes: int = ...,
) -> Normalized:
    """Normalizes one agent's whole output into the canonical transcript.

    ``data`` is the output itself (bytes or str) or an ``os.PathLike`` naming a file that
    holds it (a plain ``str`` is always data). ``provider`` is ``"auto"`` (recognized from
    the first records) or one of :data:`PROVIDERS`. ``run_id`` defaults to the provider's session id, else a fresh UUID.
    ``clock`` is ``"now"`` (default) or ``"fixed:<RFC 3339 time>"``: the time of events the
    output does not date. Records over ``max_record_bytes`` are skipped and reported.

    Problems in the input are diagnostics, never exceptions; only an input whose provider
    ``"auto"`` cannot recognize raises :class:`InputError` (and an unreadable file). The GIL
    is released while it works."""

class Normalizer:
    """Incremental normalization: ``push`` bytes as they arrive (a ``Popen`` pipe, split
    anywhere) and get the events they completed; ``finish`` for the rest. Thread-safe."""

    def __init__(
        self,
        provider: str = "auto",
        run_id: Optional[str] = None,
        *,
        clock: Optional[str] = None,
        max_record_bytes: int = ...,
    ) -> None: ...
    def push(self, data: bytes) -> List[_Event]:
        """Feeds the next bytes; returns the events they completed (with ``"auto"``, none
        until the provider is recognized). Raises :class:`StepError` after ``finish``."""
    def finish(self) -> List[_Event]:
        """Ends the input; returns the events still open, ``run.completed`` last."""
    @property
    def provider(self) -> Optional[str]:
        """The provider, once known."""
    @property
    def meta(self) -> Dict[str, Any]:
        """The run's metadata so far; final after ``finish``."""
    @property
    def diagnostics(self) -> List[Diagnostic]:
        """Every diagnostic so far."""
    @property
    def run_id(self) -> Optional[str]:
        """The run id, once the first event has been made."""

class Subscription:
    """A live view of a run's events from the moment it was made: an iterator of dicts
    (each an event's canonical JSON), or ``{"missed": {"from_seq": n, "count": k}}`` where
    this subscriber fell behind (those events are in the file). Ends when the run ends."""

    def __iter__(self) -> Iterator[_Event]: ...
    def __next__(self) -> _Event: ...
    def close(self) -> None:
        """Stops receiving; the iterator ends."""
    @property
    def dropped(self) -> int:
        """How many events were dropped for this subscriber so far."""

class Run:
    """A workflow run recorded in ``<dir>/<run-id>.jsonl``: ``run.started`` is written now,
    ``run.completed`` exactly once when it ends (``done``, ``complete``, ``fail``, the end
    of its ``with`` block, or, failed, when the object is collected unended). An exception
    in its ``with`` block ends it as failed with the exception's message and goes on.
    Thread-safe: steps may be opened from several threads."""

    def __init__(
        self, dir: _Path, run_id: Optional[str] = None, name: str = "workflow"
    ) -> None: ...
    @property
    def run_id(self) -> str: ...
    @property
    def parent_run_id(self) -> Optional[str]:
        """The run that invoked this one, for a sub-workflow."""
    @property
    def path(self) -> "os.PathLike[str]":
        """The transcript file (a ``pathlib.Path``)."""
    @property
    def has_ended(self) -> bool: ...
    def step(self, name: str, kind: str = "command", iteration: Optional[int] = None) -> Step:
        """Opens top-level step ``name`` (no ``.`` in it). ``kind`` is one of the
        vocabulary's (``agent``, ``command``, ``operation``, ``terminal``, ``parallel``,
        ``for_each``, ``while``, ``call_workflow``) or any other string, a custom kind.
        ``iteration``: a retry's. Raises :class:`StepError` if a step with that path and
        iteration is running."""
    def subscribe(self) -> Subscription:
        """A live view of the events recorded from now on."""
    def complete(self, result: _Json = None) -> None:
        """Ends the run with ``result`` (JSON-serializable)."""
    def done(self) -> None:
        """Ends the run with no result."""
    def fail(self, error: str) -> None:
        """Ends the run as failed with ``error``."""
    def __enter__(self) -> Run: ...
    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        exception: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> bool: ...

class Step:
    """A step in flight; ends exactly once (``done``, ``complete``, ``fail``, its ``with``
    block, its parent or its run ending first). An exception in its ``with`` block
    completes it as failed with the exception's message and goes on."""

    @property
    def path(self) -> str:
        """Its parent's path, a ``.``, and its name."""
    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def iteration(self) -> int: ...
    @property
    def run_id(self) -> str: ...
    @property
    def is_open(self) -> bool: ...
    def step(self, name: str, kind: str = "command", iteration: Optional[int] = None) -> Step:
        """Opens a child step (path ``<this path>.<name>``), at this step's iteration
        unless given: a loop body's or a parallel branch's."""
    def tool(
        self, name: str, call_id: Optional[str] = None, input: _Json = None
    ) -> ToolCall:
        """Opens a tool call captured at the executor's router (fidelity ``router``):
        ``tool.call`` now, ``tool.result`` when it ends. ``call_id`` defaults to a fresh
        one; give the agent's id when the router has it."""
    def call_workflow(self, name: str, run_id: Optional[str] = None) -> Run:
        """Starts sub-workflow ``name`` of this ``call_workflow`` step: a child run in a
        file of its own, linked both ways."""
    def agent(
        self,
        provider: str,
        prompt: Optional[str] = None,
        system_prompt: Optional[str] = None,
        router_tools: Union[None, str, Iterable[str]] = None,
        *,
        raw_file: Optional[_Path] = None,
    ) -> AgentStep:
        """Turns this ``agent`` step into a live capture of its agent's output: records
        the prompt and system prompt as ``message.user``, then normalizes what
        :meth:`AgentStep.feed` is given, inside the step. ``router_tools``: which tools the
        executor's router serves (None or ``"all"``: any; ``"none"``; or their names), so
        a call seen on both channels is recorded once. ``raw_file``: keep the output byte
        for byte there. The step is then the agent step's to end."""
    def complete(self, result: _Json = None) -> None: ...
    def done(self) -> None: ...
    def fail(self, error: str) -> None: ...
    def __enter__(self) -> Step: ...
    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        exception: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> bool: ...

class AgentStep:
    """An agent step capturing its agent's output live. Thread-safe: one thread may feed
    while others record tool calls. As a context manager (or when its step's block ends)
    it finishes; an exception is recorded as the process's note, failing the step."""

    @property
    def path(self) -> str: ...
    @property
    def is_open(self) -> bool: ...
    @property
    def meta(self) -> Dict[str, Any]:
        """The agent run's metadata as its output has told it so far."""
    def feed(self, data: bytes) -> None:
        """Feeds the next bytes of the agent's stdout, split anywhere; every event they
        complete is recorded before this returns."""
    def feed_from(self, stream: IO[bytes]) -> None:
        """Feeds everything a binary stream yields until its end (``proc.stdout``)."""
    def follow_up(self, prompt: str) -> Optional[int]:
        """Records a follow-up turn: a ``message.user``. Returns its ``seq``, or ``None``
        when the disk refused it and it waits to be written (in order, once there is room)."""
    def converse_acp(
        self,
        command: List[str],
        prompt: str,
        permission: str = "deny",
        workdir: Optional[Union[str, os.PathLike]] = None,
        grace_secs: int = 10,
    ) -> Dict[str, Any]:
        """Runs an ACP agent (``command``) as its ACP client, this step (provider ``acp``)
        recording the exchange: ``initialize``, ``session/new`` in ``workdir``, one
        ``session/prompt``; permission requests answered by ``permission`` (``"deny"`` or
        ``"allow"``), file and terminal requests served inside ``workdir`` only. Then closes
        the agent's stdin, waits for it (killing it after ``grace_secs``), finishes the step
        with how it ended, and returns the run's metadata."""
    def tool(
        self, name: str, call_id: Optional[str] = None, input: _Json = None
    ) -> ToolCall:
        """Opens a router tool call inside this step (see :meth:`Step.tool`)."""
    def finish(
        self,
        exit_code: Optional[int] = None,
        signal: Optional[int] = None,
        note: Optional[str] = None,
    ) -> Dict[str, Any]:
        """Ends the step: the output ended and the process ended with ``exit_code`` (a
        ``Popen.returncode``: negative for a signal) or ``signal``; ``note`` says more.
        Without any, the output's own status stands. Returns the agent run's metadata."""
    def __enter__(self) -> AgentStep: ...
    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        exception: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> bool: ...

class ToolCall:
    """A router tool call in flight; its ``tool.result`` is written exactly once. Its
    ``with`` block ending normally records a result without output (unless ``result`` was
    called); an exception records the tool's error and goes on."""

    @property
    def name(self) -> str: ...
    @property
    def call_id(self) -> str: ...
    def result(
        self, output: _Json = None, error: Optional[str] = None, exit_code: Optional[int] = None
    ) -> None:
        """The tool returned ``output`` (``error`` when it failed, ``exit_code`` for a
        shell command)."""
    def error(self, message: str) -> None:
        """The tool failed with ``message``."""
    def __enter__(self) -> ToolCall: ...
    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        exception: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> bool: ...

class TranscriptReader:
    """The events (dicts) and problems (:class:`Diagnostic`) of one transcript."""

    def __iter__(self) -> Iterator[Union[_Event, Diagnostic]]: ...
    def __next__(self) -> Union[_Event, Diagnostic]: ...

def read(path: _Path) -> TranscriptReader:
    """Reads a transcript tolerantly, in bounded memory: each event as ``axt cat`` writes
    it (a dict of its canonical JSON) and each problem at its line and byte offset, in file
    order. Raises :class:`InputError` when the file cannot be opened."""

def tree(path: str) -> Tuple[Dict[str, Any], List[Diagnostic]]: ...
def stats(paths: List[str]) -> Tuple[Dict[str, Any], List[Diagnostic]]: ...
def export(
    paths: List[str],
    to: str = "agentlog",
    *,
    root: Optional[str] = None,
    redact: bool = False,
    content: bool = False,
    out: Optional[str] = None,
) -> Tuple[Dict[str, Any], List[Diagnostic]]: ...
def run_cli(args: List[str]) -> int:
    """Runs the ``axt`` command line on ``args`` (program name first); its exit status."""
