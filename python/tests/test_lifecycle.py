"""A run's lifecycle across processes and faults (issue 23, item 13): a real `os.fork()`, a
run id opened again after it finished, and a step whose completion meets a real full disk
(a tmpfs mounted here where the test may: root, as CI is; else SKIPPED with the reason)."""

from __future__ import annotations

import errno
import gc
import json
import os
import subprocess
from pathlib import Path
from typing import List

import pytest

import axt


def events(path: Path) -> List[dict]:
    """The file's events, after checking every line is whole and `seq` counts from 1."""
    data = path.read_bytes()
    assert data.endswith(b"\n")
    found = [json.loads(line) for line in data.splitlines()]
    assert [event["seq"] for event in found] == list(range(1, len(found) + 1))
    return found


def kinds(path: Path) -> List[str]:
    return [f"{event['type']} {event['path']}".strip() for event in events(path)]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")
def test_a_forked_child_writes_nothing_into_its_parent_s_run(tmp_path: Path) -> None:
    """The child's copies of the scopes used to end the parent's run in the parent's file
    when the child left its `with` blocks (a second `run.completed`, `seq` repeated)."""
    run = axt.Run(tmp_path, name="parent")
    step = run.step("work")
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            # Using the copies is refused, not silently dropped...
            try:
                run.step("child")
                code = 2
            except axt.StepError as error:
                if "a forked child cannot write to it" not in str(error):
                    code = 3
            # ...and leaving the blocks normally, then letting the copies go, ends nothing.
            with run:
                with step:
                    pass
            del run, step
            gc.collect()
        except BaseException:  # pragma: no cover - reported through the exit code
            code = 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    step.done()
    run.done()
    assert kinds(run.path) == [
        "run.started",
        "step.started work",
        "step.completed work",
        "run.completed",
    ]


def test_a_finished_run_id_is_not_recorded_twice(tmp_path: Path) -> None:
    """`Run(dir, run_id=...)` on a run that has ended used to append a second run."""
    with axt.Run(tmp_path, run_id="once", name="w"):
        pass
    before = (tmp_path / "once.jsonl").read_bytes()
    with pytest.raises(axt.RecordError, match="run once is already recorded"):
        axt.Run(tmp_path, run_id="once", name="w")
    assert (tmp_path / "once.jsonl").read_bytes() == before


@pytest.fixture
def small_disk(tmp_path: Path):
    """A real 256 KiB tmpfs, or SKIPPED with the reason."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=262144", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs (root is needed; CI runs as root): {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path) -> Path:
    """Writes a file on `disk` until it is full; returns it."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as out:
        block = b"\0" * 4096
        while True:
            try:
                out.write(block)
            except OSError as error:
                assert error.errno == errno.ENOSPC
                break
    return filler


def test_a_step_completion_the_full_disk_refuses_is_written_once_it_has_room(
    small_disk: Path,
) -> None:
    """The completion used to be lost (the step open for good, `check` saying ok); now it
    waits for the disk, in its place, and the run is whole once the disk has room."""
    run = axt.Run(small_disk / "runs", run_id="r", name="w")
    step = run.step("build")
    # Enough output in the step that its completion needs a page the disk no longer has.
    step_text = "x" * 8192
    filler = fill(small_disk)
    step.complete({"log": step_text})
    filler.unlink()
    run.done()
    assert kinds(run.path) == [
        "run.started",
        "step.started build",
        "step.completed build",
        "run.completed",
    ]
    assert events(run.path)[2]["payload"]["result"] == {"log": step_text}
