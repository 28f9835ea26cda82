#!/usr/bin/env python3
"""Regenerate the transcript fixtures (every file but ok/plain-run.jsonl).

Several fixtures are about raw bytes (CRLF, invalid UTF-8, a final line without LF) that an
editor would silently repair, so they are all written from here, deterministically:

    python3 corpus/read/transcript/make-fixtures.py

corpus/read/transcript/README.md describes each file.
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def dump(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


class Run:
    """Builds one run's lines with seq from 1 and a clock that ticks 250 ms per event."""

    def __init__(self, run_id, parent=None, start=0):
        self.run_id, self.parent, self.lines, self.ms = run_id, parent, [], start
        self.count = 0  # events written by event(); lines inserted by hand are not events

    def event(self, type_, path="", payload=None, child=None, iteration=0, seq=None, run_id=None):
        self.count += 1
        env = {"seq": seq if seq is not None else self.count, "run_id": run_id or self.run_id}
        if self.parent:
            env["parent_run_id"] = self.parent
        if child:
            env["child_run_id"] = child
        self.ms += 250
        env.update(
            type=type_,
            path=path,
            iteration=iteration,
            timestamp="2026-06-08T08:%02d:%02d.%03dZ" % (self.ms // 60000, self.ms // 1000 % 60, self.ms % 1000),
            payload=payload,
        )
        self.lines.append(dump(env))
        return self

    def step(self, type_, path, kind, name=None, error=None, result=None, **kw):
        payload = {"name": name or path, "kind": kind}
        if error:
            payload["error"] = error
        if result is not None:
            payload["result"] = result
        return self.event(type_, path, payload, **kw)

    def text(self, role, path, text):
        block = {"type": "text", "fidelity": "router" if role == "user" else "agent_emitted", "text": text}
        return self.event("message." + role, path, {"role": role, "blocks": [block]})

    def tool(self, path, name, call_id, error=None):
        self.event("tool.call", path, {"name": name, "call_id": call_id, "input": {"cmd": name},
                                       "output": None, "fidelity": "agent_emitted"})
        result = {"name": name, "call_id": call_id, "input": None, "output": "done", "fidelity": "agent_emitted"}
        if error:
            result["error"] = error
        return self.event("tool.result", path, result)

    def agent_step(self, path, prompt, tools=()):
        self.step("step.started", path, "agent")
        self.text("user", path, prompt)
        for name, call_id, error in tools:
            self.tool(path, name, call_id, error)
        self.text("assistant", path, "Done.")
        return self.step("step.completed", path, "agent")

    def completed(self, name, status="completed", error=None, usage=None, cost=None, duration=None):
        result = {"provider": "claude", "status": status,
                  "usage": usage or {"input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0,
                                     "cache_write_tokens": 0, "reasoning_tokens": 0}}
        if cost is not None:
            result["cost_usd"] = cost
        if duration is not None:
            result["duration_ms"] = duration
        return self.step("run.completed", "", "workflow", name=name, error=error, result=result)

    def write(self, relative, end="\n", tail=b""):
        path = os.path.join(HERE, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write((end.join(self.lines) + end).encode() + tail)


def call(run, path, child, kind="call_workflow"):
    run.step("step.started", path, kind)
    run.step("step.call_workflow.started", path, kind, child=child)
    return run


def call_done(run, path, child, kind="call_workflow", error=None):
    run.step("step.call_workflow.completed", path, kind, child=child, error=error)
    return run.step("step.completed", path, kind, error=error)


# ok/nested: three levels, call_workflow at each level, a loop with two iterations.
usage = {"input_tokens": 1200, "output_tokens": 340, "cache_read_tokens": 5000,
         "cache_write_tokens": 800, "reasoning_tokens": 120}
root = Run("nest-root").step("run.started", "", "workflow", name="release")
root.agent_step("plan", "Plan the release.", [("Read", "call-1", None)])
call(root, "build", "nest-child")
child = Run("nest-child", parent="nest-root", start=2000).step("run.started", "", "workflow", name="build")
for i in range(2):
    child.step("step.started", "compile", "while", iteration=i)
    child.step("step.started", "compile.cc", "command", iteration=i)
    child.tool("compile.cc", "Bash", "cc-%d" % i, "exit status 1" if i == 0 else None)
    child.step("step.completed", "compile.cc", "command", iteration=i,
               error="exit status 1" if i == 0 else None)
    child.step("step.completed", "compile", "while", iteration=i)
call(child, "test", "nest-grandchild")
grand = Run("nest-grandchild", parent="nest-child", start=4000).step("run.started", "", "workflow", name="test")
grand.agent_step("unit", "Run the unit tests.", [("Bash", "t-1", None), ("Read", "t-2", None)])
grand.completed("test", usage=usage, cost=0.0421, duration=1500)
call_done(child, "test", "nest-grandchild")
child.completed("build", usage=usage, cost=0.0103)
call_done(root, "build", "nest-child")
root.completed("release", usage=usage, cost=0.25, duration=9000)
root.write("ok/nested/nest-root.jsonl")
child.write("ok/nested/nest-child.jsonl")
grand.write("ok/nested/nest-grandchild.jsonl")

# ok/crlf-run.jsonl: a clean run written with CRLF line endings.
crlf = Run("crlf-run").step("run.started", "", "workflow", name="crlf")
crlf.agent_step("review", "Review it.", [("Grep", "g-1", None)])
crlf.completed("crlf")
crlf.write("ok/crlf-run.jsonl", end="\r\n")


def simple(run_id):
    run = Run(run_id).step("run.started", "", "workflow", name=run_id)
    return run.agent_step("work", "Do it.", [("Bash", "b-1", None)])


# err/: one problem kind each.
run = simple("invalid-json")
run.lines.insert(3, '{"seq":4,"run_id":"invalid-json","type":')  # cut short, with its LF
run.lines.insert(5, "[SandboxDebug] not json at all")
run.lines.insert(6, '{"hello":"valid JSON, not an event"}')
run.completed("invalid-json").write("err/invalid-json.jsonl")

run = simple("invalid-utf8")
run.lines[2] = run.lines[2].replace("Do it.", "Do it \udcff.").encode("utf-8", "surrogateescape").decode("latin-1")
run.completed("invalid-utf8")
with open(os.path.join(HERE, "err/invalid-utf8.jsonl"), "wb") as f:
    f.write(b"".join(line.encode("latin-1") + b"\n" for line in run.lines))

run = simple("torn-final-line").completed("torn-final-line")
torn = run.lines.pop()
run.write("err/torn-final-line.jsonl", tail=torn[:70].encode())

run = simple("unknown-event-type")
run.event("step.paused", "work", {"name": "work", "kind": "agent"})
run.completed("unknown-event-type").write("err/unknown-event-type.jsonl")

run = simple("unknown-block-type")
run.event("message.assistant", "work", {"role": "assistant", "blocks": [
    {"type": "image", "fidelity": "agent_emitted", "media_type": "image/png", "data": "iVBORw0KGgo="},
    {"type": "text", "fidelity": "agent_emitted", "text": "A picture."}]})
run.completed("unknown-block-type").write("err/unknown-block-type.jsonl")

run = simple("seq-gap")
run.lines = [l.replace('"seq":%d,' % n, '"seq":%d,' % (n + 2)) if n >= 4 else l
             for n, l in enumerate(run.lines, 1)]
run.count += 2
run.completed("seq-gap").write("err/seq-gap.jsonl")

run = simple("seq-repeat-regression")
run.lines.append(run.lines[-1])  # a line written twice: repeat
run.count -= 1  # the regressing line below takes no new number
run.event("message.assistant", "work", {"role": "assistant", "blocks": [
    {"type": "text", "fidelity": "agent_emitted", "text": "late"}]}, seq=3)  # goes back
run.completed("seq-repeat-regression", ).write("err/seq-repeat-regression.jsonl")

run = simple("run-id-mismatch")
run.text("assistant", "work", "from another run")
run.lines[-1] = run.lines[-1].replace('"run_id":"run-id-mismatch"', '"run_id":"someone-else"')
run.completed("run-id-mismatch").write("err/run-id-mismatch.jsonl")

# The same run recorded twice into one file, as `axt normalize --out DIR` did before it
# refused an existing run: the recorder continued the file, seq and run_id and all, so only
# the second run.started after the run.completed shows it.
run = simple("second-run").completed("second-run")
run.step("run.started", "", "workflow", name="second-run")
run.agent_step("work", "Do it.", [("Bash", "b-1", None)])
run.completed("second-run").write("err/second-run.jsonl")

# err/links: a root with a missing child, a child naming another parent, a cycle, an orphan.
root = Run("links-root").step("run.started", "", "workflow", name="links")
for path, child_id in [("a", "links-missing"), ("b", "links-wrong-parent"), ("c", "links-loop")]:
    call(root, path, child_id)
    call_done(root, path, child_id)
root.completed("links").write("err/links/links-root.jsonl")
wrong = Run("links-wrong-parent", parent="someone-else").step("run.started", "", "workflow", name="wrong")
wrong.completed("wrong").write("err/links/links-wrong-parent.jsonl")
loop = Run("links-loop", parent="links-root").step("run.started", "", "workflow", name="loop")
call(loop, "again", "links-root")
call_done(loop, "again", "links-root")
loop.completed("loop").write("err/links/links-loop.jsonl")
orphan = Run("links-orphan", parent="links-root").step("run.started", "", "workflow", name="orphan")
orphan.completed("orphan").write("err/links/links-orphan.jsonl")
