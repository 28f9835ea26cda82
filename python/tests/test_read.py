"""Reading back: `axt.read`, `tree`, `stats` and `export` give the CLI's `--json`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import axt
from conftest import CORPUS, ROOT, run_cli

TRANSCRIPTS = CORPUS / "read" / "transcript"
FILES = sorted((TRANSCRIPTS / "ok").glob("*.jsonl")) + sorted((TRANSCRIPTS / "err").glob("*.jsonl"))
NESTED = sorted((TRANSCRIPTS / "ok" / "nested").glob("*.jsonl"))


def cli_json(*args: str) -> dict:
    return json.loads(run_cli(*args, "--json").stdout)


def cli_problems(*args: str) -> list:
    done = run_cli(*args, "--json")
    return [json.loads(line) for line in done.stderr.decode().splitlines()]


@pytest.mark.parametrize("path", FILES + NESTED, ids=lambda p: p.name)
def test_read_gives_axt_cat_s_events_and_its_problems(path: Path) -> None:
    items = list(axt.read(path))
    events = [i for i in items if isinstance(i, dict)]
    problems = [i for i in items if isinstance(i, axt.Diagnostic)]
    assert len(events) + len(problems) == len(items)
    cat = run_cli("cat", "--json", str(path))
    assert events == [json.loads(line) for line in cat.stdout.splitlines()]
    assert [p.to_dict() for p in problems] == [
        json.loads(line) for line in cat.stderr.decode().splitlines()
    ]


@pytest.mark.parametrize("path", FILES + NESTED, ids=lambda p: p.name)
def test_tree_stats_and_export_are_the_cli_s_json(path: Path) -> None:
    tree = axt.tree(path)
    assert dict(tree) == cli_json("tree", str(path))
    assert [p.to_dict() for p in tree.problems] == cli_problems("tree", str(path))
    stats = axt.stats(path)
    assert dict(stats) == cli_json("stats", str(path))
    assert [p.to_dict() for p in stats.problems] == cli_problems("stats", str(path))
    exported = axt.export(path, root="/")
    done = run_cli("export", "--root", "/", str(path))
    assert dict(exported) == json.loads(done.stdout)
    otlp = axt.export(path, to="otlp")
    assert dict(otlp) == json.loads(run_cli("export", "--to", "otlp", str(path)).stdout)


def test_stats_walks_directories_like_the_cli() -> None:
    stats = axt.stats([TRANSCRIPTS])
    assert dict(stats) == cli_json("stats", str(TRANSCRIPTS))
    assert len(stats["files"]) > 10
    assert not stats.clean


def test_unreadable_inputs_raise_input_errors(tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    for call in (axt.read, axt.tree, axt.stats, axt.export):
        with pytest.raises(axt.InputError, match="missing.jsonl"):
            call(missing)
    with pytest.raises(axt.InputError, match="is a directory"):
        axt.read(tmp_path)
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert list(axt.read(empty)) == []
    assert axt.tree(empty)["root"] is None
    with pytest.raises(axt.InputError, match="no event"):
        axt.export(empty)
    with pytest.raises(ValueError):
        axt.export(FILES[0], to="html")


def test_garbage_is_located_problems_not_exceptions(tmp_path: Path) -> None:
    path = tmp_path / "garbage.jsonl"
    path.write_bytes(b"\x00\xff{\n[]\n" + (TRANSCRIPTS / "ok" / "plain-run.jsonl").read_bytes()[:150])
    items = [i for i in axt.read(path) if isinstance(i, axt.Diagnostic)]
    assert items == list(axt.read(path))
    assert {i.file for i in items} == {str(path)}
    assert "file=" in repr(items[0]) and str(items[0]).startswith(str(path))
    assert axt.stats(path)["total"]["problems"]


def test_the_version_and_the_cli_come_with_the_package() -> None:
    cargo = (ROOT / "python" / "Cargo.toml").read_text()
    assert f'version = "{axt.__version__}"' in cargo
    core = (ROOT / "Cargo.toml").read_text()
    assert f'version = "{axt.__version__}"' in core, "the package's version is the crate's"
    done = subprocess.run(
        [sys.executable, "-c", "import axt; print(axt.__version__)"],
        capture_output=True, text=True, check=True,
    )
    assert done.stdout.strip() == axt.__version__
    version = run_cli("--version", check=True)
    assert version.stdout.decode().strip() == f"axt {axt.__version__}"
    assert run_cli("check").returncode == 2
    assert run_cli("normalize", "--provider", "nobody").returncode == 2


def test_export_to_parquet_writes_the_dataset_the_cli_writes(tmp_path: Path) -> None:
    dataset = tmp_path / "dataset"
    first = axt.export([TRANSCRIPTS / "ok" / "nested"], to="parquet", out=dataset)
    assert dict(first) == {
        "files": 3,
        "added": 3,
        "replaced": 0,
        "unchanged": 0,
        "batches": 1,
        "rows": first["rows"],
    }
    assert first["rows"] == {"llm_calls": 2, "runs": 3, "steps": 8, "tool_calls": 5}
    # A table's directory appears with its first row: these runs have no diagnostics.
    assert sorted(p.name for p in dataset.iterdir()) == sorted(
        ["_axt", "llm_calls", "runs", "steps", "tool_calls"]
    )
    again = axt.export(TRANSCRIPTS / "ok" / "nested", to="parquet", out=dataset)
    assert (again["added"], again["unchanged"], again["batches"]) == (0, 3, 0)
    with pytest.raises(ValueError, match='out= is for to="parquet"'):
        axt.export(FILES[0], out=dataset)
    with pytest.raises(ValueError, match='to="parquet" needs out='):
        axt.export(FILES[0], to="parquet")


def dataset_files(root: Path) -> dict:
    """Every file of a dataset by its path under it, with its bytes; the lock left out."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != "lock"
    }


def test_export_to_parquet_is_byte_for_byte_the_cli_s_with_content_and_the_price_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One price table for both (the binding reads it as the CLI does), not the user's.
    prices = tmp_path / "prices.json"
    prices.write_text(
        '{"format": 1, "date": "2027-01-01", "source": "a test", "models": '
        '{"claude-sonnet-4-5": {"input": 1, "output": 2, "cache_read": 0, "cache_write": 0}}}'
    )
    monkeypatch.setenv("AXT_PRICES", str(prices))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    inputs = [TRANSCRIPTS / "ok", CORPUS / "read" / "transcript" / "err"]
    by_python, by_cli = tmp_path / "python", tmp_path / "cli"
    report = axt.export(inputs, to="parquet", out=by_python, content=True, redact=True)
    done = run_cli(
        "export", "--to", "parquet", "--content", "--redact", "--out", str(by_cli),
        *map(str, inputs),
    )
    assert done.returncode in (0, 1), done.stderr.decode()
    assert report["added"] == report["files"] > 0
    python_files, cli_files = dataset_files(by_python), dataset_files(by_cli)
    assert sorted(python_files) == sorted(cli_files)
    assert any(name.startswith("content/") for name in python_files)
    different = [name for name in python_files if python_files[name] != cli_files[name]]
    assert different == []
    # Both read the user's table: its date is in every runs file.
    runs = [data for name, data in python_files.items() if name.startswith("runs/")]
    assert runs and all(b"2027-01-01" in data for data in runs)
