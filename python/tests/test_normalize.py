"""`axt.normalize` and `axt.Normalizer` against the command line, on the whole corpus."""

from __future__ import annotations

import collections.abc
import json
import random
from pathlib import Path

import pytest

import axt
from conftest import CLOCK, RUN_ID, fixtures, jsonl, run_cli

OK = fixtures("ok")
ERR = fixtures("err")


def ids(cases):
    return [f"{provider}/{path.name}" for provider, path in cases]


@pytest.mark.parametrize("provider,path", OK + ERR, ids=ids(OK + ERR))
def test_every_fixture_gives_the_cli_s_events_and_diagnostics(provider: str, path: Path) -> None:
    result = axt.normalize(path, provider, RUN_ID, clock=CLOCK)
    cli = run_cli("normalize", "--provider", provider, "--run-id", RUN_ID, "--clock", CLOCK,
                  "--json", str(path))
    assert result.jsonl() == cli.stdout
    assert result.events == jsonl(cli.stdout)
    problems = [json.loads(line) for line in cli.stderr.decode().splitlines()]
    # The command line's own advice (a hint without a kind) is not a diagnostic.
    problems = [{k: v for k, v in p.items() if k != "file"} for p in problems if "kind" in p]
    # On the command line the input has ended: a missing terminal record is an error there.
    expected = [
        {**d, "severity": "error"} if d["kind"] == "missing-terminal" else d
        for d in (d.to_dict() for d in result.diagnostics)
    ]
    if problems and "pretty-printed" in problems[0]["message"]:
        # Pretty-printed JSON: the command line gives one hint for the first line's problem
        # and counts the rest; the library lists them all.
        assert {k: problems[0][k] for k in ("line", "offset", "kind")} == {
            k: expected[0][k] for k in ("line", "offset", "kind")
        }
    else:
        assert expected == problems
    assert result.ok == (cli.returncode == 0)
    assert result.provider == provider


@pytest.mark.parametrize("provider,path", OK, ids=ids(OK))
def test_ok_fixtures_have_no_error_and_auto_detection_agrees(provider: str, path: Path) -> None:
    result = axt.normalize(path, clock=CLOCK, run_id=RUN_ID)
    assert result.provider == provider
    # No error; a warning may say the stream was cut before its terminal record (`ok` is
    # then false, as the command line's exit status is 1).
    assert all(d.severity != "error" for d in result.diagnostics), result.diagnostics
    assert result.ok == all(d.kind != "missing-terminal" for d in result.diagnostics)
    # Without a fixed clock and run id, the same events modulo timestamps and run id.
    free = axt.normalize(path.read_bytes())
    strip = lambda events: [  # noqa: E731
        {k: v for k, v in e.items() if k not in ("timestamp", "run_id")} for e in events
    ]
    assert strip(free.events) == strip(result.events)
    assert result.meta["provider"] == provider
    assert result.events[-1]["type"] == "run.completed"


@pytest.mark.parametrize("provider,path", OK + ERR, ids=ids(OK + ERR))
def test_chunked_pushes_equal_the_whole(provider: str, path: Path) -> None:
    data = path.read_bytes()
    whole = axt.normalize(data, provider, RUN_ID, clock=CLOCK)
    sizes = [1, 3, 64, 4096] if len(data) < 20_000 else [7, 4096]
    for size in sizes:
        normalizer = axt.Normalizer(provider, RUN_ID, clock=CLOCK)
        events = []
        for at in range(0, len(data), size):
            events += normalizer.push(data[at : at + size])
        events += normalizer.finish()
        assert events == whole.events, f"chunks of {size}"
        assert normalizer.diagnostics == whole.diagnostics
        assert normalizer.meta == whole.meta


def test_the_normalizer_detects_the_provider_from_the_first_records() -> None:
    provider, path = next(case for case in OK if case[0] == "codex")
    data = path.read_bytes()
    normalizer = axt.Normalizer()
    assert normalizer.provider is None
    events = normalizer.push(data[:5])
    assert events == [] and normalizer.provider is None
    events += normalizer.push(data[5:])
    events += normalizer.finish()
    assert normalizer.provider == "codex"
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert normalizer.finish() == []
    with pytest.raises(axt.StepError):
        normalizer.push(b"more")


BAD_INPUTS = [
    b"",
    b"\n\n\n",
    b"garbage\n",
    b"{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"cut",
    b"\xff\xfe\x00\x01not utf-8\n",
    b"{\"type\":\"result\"}\r\n{]\n\x00\x00\n",
    b"[1,2,3]\n\"string\"\nnull\n42\n",
    b"{\"type\":\"assistant\",\"message\":" + b"{" * 5000 + b"\n",
    b"data: {\"object\":\"chat.completion.chunk\"\n\ndata: [DONE]\n",
]


@pytest.mark.parametrize("provider", list(axt.PROVIDERS))
@pytest.mark.parametrize("data", BAD_INPUTS, ids=range(len(BAD_INPUTS)))
def test_bad_input_gives_diagnostics_not_exceptions(provider: str, data: bytes) -> None:
    result = axt.normalize(data, provider)
    assert result.events[0]["type"] == "run.started"
    assert result.events[-1]["type"] == "run.completed"
    if data.strip():
        assert result.diagnostics, "a bad input is reported"
    for diagnostic in result.diagnostics:
        assert diagnostic.severity in ("error", "warning")
        assert diagnostic.line >= 1 and diagnostic.offset >= 0
    normalizer = axt.Normalizer(provider)
    for at in range(0, len(data), 5):
        normalizer.push(data[at : at + 5])
    normalizer.finish()


@pytest.mark.parametrize("seed", range(20))
def test_random_bytes_never_raise(seed: int) -> None:
    rng = random.Random(seed)
    pieces = [case[1].read_bytes() for case in rng.sample(OK + ERR, 3)]
    data = bytearray(b"".join(pieces))
    for _ in range(rng.randrange(1, 50)):
        data[rng.randrange(len(data))] = rng.randrange(256)
    for provider in axt.PROVIDERS:
        axt.normalize(bytes(data), provider, max_record_bytes=rng.choice([64, 1 << 20]))


def test_a_record_over_the_limit_is_skipped_and_reported() -> None:
    line = b'{"type":"system","subtype":"init","session_id":"s","pad":"' + b"x" * 500 + b'"}\n'
    result = axt.normalize(line, "claude", max_record_bytes=100)
    assert "record-too-large" in [d.kind for d in result.diagnostics]


def test_undetectable_input_with_auto_is_an_input_error() -> None:
    with pytest.raises(axt.InputError, match="cannot detect the provider"):
        axt.normalize(b"hello\n")
    with pytest.raises(axt.InputError, match="empty"):
        axt.Normalizer().finish()
    with pytest.raises(axt.Error):
        axt.normalize(b"")


@pytest.mark.parametrize("provider", ["auto", "claude"])
def test_a_file_read_in_chunks_gives_what_its_bytes_give(tmp_path: Path, provider: str) -> None:
    # A path is read 256 KiB at a time: this file of ~1.5 MB, with a bad line among good
    # ones, puts records across every chunk boundary at a different offset.
    path = next(path for name, path in OK if name == "claude")
    lines = path.read_bytes().splitlines(keepends=True)
    data = b"".join(lines * (1_500_000 // len(b"".join(lines)) + 1))
    data = data[: len(data) // 2] + b"{not json\n" + data[len(data) // 2 :]
    big = tmp_path / "big.jsonl"
    big.write_bytes(data)
    by_path = axt.normalize(big, provider, "r", clock=CLOCK)
    by_bytes = axt.normalize(data, provider, "r", clock=CLOCK)
    assert len(data) > 4 * 256 * 1024
    assert by_path.jsonl() == by_bytes.jsonl()
    assert by_path.diagnostics == by_bytes.diagnostics
    assert any(d.kind == "invalid-json" for d in by_path.diagnostics)
    assert by_path.provider == by_bytes.provider == "claude"
    assert by_path.ok == by_bytes.ok


def test_inputs_and_arguments() -> None:
    _, path = OK[0]
    data = path.read_bytes()
    by_path = axt.normalize(path, run_id="r", clock=CLOCK).events
    assert axt.normalize(str(path.read_text()), run_id="r", clock=CLOCK).events == by_path
    assert axt.normalize(bytearray(data), run_id="r", clock=CLOCK).events == by_path
    assert axt.normalize(memoryview(data), run_id="r", clock=CLOCK).events == by_path
    with pytest.raises(axt.InputError):
        axt.normalize(Path("/no/such/file.jsonl"))
    with pytest.raises(ValueError, match="unknown provider"):
        axt.normalize(data, "claude-code")
    with pytest.raises(ValueError, match="clock"):
        axt.normalize(data, clock="yesterday")
    with pytest.raises(TypeError):
        axt.normalize(12)  # type: ignore[arg-type]
    result = axt.normalize(data)
    assert result.events is result.events
    assert repr(result).startswith("Normalized(")


def test_events_are_a_sequence_of_the_lines_dicts_made_on_access() -> None:
    """`.events` stands for the list of the JSONL's lines as dicts: every way of reading a
    list gives the same, each event is one dict however it is reached (a change to it
    stays), and a program that never touches an event makes none."""
    path = OK[0][1]
    result = axt.normalize(path, OK[0][0], RUN_ID, clock=CLOCK)
    expected = jsonl(result.jsonl())
    events = result.events
    assert isinstance(events, axt.Events)
    assert isinstance(events, collections.abc.Sequence)
    assert len(events) == len(expected) >= 3
    assert events == expected and expected == events and not events != expected
    assert events != expected[:-1] and events != expected[1:]
    assert list(events) == expected
    assert [event for event in events] == expected
    assert events[0] == expected[0] and events[-1] == expected[-1]
    assert events[1:3] == expected[1:3] and events[::-2] == expected[::-2]
    assert events[:] == expected and isinstance(events[:], list)
    assert list(reversed(events)) == expected[::-1]
    assert expected[1] in events and {"seq": 0} not in events
    assert events.index(expected[2]) == 2 and events.count(expected[0]) == 1
    assert repr(events) == repr(expected)
    assert json.dumps(list(events)) == json.dumps(expected)
    assert events[0] is events[0] and events[-1] is events[len(events) - 1]
    events[0]["changed"] = True
    assert result.events[0]["changed"] is True and next(iter(result.events)) is events[0]
    with pytest.raises(IndexError):
        events[len(events)]
    with pytest.raises(IndexError):
        events[-len(events) - 1]
    with pytest.raises(TypeError):
        events["seq"]  # type: ignore[call-overload]
    assert axt.normalize(b"", "claude", RUN_ID, clock=CLOCK).events == jsonl(
        axt.normalize(b"", "claude", RUN_ID, clock=CLOCK).jsonl())
