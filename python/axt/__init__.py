"""axt: canonical transcripts for AI coding agents, native in Python.

Built from the same Rust crate as the ``axt`` command, which this package installs too:

* :func:`normalize` and :class:`Normalizer` turn an agent's raw output (Claude Code, Codex,
  Gemini CLI, Copilot CLI, OpenAI-compatible HTTP) into the canonical transcript, whole or
  chunk by chunk from a ``Popen`` pipe;
* :class:`Run` records a whole workflow run as it happens, through scopes: steps of every
  kind, agent steps whose output is normalized live, tool calls captured at the executor's
  router, sub-workflows, live subscribers;
* :func:`read`, :func:`tree`, :func:`stats` and :func:`export` read transcripts back, each
  giving the same JSON as the command line's ``--json``.

Problems in an input are never exceptions: normalizing gives diagnostics, reading gives
located problems. What axt cannot do raises :class:`Error` or one of its subclasses; bad
arguments raise ``ValueError`` or ``TypeError``.
"""

from __future__ import annotations

import collections.abc
import os
from typing import Iterable, List, Sequence, Union

from . import _axt
from ._axt import (
    AgentStep,
    Diagnostic,
    Error,
    Events,
    InputError,
    Normalized,
    Normalizer,
    RecordError,
    Run,
    Step,
    StepError,
    Subscription,
    PROVIDERS,
    ToolCall,
    TranscriptReader,
    __version__,
    normalize,
    read,
)

StrPath = Union[str, "os.PathLike[str]"]

#: The step kinds of the transcript's vocabulary; any other string is a custom kind.
STEP_KINDS = (
    "agent",
    "command",
    "operation",
    "terminal",
    "parallel",
    "for_each",
    "while",
    "call_workflow",
)


class Report(dict):  # type: ignore[type-arg]
    """A JSON document exactly as the command line prints it with ``--json``, as a dict,
    with the problems met while reading beside it in :attr:`problems` (the command line
    prints those on stderr)."""

    problems: List[Diagnostic]

    def __init__(self, document: dict, problems: List[Diagnostic]) -> None:  # type: ignore[type-arg]
        super().__init__(document)
        self.problems = problems

    @property
    def clean(self) -> bool:
        """Whether no problem was met."""
        return not self.problems

    def __repr__(self) -> str:
        return f"Report({dict.__repr__(self)}, problems={self.problems!r})"


def tree(path: StrPath) -> Report:
    """The execution tree of the run in ``path`` and of every run it invokes (their files
    in the same directory, at any depth), as ``axt tree --json``: ``{"root": run}``, each
    run with its steps, messages and tool calls as ``children``; ``root`` is None when the
    file holds no event. Problems (bad lines, missing children, orphans, mismatched links)
    are in :attr:`Report.problems`. Raises :class:`InputError` when the file cannot be
    read."""
    document, problems = _axt.tree(os.fspath(path))
    return Report(document, problems)


def stats(paths: Union[StrPath, Iterable[StrPath]]) -> Report:
    """Counts over transcripts, as ``axt stats --json``: ``{"files": [{"file", "stats"}],
    "total"}`` with events and blocks by type, tools, tokens, cost, duration and problems
    by kind. ``paths`` is a file, a directory (walked for ``*.jsonl``) or a list of them.
    Raises :class:`InputError` when one cannot be read."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]  # type: ignore[list-item]
    document, problems = _axt.stats([os.fspath(p) for p in paths])
    return Report(document, problems)


def export(
    path: Union[StrPath, Sequence[StrPath]],
    to: str = "agentlog",
    *,
    root: Union[StrPath, None] = None,
    redact: bool = False,
    content: bool = False,
    out: Union[StrPath, None] = None,
) -> Report:
    """Runs exported as ``axt export`` exports them (one entry in the library for both):
    ``to="agentlog"`` the run in ``path`` and every run it invokes as an AgentLog 0.2.0
    session document (``root``: the project root paths are made relative to when the run
    does not record one; ``redact``: mask credentials); ``to="otlp"`` the runs of ``path``
    (a file or directory, or a list of them) as OTLP/JSON spans in the GenAI semantic
    conventions (``content``: include message text and tool arguments, credentials masked);
    ``to="parquet"`` the runs of ``path`` into the dataset directory ``out`` (``content``:
    the content table; ``redact``: credentials masked in it), the document saying what was
    added, replaced and left unchanged. Raises :class:`InputError` when an input cannot be
    read or holds no event, :class:`ValueError` for a setting the target does not take."""
    paths = [path] if isinstance(path, (str, bytes, os.PathLike)) else list(path)
    document, problems = _axt.export(
        [os.fspath(p) for p in paths],
        to,
        root=None if root is None else os.fspath(root),
        redact=redact,
        content=content,
        out=None if out is None else os.fspath(out),
    )
    return Report(document, problems)


# `Normalized.events` is a sequence in all but its type: say so to isinstance.
collections.abc.Sequence.register(Events)

__all__ = [
    "AgentStep",
    "Diagnostic",
    "Error",
    "Events",
    "InputError",
    "Normalized",
    "Normalizer",
    "PROVIDERS",
    "RecordError",
    "Report",
    "Run",
    "STEP_KINDS",
    "Step",
    "StepError",
    "Subscription",
    "ToolCall",
    "TranscriptReader",
    "__version__",
    "export",
    "normalize",
    "read",
    "stats",
    "tree",
]

