"""Shared fixtures: the repository's corpus and the `axt` command installed with the wheel."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Tuple

import axt
import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"
#: The crate's provider registry; every provider has a corpus.
PROVIDERS = axt.PROVIDERS
#: A fixed clock and run id make `axt.normalize` and `axt normalize` byte-comparable.
CLOCK = "fixed:2026-06-08T08:14:42Z"
RUN_ID = "python-test-run"


def fixtures(outcome: str) -> List[Tuple[str, Path]]:
    """(provider, path) of every corpus fixture of `outcome` (`ok` or `err`)."""
    found = []
    for provider in PROVIDERS:
        folder = CORPUS / "normalize" / provider / outcome
        for path in sorted(folder.iterdir()):
            if path.is_file():
                found.append((provider, path))
    return found


def cli_path() -> str:
    """The `axt` command of the installed wheel: beside this interpreter."""
    here = Path(sys.executable).parent / "axt"
    if here.exists():
        return str(here)
    found = shutil.which("axt")
    if found is None:
        pytest.fail("no `axt` command: install the package (pip install ./python)")
    return found


@pytest.fixture(scope="session")
def axt_cli() -> str:
    return cli_path()


def run_cli(*args: str, check: bool = False) -> subprocess.CompletedProcess:
    """Runs the wheel's `axt` with `args`; stdout and stderr as bytes."""
    done = subprocess.run([cli_path(), *args], capture_output=True, timeout=120)
    if check and done.returncode != 0:
        raise AssertionError(f"axt {' '.join(args)}: {done.returncode}\n{done.stderr.decode()}")
    return done


def jsonl(data: bytes) -> list:
    return [json.loads(line) for line in data.splitlines() if line.strip()]


def replay_agent() -> Path:
    return ROOT / "tests" / "axt" / "support" / "replay-agent.py"


os.environ.setdefault("NO_COLOR", "1")
