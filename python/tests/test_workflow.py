"""The executor's seam: `axt.Run` and its scopes, checked by the wheel's `axt check`."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import axt
from conftest import CORPUS, ROOT, jsonl, replay_agent, run_cli

CLAUDE = CORPUS / "normalize" / "claude" / "ok" / "plain-session-thinking-text-bash.jsonl"


def events_of(path) -> list:
    return jsonl(Path(path).read_bytes())


def check(dir: Path) -> dict:
    files = sorted(str(p) for p in dir.glob("*.jsonl"))
    done = run_cli("check", "--json", *files)
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["clean"], done.stderr.decode()
    return report


def test_a_workflow_with_every_step_kind_passes_axt_check(tmp_path: Path) -> None:
    with axt.Run(tmp_path, name="release") as run:
        with run.step("plan", kind="agent") as step:
            agent = step.agent("claude", prompt="List the sources.", system_prompt="Be brief.")
            agent.feed(CLAUDE.read_bytes())
            with agent.tool("jira_lookup", call_id="r-1", input={"key": "OPS-1"}) as call:
                call.result({"status": "open"})
            agent.follow_up("And the tests?")
            meta = agent.finish(exit_code=0)
            assert meta["status"] == "completed"
        with run.step("checks", kind="parallel") as parallel:
            threads = [
                threading.Thread(target=lambda n=n: parallel.step(n).done())
                for n in ("branch_a", "branch_b")
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        with run.step("files", kind="for_each") as files:
            for i, name in enumerate(["a.rs", "b.rs"]):
                with files.step("lint", iteration=i) as lint:
                    lint.complete({"file": name})
        with run.step("poll", kind="while") as poll:
            for i in range(2):
                poll.step("probe", kind="operation", iteration=i).complete({"try": i})
        run.step("approval", kind="human_approval").complete({"approved": True})
        with run.step("build", kind="call_workflow") as build:
            with build.call_workflow("build-pipeline") as child:
                assert child.parent_run_id == run.run_id
                with child.step("test", kind="call_workflow") as test:
                    with test.call_workflow("test-suite") as grandchild:
                        grandchild.step("unit", kind="command").done()
        with pytest.raises(RuntimeError):
            with run.step("deploy", kind="command"):
                raise RuntimeError("registry refused the push")
        with run.step("deploy", kind="command", iteration=1) as deploy:
            with deploy.tool("shell", input={"cmd": "push"}) as call:
                call.result("pushed", exit_code=0)
        run.step("publish", kind="operation").complete({"release": "v1"})
        run.step("done", kind="terminal").done()
    assert run.has_ended
    report = check(tmp_path)
    assert len(report["files"]) == 3
    kinds = {
        e["payload"]["kind"] for e in events_of(run.path) if e["type"] == "step.started"
    }
    assert set(axt.STEP_KINDS) <= kinds | {"while", "terminal"}
    assert "human_approval" in kinds
    tree = axt.tree(run.path)
    assert tree.clean and tree["root"]["status"] == "completed"
    failed = [
        e for e in events_of(run.path)
        if e["type"] == "step.completed" and e["payload"].get("error")
    ]
    assert [(e["path"], e["payload"]["error"]) for e in failed] == [
        ("deploy", "registry refused the push")
    ]


def test_an_exception_in_a_run_fails_it_with_its_message_and_goes_on(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="bad config"):
        with axt.Run(tmp_path, run_id="r1", name="ci") as run:
            step = run.step("outer")
            step.step("inner")  # left open: the run's end closes it, failed
            raise ValueError("bad config")
    events = events_of(tmp_path / "r1.jsonl")
    last = events[-1]
    assert last["type"] == "run.completed" and last["payload"]["error"] == "bad config"
    assert all(
        e["payload"].get("error") for e in events if e["type"] == "step.completed"
    )
    check(tmp_path)


def test_an_exception_in_a_tool_call_records_its_error(tmp_path: Path) -> None:
    with axt.Run(tmp_path, run_id="r2") as run:
        with run.step("fetch", kind="operation") as step:
            with pytest.raises(TimeoutError):
                with step.tool("http_get", call_id="c1", input={"url": "x"}):
                    raise TimeoutError("no answer in 30 s")
            with step.tool("http_get", call_id="c2") as call:
                pass  # no result, no exception: the call succeeded without output
            assert call.call_id == "c2"
            auto = step.tool("noop")
            assert auto.call_id.startswith("call_")
            auto.error("")
    results = [e for e in events_of(tmp_path / "r2.jsonl") if e["type"] == "tool.result"]
    assert [r["payload"].get("error") for r in results] == [
        "no answer in 30 s", None, "the tool failed"
    ]
    check(tmp_path)


def test_scopes_used_out_of_turn_raise_step_errors(tmp_path: Path) -> None:
    run = axt.Run(tmp_path, run_id="r3")
    step = run.step("a")
    with pytest.raises(axt.StepError, match="already running"):
        run.step("a")
    with pytest.raises(axt.StepError, match="invalid step name"):
        run.step("a.b")
    with pytest.raises(axt.StepError, match="only an `agent` step"):
        step.agent("claude")
    with pytest.raises(axt.StepError, match="has ended"):
        step.done()
    with pytest.raises(axt.StepError):
        run.step("b").call_workflow("child")
    call_step = run.step("c", kind="operation")
    call_step.tool("t", call_id="same").result(1)
    with pytest.raises(axt.StepError, match="already has a tool call"):
        call_step.tool("t", call_id="same")
    call_step.done()
    with pytest.raises(ValueError):
        run.step("d").agent("nobody")
    with pytest.raises(TypeError):
        run.step("e").complete(object())
    run.done()
    with pytest.raises(axt.StepError, match="has ended"):
        run.step("late")
    with pytest.raises(axt.StepError, match="has ended"):
        run.done()
    check(tmp_path)
    with pytest.raises(axt.RecordError):
        axt.Run(tmp_path, run_id="../escape")


def test_a_live_agent_captured_from_popen(tmp_path: Path) -> None:
    with axt.Run(tmp_path, run_id="live", name="review") as run:
        subscription = run.subscribe()
        with run.step("review", kind="agent") as step:
            agent = step.agent("claude", prompt="Review main.go.", router_tools="none")
            process = subprocess.Popen(
                [sys.executable, str(replay_agent()), str(CLAUDE), "--splits", "3"],
                stdout=subprocess.PIPE,
            )
            assert process.stdout is not None
            agent.feed_from(process.stdout)
            meta = agent.finish(exit_code=process.wait())
        assert meta["status"] == "completed"
        assert step.is_open is False
    live = list(subscription)
    recorded = events_of(tmp_path / "live.jsonl")
    # Subscribed after run.started: everything after it, run.completed included.
    assert live == recorded[1:]
    whole = axt.normalize(CLAUDE)
    messages = lambda events: [  # noqa: E731
        e["payload"]["blocks"] for e in events if e["type"] == "message.assistant"
    ]
    assert messages(recorded) == messages(whole.events)
    check(tmp_path)


def test_an_agent_killed_by_a_signal_fails_its_step(tmp_path: Path) -> None:
    with axt.Run(tmp_path, run_id="killed") as run:
        with run.step("review", kind="agent") as step:
            with step.agent("claude") as agent:
                process = subprocess.Popen(
                    [sys.executable, str(replay_agent()), str(CLAUDE),
                     "--kill-self-after-line", "2"],
                    stdout=subprocess.PIPE,
                )
                while chunk := process.stdout.read1(100):  # type: ignore[union-attr]
                    agent.feed(chunk)
                meta = agent.finish(exit_code=process.wait())
    # The metadata says how the process ended, as the step's error does.
    assert meta["status"] == "failed"
    assert meta["process"] == {"signal": 9}
    completed = [
        e for e in events_of(tmp_path / "killed.jsonl") if e["type"] == "step.completed"
    ]
    assert "signal 9" in completed[0]["payload"]["error"]
    check(tmp_path)


def test_an_exception_while_an_agent_runs_ends_its_step_failed(tmp_path: Path) -> None:
    with pytest.raises(KeyboardInterrupt):
        with axt.Run(tmp_path, run_id="interrupted") as run:
            with run.step("review", kind="agent") as step:
                agent = step.agent("claude", prompt="Go.")
                agent.feed(CLAUDE.read_bytes()[:300])
                raise KeyboardInterrupt()
    events = events_of(tmp_path / "interrupted.jsonl")
    completed = [e for e in events if e["type"] == "step.completed"]
    assert completed[0]["payload"]["error"].startswith("KeyboardInterrupt")
    assert events[-1]["payload"]["error"] == "KeyboardInterrupt"
    check(tmp_path)


def test_many_threads_open_branches_at_once(tmp_path: Path) -> None:
    with axt.Run(tmp_path, run_id="threads") as run:
        with run.step("fan", kind="parallel") as fan:
            def branch(i: int) -> None:
                with fan.step(f"b{i}") as b:
                    for j in range(20):
                        with b.tool("t", call_id=f"{i}-{j}") as call:
                            call.result(j)
            threads = [threading.Thread(target=branch, args=(i,)) for i in range(8)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    report = check(tmp_path)
    assert report["files"][0]["events"] == 2 + 2 + 8 * 2 + 8 * 20 * 2


def test_the_example_executor_records_a_popen_agent_and_prints_the_tree(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[1] / "examples" / "executor.py"
    done = subprocess.run(
        [sys.executable, str(example), str(tmp_path), "--",
         sys.executable, str(replay_agent()), str(CLAUDE)],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "step agent [agent] completed" in done.stdout
    assert "tool Bash (" in done.stdout
    check(tmp_path)


def test_an_acp_agent_driven_by_its_step(tmp_path: Path) -> None:
    """axt as the ACP client of the stand-in agent of the Rust tests, replaying the shared
    scenario: the step records the exchange, the permission decision is on the call."""
    stand_in = ROOT / "tests" / "axt" / "support" / "acp-agent.py"
    exchange = CORPUS / "normalize" / "acp" / "ok" / "shared-scenario-shell-command.jsonl"
    work = tmp_path / "work"
    work.mkdir()
    with axt.Run(tmp_path, run_id="acp", name="count") as run:
        with run.step("count", kind="agent") as step:
            meta = step.agent("acp").converse_acp(
                [sys.executable, str(stand_in), str(exchange)],
                "How many Rust files are in src?",
                permission="allow",
                workdir=str(work),
            )
    assert meta["status"] == "completed"
    assert meta["agent"] == "gemini-cli"
    blocks = [
        b
        for e in events_of(tmp_path / "acp.jsonl")
        if e["type"] == "message.assistant"
        for b in e["payload"]["blocks"]
    ]
    calls = [b for b in blocks if b["type"] == "tool_use"]
    assert [c["permission"]["decision"] for c in calls] == ["allowed"]
    assert blocks[-1]["text"] == "There are 12 Rust files in src."
    check(tmp_path)
