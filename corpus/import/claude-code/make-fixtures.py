#!/usr/bin/env python3
"""Writes the Claude Code session-log fixtures (corpus/import/claude-code/{ok,err}/).

Invented content in the shape Claude Code writes its logs (compact JSON, the field order of
real 2.0.x / 2.1.x entries, one content block per assistant entry); no capture is copied.
UUIDs are uuid5 of a name, so re-running the script gives the same bytes.
"""
import json
import os
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
NS = uuid.UUID("6f1c1d0e-5a1b-4c55-9c1e-0a6b0f3e9d21")
CWD = "/home/dev/shop"


def uid(name):
    return str(uuid.uuid5(NS, name))


def dump(path, entries):
    path = os.path.join(HERE, path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="\n") as f:
        for e in entries:
            f.write(e if isinstance(e, str) else json.dumps(e, separators=(",", ":"), ensure_ascii=False))
            f.write("\n")


class Session:
    def __init__(self, name, version="2.0.46", start=0):
        self.sid = uid("session-" + name)
        self.version = version
        self.clock = start
        self.name = name

    def ts(self):
        self.clock += 1
        s = self.clock
        return "2026-03-14T09:%02d:%02d.%03dZ" % (s // 60 % 60, s % 60, (s * 137) % 1000)

    def base(self, key, parent, typ, sidechain=False, agent=None, **extra):
        d = {"parentUuid": uid(self.name + parent) if parent else None, "isSidechain": sidechain,
             "userType": "external", "cwd": CWD, "sessionId": self.sid, "version": self.version,
             "gitBranch": "main"}
        if agent:
            d["agentId"] = agent
        d["type"] = typ
        d.update(extra)
        d["uuid"] = uid(self.name + key)
        d["timestamp"] = self.ts()
        return d

    def user(self, key, parent, content, **kw):
        extra = {k: kw.pop(k) for k in list(kw) if k in ("toolUseResult", "isMeta", "isCompactSummary")}
        d = self.base(key, parent, "user", message={"role": "user", "content": content}, **kw)
        for k, v in extra.items():
            d[k] = v
        return d

    def result(self, key, parent, tool_id, content, is_error=False, tool_use_result=None, **kw):
        block = {"tool_use_id": tool_id, "type": "tool_result", "content": content}
        if is_error:
            block["is_error"] = True
        return self.user(key, parent, [block], toolUseResult=tool_use_result if tool_use_result is not None else content, **kw)

    def assistant(self, key, parent, msg, block, out, inp=4, cw=0, cr=0, stop=None, **kw):
        usage = {"input_tokens": inp, "cache_creation_input_tokens": cw, "cache_read_input_tokens": cr,
                 "output_tokens": out, "service_tier": "standard"}
        message = {"id": msg, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                   "content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage}
        return self.base(key, parent, "assistant", message=message,
                         requestId="req_011C" + uid(msg)[:20].replace("-", "x"), **kw)


class Session21(Session):
    """Entries in the field order of Claude Code 2.1.x logs (2.1.33 to 2.1.47 as published in
    microsoft/vscode-copilot-chat's test fixtures and other public 2.1.x logs): `slug`,
    `caller` on tool_use blocks, `sourceToolAssistantUUID` on results, `progress` entries
    (hook_progress, bash_progress, agent_progress) with `parentToolUseID` / `toolUseID`; from
    2.1.85 on hooks write `attachment` entries instead of progress entries."""

    def __init__(self, name, version="2.1.47", start=0, slug="quiet-rolling-otter", sidechain=False, agent=None):
        super().__init__(name, version, start)
        self.slug = slug
        self.sidechain = sidechain
        self.agent = agent

    def head(self, parent):
        d = {"parentUuid": uid(self.name + parent) if parent else None, "isSidechain": self.sidechain,
             "userType": "external", "cwd": CWD, "sessionId": self.sid, "version": self.version,
             "gitBranch": "main"}
        if self.agent:
            d["agentId"] = self.agent
        d["slug"] = self.slug
        return d

    def user(self, key, parent, content, **extra):
        d = self.head(parent)
        d["type"] = "user"
        d["message"] = {"role": "user", "content": content}
        d["uuid"] = uid(self.name + key)
        d["timestamp"] = self.ts()
        d.update(extra)
        return d

    def result(self, key, parent, tool_id, content, tool_use_result=None, is_error=False):
        block = {"tool_use_id": tool_id, "type": "tool_result", "content": content}
        if is_error:
            block["is_error"] = True
        return self.user(key, parent, [block], toolUseResult=tool_use_result if tool_use_result is not None else content,
                         sourceToolAssistantUUID=uid(self.name + parent) if parent else None)

    def assistant(self, key, parent, msg, block, out, inp=1, cw=0, cr=0, stop=None):
        if block.get("type") == "tool_use":
            block = dict(block, caller={"type": "direct"})
        usage = {"input_tokens": inp, "cache_creation_input_tokens": cw, "cache_read_input_tokens": cr,
                 "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": cw},
                 "output_tokens": out, "service_tier": "standard", "inference_geo": "not_available"}
        d = self.head(parent)
        d["message"] = {"model": "claude-sonnet-4-6", "id": msg, "type": "message", "role": "assistant",
                        "content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage}
        d["requestId"] = "req_011C" + uid(msg)[:20].replace("-", "x")
        d["type"] = "assistant"
        d["uuid"] = uid(self.name + key)
        d["timestamp"] = self.ts()
        return d

    def progress(self, key, parent, tool_id, data, tool_use_id=None):
        d = self.head(parent)
        d["type"] = "progress"
        d["data"] = data
        d["parentToolUseID"] = tool_id
        d["toolUseID"] = tool_use_id or tool_id
        d["timestamp"] = self.ts()
        d["uuid"] = uid(self.name + key)
        return d

    def hook(self, key, parent, event, tool, tool_id):
        return self.progress(key, parent, tool_id, {"type": "hook_progress", "hookEvent": event,
                                                    "hookName": "%s:%s" % (event, tool), "command": "callback"})

    def attachment(self, key, parent, attachment):
        d = {"parentUuid": uid(self.name + parent) if parent else None, "isSidechain": self.sidechain,
             "attachment": attachment, "type": "attachment", "uuid": uid(self.name + key), "timestamp": self.ts(),
             "userType": "external", "entrypoint": "cli", "cwd": CWD, "sessionId": self.sid, "version": self.version,
             "gitBranch": "main", "slug": self.slug}
        if self.agent:
            d["agentId"] = self.agent
        return d

    def system(self, key, parent, subtype, **extra):
        d = self.head(parent)
        d["type"] = "system"
        d["subtype"] = subtype
        d.update(extra)
        d["uuid"] = uid(self.name + key)
        d["timestamp"] = self.ts()
        return d


def text(t):
    return {"type": "text", "text": t}


def tool(tid, name, inp):
    return {"type": "tool_use", "id": tid, "name": name, "input": inp}


# ---------------------------------------------------------------------------------------------
def sidechain_task():
    s = Session("sidechain")
    sc = dict(sidechain=True, agent="a7f3c2e1")
    e = []
    e.append({"type": "summary", "summary": "Rate limiter for the API", "leafUuid": uid("sidechaina8")})
    e.append(s.user("u1", None, "Add a rate limiter to the API; first check how middleware is wired."))
    e.append(s.assistant("a1", "u1", "msg_01Sc1AAAA", {"type": "thinking", "thinking": "Find the middleware registration first.", "signature": "EqQBCkYIBxgCKkDsig1"}, 10, cw=3100))
    e.append(s.assistant("a2", "a1", "msg_01Sc1AAAA", text("I'll have an explorer find where middleware is registered."), 25, cw=3100))
    e.append(s.assistant("a3", "a2", "msg_01Sc1AAAA", tool("toolu_01TaskAAAA", "Task", {"subagent_type": "Explore", "description": "Find middleware registration", "prompt": "Find how middleware is registered in src/"}), 182, cw=3100, stop="tool_use"))
    e.append(s.user("s1", None, "Find how middleware is registered in src/", **sc))
    e.append(s.assistant("s2", "s1", "msg_01Sc2BBBB", tool("toolu_01GrepBBBB", "Grep", {"pattern": "use_middleware", "path": "/home/dev/shop/src"}), 60, cw=900, stop="tool_use", **sc))
    e.append(s.result("s3", "s2", "toolu_01GrepBBBB", "src/app.py:12:app.use_middleware(auth)", **sc))
    e.append(s.assistant("s4", "s3", "msg_01Sc3CCCC", text("Middleware is registered in src/app.py line 12."), 31, cr=900, stop="end_turn", **sc))
    e.append(s.result("r1", "a3", "toolu_01TaskAAAA", [text("Middleware is registered in src/app.py line 12.")],
                      tool_use_result={"status": "completed", "prompt": "Find how middleware is registered in src/", "totalDurationMs": 4100, "totalTokens": 1891}, agent="a7f3c2e1"))
    e.append(s.assistant("a4", "r1", "msg_01Sc4DDDD", tool("toolu_01ReadDDDD", "Read", {"file_path": "/home/dev/shop/src/app.py"}), 48, cr=3100, stop="tool_use"))
    e.append(s.result("r2", "a4", "toolu_01ReadDDDD", "     1\tfrom shop import App, auth\n     2\tapp = App()\n    12\tapp.use_middleware(auth)\n",
                      tool_use_result={"type": "text", "file": {"filePath": "/home/dev/shop/src/app.py", "numLines": 3, "startLine": 1, "totalLines": 3}}))
    e.append(s.assistant("a5", "r2", "msg_01Sc5EEEE", tool("toolu_01EditEEEE", "Edit", {"file_path": "/home/dev/shop/src/app.py", "old_string": "app.use_middleware(auth)", "new_string": "app.use_middleware(auth)\napp.use_middleware(rate_limit)"}), 90, cr=3300, stop="tool_use"))
    e.append(s.result("r3", "a5", "toolu_01EditEEEE", "The file /home/dev/shop/src/app.py has been updated."))
    e.append(s.assistant("a6", "r3", "msg_01Sc6FFFF", tool("toolu_01WritFFFF", "Write", {"file_path": "/home/dev/shop/src/rate_limit.py", "content": "def rate_limit(request):\n    return request\n"}), 70, cr=3400, stop="tool_use"))
    e.append(s.result("r4", "a6", "toolu_01WritFFFF", "File created successfully at: /home/dev/shop/src/rate_limit.py"))
    e.append(s.assistant("a7", "r4", "msg_01Sc7GGGG", tool("toolu_01BashGGGG", "Bash", {"command": "pytest -q", "description": "Run the tests"}), 40, cr=3500, stop="tool_use"))
    e.append(s.result("r5", "a7", "toolu_01BashGGGG", "Exit code 1\n1 failed, 11 passed in 0.42s", is_error=True))
    e.append(s.assistant("a8", "r5", "msg_01Sc8HHHH", text("One test fails: test_limits expects a 429; I'll fix that next."), 33, cr=3600, stop="end_turn"))
    e.append(s.base("h1", "a8", "system", subtype="stop_hook_summary", content="Stop hook ran: 1 hook", level="info", isMeta=False))
    e.append({"type": "file-history-snapshot", "messageId": uid("sidechainu1"), "snapshot": {"messageId": uid("sidechainu1"), "trackedFileBackups": {}, "timestamp": "2026-03-14T09:00:01.137Z"}, "isSnapshotUpdate": False})
    e.append({"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-03-14T09:00:30.000Z", "content": "also update the docs", "sessionId": s.sid})
    dump("ok/sidechain-task-2.0-in-file.jsonl", e)


def sidechain_agent_id_on_user_entries():
    # Claude Code 2.0.46 as in daaain/claude-code-log test/test_data/sidechain_integrated.jsonl:
    # in a sidechain, the user entries (prompt, tool results) carry agentId, the assistant
    # entries do not; the main thread's Task result names the agent at the entry level.
    s = Session("agentid")
    a = dict(sidechain=True, agent="c3d4e5f6")
    n = dict(sidechain=True)
    e = []
    e.append(s.user("u1", None, "Is data-border-color still used anywhere?"))
    e.append(s.assistant("a1", "u1", "msg_01Ai1AAAA", tool("toolu_01TaskAiAA", "Task", {"subagent_type": "general-purpose", "description": "Find data-border-color uses", "prompt": "Find every use of data-border-color in the templates and the CSS"}), 150, cw=9000, stop="tool_use"))
    e.append(s.user("s1", None, "Find every use of data-border-color in the templates and the CSS", **a))
    e.append(s.assistant("s2", "s1", "msg_01AiS1BBBB", text("I'll search the templates and the stylesheets."), 20, cw=1900, **n))
    e.append(s.assistant("s3", "s2", "msg_01AiS1BBBB", tool("toolu_01GrepAiBB", "Grep", {"pattern": "data-border-color", "output_mode": "files_with_matches"}), 71, cw=1900, stop="tool_use", **n))
    e.append(s.result("s4", "s3", "toolu_01GrepAiBB", "Found 2 files\ntemplates/card.html\nstatic/card.css",
                      tool_use_result={"mode": "files_with_matches", "filenames": ["templates/card.html", "static/card.css"], "numFiles": 2}, **a))
    e.append(s.assistant("s5", "s4", "msg_01AiS2CCCC", tool("toolu_01ReadAiCC", "Read", {"file_path": "/home/dev/shop/static/card.css"}), 40, cr=1900, stop="tool_use", **n))
    e.append(s.result("s6", "s5", "toolu_01ReadAiCC", "     1\t.card[data-border-color] { border: 1px solid attr(data-border-color); }\n", **a))
    e.append(s.assistant("s7", "s6", "msg_01AiS3DDDD", text("Used in templates/card.html and static/card.css (a border rule)."), 25, cr=2000, stop="end_turn", **n))
    e.append(s.result("r1", "a1", "toolu_01TaskAiAA", [text("Used in templates/card.html and static/card.css (a border rule).")],
                      tool_use_result={"status": "completed", "prompt": "Find every use of data-border-color in the templates and the CSS", "totalDurationMs": 5200}, agent="c3d4e5f6"))
    e.append(s.assistant("a2", "r1", "msg_01Ai2EEEE", text("Yes: the card template and its stylesheet still use it."), 18, cr=9000, stop="end_turn"))
    dump("ok/sidechain-agent-id-on-user-entries-only.jsonl", e)


def rewind_and_hook_fork():
    s = Session("rewind")
    e = []
    e.append(s.user("u1", None, "Rename the helper to parse_args"))
    e.append(s.assistant("a1a", "u1", "msg_01Rw1AAAA", text("Let me find its uses."), 12, cw=2500))
    e.append(s.assistant("a1b", "a1a", "msg_01Rw1AAAA", tool("toolu_01GrepRwAA", "Bash", {"command": "grep -rn helper src", "description": "Find uses"}), 51, cw=2500, stop="tool_use"))
    e.append(s.result("r1", "a1b", "toolu_01GrepRwAA", "src/cli.py:3:def helper():\nsrc/main.py:8:helper()\n", tool_use_result={"stdout": "src/cli.py:3:def helper():\nsrc/main.py:8:helper()\n", "stderr": "", "interrupted": False}))
    e.append(s.assistant("a2", "r1", "msg_01Rw2BBBB", text("Found 2 uses. Shall I rename it?"), 14, cr=2500, stop="end_turn"))
    # The abandoned branch: the user answered, then rewound to a2 and answered differently.
    e.append(s.user("u2", "a2", "yes, go ahead"))
    e.append(s.assistant("a3", "u2", "msg_01Rw3CCCC", text("Renaming to parse_args now."), 9, cr=2600, stop="end_turn"))
    e.append(s.user("u3", "a2", "Actually, call it parse_cli instead"))
    # A hook message hung off the prompt, beside the reply (claude-code-trace #16).
    e.append(s.user("k1", "u3", "<user-prompt-submit-hook>lint: ok</user-prompt-submit-hook>", isMeta=True))
    e.append(s.assistant("a4a", "u3", "msg_01Rw4DDDD", text("Renaming helper to parse_cli."), 10, cr=2700))
    e.append(s.assistant("a4b", "a4a", "msg_01Rw4DDDD", tool("toolu_01EditRwDD", "Edit", {"file_path": "/home/dev/shop/src/cli.py", "old_string": "def helper():", "new_string": "def parse_cli():", "replace_all": False}), 64, cr=2700, stop="tool_use"))
    e.append(s.result("r2", "a4b", "toolu_01EditRwDD", "The file /home/dev/shop/src/cli.py has been updated."))
    e.append(s.assistant("a5", "r2", "msg_01Rw5EEEE", text("Done: helper is now parse_cli."), 11, cr=2800, stop="end_turn"))
    dump("ok/rewind-and-hook-fork.jsonl", e)


def compaction():
    s = Session("compact")
    e = []
    e.append(s.user("u1", None, "Summarize the failing tests"))
    e.append(s.assistant("a1", "u1", "msg_01Cp1AAAA", tool("toolu_01BashCpAA", "Bash", {"command": "pytest -q tests/", "description": "Run tests"}), 38, cw=4000, stop="tool_use"))
    e.append(s.result("r1", "a1", "toolu_01BashCpAA", "FAILED tests/test_login.py::test_expired - AssertionError\n1 failed, 30 passed"))
    e.append(s.assistant("a2", "r1", "msg_01Cp2BBBB", text("test_expired fails: expired tokens are accepted."), 22, cr=4000, stop="end_turn"))
    b = s.base("cb", None, "system", subtype="compact_boundary", content="Conversation compacted", isMeta=False, level="info",
               compactMetadata={"trigger": "auto", "preTokens": 155012})
    b["logicalParentUuid"] = uid("compacta2")
    e.append(b)
    e.append(s.user("u2", "cb", "This session is being continued from a previous conversation that ran out of context. Summary: test_expired fails because expired tokens are accepted.", isCompactSummary=True))
    e.append(s.user("u3", "u2", "Now fix test_expired"))
    e.append(s.assistant("a3", "u3", "msg_01Cp3CCCC", tool("toolu_01EditCpCC", "Edit", {"file_path": "/home/dev/shop/src/auth.py", "old_string": "return True", "new_string": "return token.expiry > now()"}), 70, cw=1200, stop="tool_use"))
    e.append(s.result("r2", "a3", "toolu_01EditCpCC", "The file /home/dev/shop/src/auth.py has been updated."))
    e.append(s.assistant("a4", "r2", "msg_01Cp4DDDD", text("Expired tokens are now rejected."), 12, cr=1200, stop="end_turn"))
    e.append({"type": "summary", "summary": "Failing login test", "leafUuid": uid("compacta2")})
    dump("ok/compaction-boundary-and-summary.jsonl", e)


def nested_subagents():
    s = Session("nested", version="2.1.19")
    sid = s.sid
    e = []
    e.append(s.user("u1", None, "Audit the payment module"))
    e.append(s.assistant("a1a", "u1", "msg_01Ns1AAAA", tool("toolu_01AgentNsA", "Agent", {"subagent_type": "general-purpose", "description": "Audit payments", "prompt": "Audit src/payments for unsafe float math"}), 120, cw=5000))
    e.append(s.assistant("a1b", "a1a", "msg_01Ns1AAAA", tool("toolu_01ReadNsAB", "Read", {"file_path": "/home/dev/shop/src/payments/README.md"}), 161, cw=5000, stop="tool_use"))
    e.append(s.result("r1", "a1b", "toolu_01ReadNsAB", "# Payments\nAmounts are in cents.\n"))
    # The Agent result hangs off its own call, not off the Read result: a parallel result.
    e.append(s.result("r2", "a1a", "toolu_01AgentNsA", [text("Two float uses: src/payments/fx.py and src/payments/tax.py.")],
                      tool_use_result={"status": "completed", "agentId": "b41c9e07", "totalTokens": 2210}))
    e.append(s.assistant("a2", "r1", "msg_01Ns2BBBB", text("The audit found float math in fx.py and tax.py."), 19, cr=5000, stop="end_turn"))
    dump("ok/nested-subagents/%s.jsonl" % sid, e)

    b = Session("nested-b", version="2.1.19", start=100)
    b.sid = sid
    sc = dict(sidechain=True, agent="b41c9e07")
    f = []
    f.append(b.user("u1", None, "Audit src/payments for unsafe float math", **sc))
    f.append(b.assistant("a1", "u1", "msg_01NsB1CCCC", tool("toolu_01TaskNsBC", "Task", {"subagent_type": "Explore", "description": "List float users", "prompt": "List every file in src/payments that uses float"}), 77, cw=1500, stop="tool_use", **sc))
    f.append(b.result("r1", "a1", "toolu_01TaskNsBC", [text("src/payments/fx.py, src/payments/tax.py")], tool_use_result={"status": "completed", "agentId": "c93d0a11"}, **sc))
    f.append(b.assistant("a2", "r1", "msg_01NsB2DDDD", text("Two float uses: src/payments/fx.py and src/payments/tax.py."), 24, cr=1500, stop="end_turn", **sc))
    dump("ok/nested-subagents/%s/subagents/agent-b41c9e07.jsonl" % sid, f)
    with open(os.path.join(HERE, "ok/nested-subagents/%s/subagents/agent-b41c9e07.meta.json" % sid), "w") as m:
        m.write(json.dumps({"agentType": "general-purpose", "description": "Audit payments"}) + "\n")

    c = Session("nested-c", version="2.1.19", start=200)
    c.sid = sid
    sc = dict(sidechain=True, agent="c93d0a11")
    g = []
    g.append(c.user("u1", None, "List every file in src/payments that uses float", **sc))
    g.append(c.assistant("a1", "u1", "msg_01NsC1EEEE", tool("toolu_01TaskNsCE", "Task", {"subagent_type": "Explore", "description": "Check tax.py", "prompt": "Does src/payments/tax.py round with float?"}), 52, cw=800, stop="tool_use", **sc))
    # No agentId on this result: the third level is linked by its prompt.
    g.append(c.result("r1", "a1", "toolu_01TaskNsCE", [text("Yes: round(amount * 1.2, 2).")], tool_use_result={"status": "completed"}, **sc))
    g.append(c.assistant("a2", "r1", "msg_01NsC2FFFF", text("src/payments/fx.py, src/payments/tax.py"), 18, cr=800, stop="end_turn", **sc))
    dump("ok/nested-subagents/%s/subagents/agent-c93d0a11.jsonl" % sid, g)

    d = Session("nested-d", version="2.1.19", start=300)
    d.sid = sid
    sc = dict(sidechain=True, agent="d2e8f4b6")
    h = []
    h.append(d.user("u1", None, "Does src/payments/tax.py round with float?", **sc))
    h.append(d.assistant("a1", "u1", "msg_01NsD1GGGG", tool("toolu_01GrepNsDG", "Grep", {"pattern": "round\\(", "path": "/home/dev/shop/src/payments/tax.py"}), 41, cw=600, stop="tool_use", **sc))
    h.append(d.result("r1", "a1", "toolu_01GrepNsDG", "12:    return round(amount * 1.2, 2)", **sc))
    h.append(d.assistant("a2", "r1", "msg_01NsD2HHHH", text("Yes: round(amount * 1.2, 2)."), 13, cr=600, stop="end_turn", **sc))
    dump("ok/nested-subagents/%s/subagents/agent-d2e8f4b6.jsonl" % sid, h)


def parallel_calls():
    s = Session("parallel", version="2.1.19")
    e = []
    e.append(s.user("u1", None, "Why does checkout fail on an empty cart? Look at the handler, its test and the log."))
    e.append(s.assistant("a1", "u1", "msg_01Pa1AAAA", text("I'll read the handler, find the test and look at the log at once."), 28, cw=4200))
    # One message, three parallel calls: a chain of entries, one tool_use each, same
    # message.id and requestId.
    e.append(s.assistant("a2", "a1", "msg_01Pa1AAAA", tool("toolu_01ReadPaAA", "Read", {"file_path": "/home/dev/shop/src/checkout.py"}), 96, cw=4200))
    e.append(s.assistant("a3", "a2", "msg_01Pa1AAAA", tool("toolu_01GrepPaBB", "Grep", {"pattern": "def test_empty_cart", "path": "/home/dev/shop/tests", "output_mode": "content"}), 161, cw=4200))
    e.append(s.assistant("a4", "a3", "msg_01Pa1AAAA", tool("toolu_01BashPaCC", "Bash", {"command": "tail -n 3 logs/checkout.log", "description": "Show the end of the checkout log"}), 230, cw=4200, stop="tool_use"))
    # The results in the order the tools finished, each hung off its own call's entry.
    e.append(s.result("r1", "a2", "toolu_01ReadPaAA", "     1\tdef checkout(cart):\n     2\t    total = sum(i.price for i in cart.items) / len(cart.items)\n",
                      tool_use_result={"type": "text", "file": {"filePath": "/home/dev/shop/src/checkout.py", "content": "def checkout(cart):\n    total = sum(i.price for i in cart.items) / len(cart.items)\n", "numLines": 2, "startLine": 1, "totalLines": 2}}))
    e.append(s.result("r3", "a4", "toolu_01BashPaCC", "ZeroDivisionError: division by zero\n  File \"src/checkout.py\", line 2, in checkout",
                      tool_use_result={"stdout": "ZeroDivisionError: division by zero\n  File \"src/checkout.py\", line 2, in checkout", "stderr": "", "interrupted": False, "isImage": False}))
    e.append(s.result("r2", "a3", "toolu_01GrepPaBB", "tests/test_checkout.py:14:def test_empty_cart():",
                      tool_use_result={"mode": "content", "numFiles": 0, "filenames": [], "content": "tests/test_checkout.py:14:def test_empty_cart():", "numLines": 1}))
    # The conversation goes on from the result written last (Grep's): the Bash call's entry
    # and its result are off that parentUuid chain, yet part of the same turn.
    e.append(s.assistant("a5", "r2", "msg_01Pa2BBBB", text("An empty cart divides by zero in checkout(): the average price needs a guard."), 41, cr=4200, stop="end_turn"))
    dump("ok/parallel-calls-results-off-their-own-calls.jsonl", e)


def parallel_calls_off_hook_progress():
    # Claude Code 2.1.38 to 2.1.84 write hook progress into the log (anthropics/claude-code
    # #35024, fixed in 2.1.85) and start each tool as soon as its block is complete: one
    # message's parallel calls are entries that hang off whatever was written last, a
    # PreToolUse hook_progress of the call before, or the result of a sibling call that has
    # finished already. The next message goes on from one entry of the batch.
    s = Session21("hookfork", version="2.1.47", slug="gentle-humming-lantern")
    e = []
    e.append(s.user("u1", None, "The nightly export got slow. Check its config, the query plan and where it builds the batch."))
    e.append(s.assistant("a1", "u1", "msg_01Hp1AAAA", text("I'll read the config, explain the query and find the batch code at once."), 30, cw=5200))
    e.append(s.assistant("a2", "a1", "msg_01Hp1AAAA", tool("toolu_01ReadHpAA", "Read", {"file_path": "/home/dev/shop/config/export.toml"}), 88, cw=5200))
    e.append(s.hook("p1", "a2", "PreToolUse", "Read", "toolu_01ReadHpAA"))
    # The Bash call hangs off the Read call's PreToolUse hook progress.
    e.append(s.assistant("a3", "p1", "msg_01Hp1AAAA", tool("toolu_01BashHpBB", "Bash", {"command": "psql -c 'EXPLAIN ANALYZE SELECT * FROM orders WHERE exported = false'", "description": "Explain the export query"}), 170, cw=5200))
    e.append(s.hook("p2", "a3", "PreToolUse", "Bash", "toolu_01BashHpBB"))
    e.append(s.result("r1", "a2", "toolu_01ReadHpAA", "     1\t[export]\n     2\tbatch_size = 50000\n",
                      tool_use_result={"type": "text", "file": {"filePath": "/home/dev/shop/config/export.toml", "content": "[export]\nbatch_size = 50000\n", "numLines": 2, "startLine": 1, "totalLines": 2}}))
    e.append(s.hook("p3", "r1", "PostToolUse", "Read", "toolu_01ReadHpAA"))
    # The Grep call was written after the Read had finished: it hangs off the Read's result.
    e.append(s.assistant("a4", "r1", "msg_01Hp1AAAA", tool("toolu_01GrepHpCC", "Grep", {"pattern": "def build_batch", "path": "/home/dev/shop/src", "output_mode": "content"}), 231, cw=5200, stop="tool_use"))
    e.append(s.hook("p4", "a4", "PreToolUse", "Grep", "toolu_01GrepHpCC"))
    e.append(s.progress("b1", "p2", "toolu_01BashHpBB", {"type": "bash_progress", "output": "", "fullOutput": "", "elapsedTimeSeconds": 3, "totalLines": 0}, tool_use_id="bash-progress-0"))
    e.append(s.result("r2", "a4", "toolu_01GrepHpCC", "src/export/batch.py:12:def build_batch(rows):",
                      tool_use_result={"mode": "content", "numFiles": 0, "filenames": [], "content": "src/export/batch.py:12:def build_batch(rows):", "numLines": 1}))
    e.append(s.hook("p5", "r2", "PostToolUse", "Grep", "toolu_01GrepHpCC"))
    e.append(s.result("r3", "a3", "toolu_01BashHpBB", "Seq Scan on orders  (cost=0.00..48211.00 rows=2100000)\n  Filter: (NOT exported)\nExecution Time: 4120.771 ms",
                      tool_use_result={"stdout": "Seq Scan on orders  (cost=0.00..48211.00 rows=2100000)\n  Filter: (NOT exported)\nExecution Time: 4120.771 ms", "stderr": "", "interrupted": False, "isImage": False}))
    e.append(s.hook("p6", "r3", "PostToolUse", "Bash", "toolu_01BashHpBB"))
    # The conversation goes on from the Read result's PostToolUse progress: the Bash and
    # Grep calls, their results and their hooks are all off that parentUuid chain.
    e.append(s.assistant("a5", "p3", "msg_01Hp2BBBB", text("The export scans all 2.1M orders: `exported` has no index, and batches of 50,000 rows are built in build_batch()."), 44, cr=5200, stop="end_turn"))
    # A real rewind: the user answered, then went back and edited that prompt (a second
    # prompt with the same parent); the first answer's branch is abandoned.
    e.append(s.user("u2", "a5", "Add an index on orders.exported"))
    e.append(s.assistant("a6", "u2", "msg_01Hp3CCCC", tool("toolu_01EditHpDD", "Edit", {"file_path": "/home/dev/shop/migrations/0051_orders_exported.sql", "old_string": "", "new_string": "CREATE INDEX orders_exported ON orders (exported);"}), 61, cr=5600, stop="tool_use"))
    e.append(s.result("r4", "a6", "toolu_01EditHpDD", "The file /home/dev/shop/migrations/0051_orders_exported.sql has been updated."))
    e.append(s.assistant("a7", "r4", "msg_01Hp4DDDD", text("Added the index."), 6, cr=5700, stop="end_turn"))
    e.append(s.user("u3", "a5", "Actually, make it a partial index on the rows not exported yet"))
    e.append(s.assistant("a8", "u3", "msg_01Hp5EEEE", tool("toolu_01EditHpEE", "Edit", {"file_path": "/home/dev/shop/migrations/0051_orders_exported.sql", "old_string": "", "new_string": "CREATE INDEX orders_not_exported ON orders (id) WHERE NOT exported;"}), 70, cr=5600, stop="tool_use"))
    e.append(s.hook("p7", "a8", "PreToolUse", "Edit", "toolu_01EditHpEE"))
    e.append(s.result("r5", "a8", "toolu_01EditHpEE", "The file /home/dev/shop/migrations/0051_orders_exported.sql has been updated."))
    e.append(s.hook("p8", "r5", "PostToolUse", "Edit", "toolu_01EditHpEE"))
    e.append(s.assistant("a9", "p8", "msg_01Hp6FFFF", text("Added a partial index on the orders not exported yet."), 12, cr=5800, stop="end_turn"))
    dump("ok/parallel-calls-hung-off-hook-progress-and-sibling-results.jsonl", e)


def parallel_calls_off_hook_attachments():
    # From Claude Code 2.1.85 hooks are logged as `attachment` entries (hook_success) rather
    # than progress; they fork the parentUuid chain the same way (2.1.83's changelog: "hook
    # progress/attachment messages forking the parentUuid chain"). A Skill call's body is a
    # user entry (isMeta, sourceToolUseID naming the call) hung off the call's result; here
    # the Skill runs beside a Bash call and the conversation goes on from the Bash result, so
    # the body is off the chain. Then an auto-compaction, and a second batch whose call hangs
    # off the first call's hook attachment.
    s = Session21("hookattach", version="2.1.92", slug="brisk-folding-heron")
    skill = "toolu_01SkillHaAA"
    hook = lambda key, parent, event, name, tid: s.attachment(key, parent, {
        "type": "hook_success", "hookName": "%s:%s" % (event, name), "toolUseID": tid, "hookEvent": event,
        "content": "", "stdout": "", "stderr": "", "exitCode": 0, "command": "/home/dev/.claude/hooks/audit.sh", "durationMs": 14})
    e = []
    e.append(s.user("u1", None, "Review the payment retry change with the code-review skill; show me the diff too."))
    e.append(s.assistant("a1", "u1", "msg_01Ha1AAAA", tool(skill, "Skill", {"skill": "code-review", "args": "payment retry change"}), 40, cw=7300))
    e.append(hook("t1", "a1", "PreToolUse", "Skill", skill))
    # The Bash call hangs off the Skill call's PreToolUse hook attachment.
    e.append(s.assistant("a2", "t1", "msg_01Ha1AAAA", tool("toolu_01BashHaBB", "Bash", {"command": "git diff main -- src/payments/retry.py", "description": "Show the retry diff"}), 95, cw=7300, stop="tool_use"))
    e.append(s.result("r1", "a1", skill, "Launching skill: code-review", tool_use_result={"success": True, "commandName": "code-review"}))
    body = s.user("k1", "r1", [text("Base directory for this skill: /home/dev/.claude/skills/code-review\n\n# Code review\nCheck error paths, retries and idempotency first.")], isMeta=True, sourceToolUseID=skill)
    e.append(body)
    e.append(s.result("r2", "a2", "toolu_01BashHaBB", "-    for attempt in range(3):\n+    for attempt in range(retries):\n         charge(card)",
                      tool_use_result={"stdout": "-    for attempt in range(3):\n+    for attempt in range(retries):\n         charge(card)", "stderr": "", "interrupted": False, "isImage": False}))
    e.append(hook("t2", "r2", "PostToolUse", "Bash", "toolu_01BashHaBB"))
    e.append(s.assistant("a3", "t2", "msg_01Ha2BBBB", text("The retry loop charges the card again on every attempt: a retry after a timeout can charge twice. It needs an idempotency key."), 52, cr=7300, stop="end_turn"))
    b = s.system("cb", None, "compact_boundary", content="Conversation compacted", isMeta=False, level="info",
                 compactMetadata={"trigger": "auto", "preTokens": 161204})
    b["logicalParentUuid"] = uid("hookattacha3")
    e.append(b)
    e.append(s.user("cs", "cb", "This session is being continued from a previous conversation that ran out of context. Summary: the payment retry charges twice after a timeout; an idempotency key is needed.", isCompactSummary=True))
    e.append(s.user("u2", "cs", "Add the idempotency key and run the payment tests"))
    e.append(s.assistant("a4", "u2", "msg_01Ha3CCCC", tool("toolu_01EditHaCC", "Edit", {"file_path": "/home/dev/shop/src/payments/retry.py", "old_string": "charge(card)", "new_string": "charge(card, idempotency_key=key)"}), 71, cw=2400))
    e.append(hook("t3", "a4", "PreToolUse", "Edit", "toolu_01EditHaCC"))
    # After the compaction, the second call of a batch hangs off the first call's hook again.
    e.append(s.assistant("a5", "t3", "msg_01Ha3CCCC", tool("toolu_01BashHaDD", "Bash", {"command": "pytest -q tests/payments", "description": "Run the payment tests"}), 118, cw=2400, stop="tool_use"))
    e.append(s.result("r3", "a4", "toolu_01EditHaCC", "The file /home/dev/shop/src/payments/retry.py has been updated."))
    e.append(s.result("r4", "a5", "toolu_01BashHaDD", "14 passed in 1.92s",
                      tool_use_result={"stdout": "14 passed in 1.92s", "stderr": "", "interrupted": False, "isImage": False}))
    e.append(hook("t4", "r4", "PostToolUse", "Bash", "toolu_01BashHaDD"))
    e.append(s.assistant("a6", "r3", "msg_01Ha4DDDD", text("Every retry now sends the same idempotency key; the payment tests pass."), 17, cr=2400, stop="end_turn"))
    dump("ok/parallel-calls-hung-off-hook-attachments-skill-body-compaction.jsonl", e)


def background_agents_off_agent_progress():
    # Background agents (Agent with run_in_background, 2.1.x): the launch result comes back
    # at once (`async_launched`, naming the agent), the main log mirrors the agent's work as
    # agent_progress entries hung off its call, and the second Agent call of the same message
    # hangs off the first agent's progress. The agents' own logs (subagents/agent-<id>.jsonl)
    # have the same parallel shapes: a call hung off a hook progress, another off a sibling's
    # result. The completions come back as <task-notification> messages.
    s = Session21("bgagents", version="2.1.47", slug="steady-winding-brook")
    sid = s.sid
    login, signup = "a4f1c2d9e8b7a6c5d", "a9e8d7c6b5a4f3e2d"
    prompts = {login: "Profile POST /login and say where the time goes",
               signup: "Profile POST /signup and say where the time goes"}
    e = []
    e.append(s.user("u1", None, "Login and signup are slow. Profile both, one agent each, in the background."))
    e.append(s.assistant("a1", "u1", "msg_01Bg1AAAA", text("I'll start one background agent per endpoint."), 21, cw=6100))
    e.append(s.assistant("a2", "a1", "msg_01Bg1AAAA", tool("toolu_01AgentBgAA", "Agent", {"description": "Profile login", "prompt": prompts[login], "subagent_type": "general-purpose", "run_in_background": True}), 140, cw=6100))
    e.append(s.progress("g1", "a2", "toolu_01AgentBgAA", {"type": "agent_progress", "agentId": login, "prompt": prompts[login],
                        "message": {"type": "user", "message": {"role": "user", "content": [text(prompts[login])]}, "uuid": uid("bgagents-login-u1"), "timestamp": "2026-03-14T09:00:03.411Z"},
                        "normalizedMessages": []}, tool_use_id="agent_msg_01BgLoginAA"))
    # The second Agent call hangs off the first agent's progress entry.
    e.append(s.assistant("a3", "g1", "msg_01Bg1AAAA", tool("toolu_01AgentBgBB", "Agent", {"description": "Profile signup", "prompt": prompts[signup], "subagent_type": "general-purpose", "run_in_background": True}), 262, cw=6100, stop="tool_use"))
    for key, parent, call, agent, desc in (("r1", "a2", "toolu_01AgentBgAA", login, "Profile login"), ("r2", "a3", "toolu_01AgentBgBB", signup, "Profile signup")):
        e.append(s.result(key, parent, call, [text("Async agent launched successfully.\nagentId: %s (use this to resume or check on the agent)" % agent)],
                          tool_use_result={"isAsync": True, "status": "async_launched", "agentId": agent, "description": desc, "prompt": prompts[agent],
                                           "outputFile": "/tmp/claude/tasks/%s.output" % agent, "canReadOutputFile": True}))
    e.append(s.progress("g2", "g1", "toolu_01AgentBgAA", {"type": "agent_progress", "agentId": login, "prompt": prompts[login],
                        "message": {"type": "assistant", "message": {"role": "assistant", "content": [tool("toolu_01ReadBlAA", "Read", {"file_path": "/home/dev/shop/src/auth/login.py"})]}, "uuid": uid("bgagents-login-a1"), "timestamp": "2026-03-14T09:00:05.102Z"},
                        "normalizedMessages": []}, tool_use_id="agent_msg_01BgLoginBB"))
    # The conversation goes on from the first launch result: the second Agent call and its
    # result are off that chain.
    e.append(s.assistant("a4", "r1", "msg_01Bg2BBBB", text("Both agents are running; I'll report when they finish."), 15, cr=6100, stop="end_turn"))
    e.append(s.system("d1", "a4", "turn_duration", durationMs=4100, isMeta=False))
    e.append(s.user("n1", "d1", "<task-notification>\n<task-id>%s</task-id>\n<tool-use-id>toolu_01AgentBgAA</tool-use-id>\n<status>completed</status>\n<summary>Agent \"Profile login\" completed</summary>\n<result>bcrypt with cost 14 takes 1.1 s of the 1.3 s.</result>\n</task-notification>" % login))
    e.append(s.assistant("a5", "n1", "msg_01Bg3CCCC", text("Login: bcrypt at cost 14 takes 1.1 s of 1.3 s."), 19, cr=6300, stop="end_turn"))
    e.append(s.user("n2", "a5", "<task-notification>\n<task-id>%s</task-id>\n<tool-use-id>toolu_01AgentBgBB</tool-use-id>\n<status>completed</status>\n<summary>Agent \"Profile signup\" completed</summary>\n<result>The welcome email is sent inline: 900 ms of SMTP.</result>\n</task-notification>" % signup))
    e.append(s.assistant("a6", "n2", "msg_01Bg4DDDD", text("Signup: the welcome email is sent inline, 900 ms of SMTP. Lower the bcrypt cost to 12 and send the email from a queue."), 31, cr=6400, stop="end_turn"))
    dump("ok/background-agents-parallel-calls-off-agent-progress/%s.jsonl" % sid, e)

    def agent_log(agent, entries, description):
        base = "ok/background-agents-parallel-calls-off-agent-progress/%s/subagents/agent-%s" % (sid, agent)
        dump(base + ".jsonl", entries)
        with open(os.path.join(HERE, base + ".meta.json"), "w") as m:
            m.write(json.dumps({"agentType": "general-purpose", "description": description}) + "\n")

    x = Session21("bgagents-login", version="2.1.47", start=100, slug="steady-winding-brook", sidechain=True, agent=login)
    x.sid = sid
    f = []
    f.append(x.user("u1", None, prompts[login]))
    f.append(x.assistant("a1", "u1", "msg_01BgL1EEEE", tool("toolu_01ReadBlAA", "Read", {"file_path": "/home/dev/shop/src/auth/login.py"}), 60, cw=1800))
    f.append(x.hook("p1", "a1", "PreToolUse", "Read", "toolu_01ReadBlAA"))
    f.append(x.assistant("a2", "p1", "msg_01BgL1EEEE", tool("toolu_01BashBlBB", "Bash", {"command": "py-spy record -d 5 -o /tmp/login.svg -- python bench/login.py", "description": "Profile the login handler"}), 121, cw=1800, stop="tool_use"))
    f.append(x.result("r1", "a1", "toolu_01ReadBlAA", "     1\tdef login(form):\n     2\t    user = users.get(form.email)\n     3\t    bcrypt.checkpw(form.password, user.hash)\n"))
    f.append(x.hook("p2", "r1", "PostToolUse", "Read", "toolu_01ReadBlAA"))
    f.append(x.result("r2", "a2", "toolu_01BashBlBB", "bcrypt.checkpw: 84% (1.10 s of 1.31 s)",
                      tool_use_result={"stdout": "bcrypt.checkpw: 84% (1.10 s of 1.31 s)", "stderr": "", "interrupted": False, "isImage": False}))
    f.append(x.assistant("a3", "p2", "msg_01BgL2FFFF", text("bcrypt with cost 14 takes 1.1 s of the 1.3 s."), 16, cr=1800, stop="end_turn"))
    agent_log(login, f, "Profile login")

    y = Session21("bgagents-signup", version="2.1.47", start=200, slug="steady-winding-brook", sidechain=True, agent=signup)
    y.sid = sid
    g = []
    g.append(y.user("u1", None, prompts[signup]))
    g.append(y.assistant("a1", "u1", "msg_01BgS1GGGG", tool("toolu_01ReadBsAA", "Read", {"file_path": "/home/dev/shop/src/auth/signup.py"}), 58, cw=1700))
    g.append(y.result("r1", "a1", "toolu_01ReadBsAA", "     1\tdef signup(form):\n     2\t    user = users.create(form)\n     3\t    mail.send_welcome(user)\n"))
    # Written once the Read had finished: the second call hangs off its sibling's result.
    g.append(y.assistant("a2", "r1", "msg_01BgS1GGGG", tool("toolu_01BashBsBB", "Bash", {"command": "py-spy record -d 5 -o /tmp/signup.svg -- python bench/signup.py", "description": "Profile the signup handler"}), 119, cw=1700, stop="tool_use"))
    g.append(y.hook("p1", "a2", "PreToolUse", "Bash", "toolu_01BashBsBB"))
    g.append(y.result("r2", "a2", "toolu_01BashBsBB", "smtplib.SMTP.sendmail: 69% (0.90 s of 1.30 s)",
                      tool_use_result={"stdout": "smtplib.SMTP.sendmail: 69% (0.90 s of 1.30 s)", "stderr": "", "interrupted": False, "isImage": False}))
    g.append(y.assistant("a3", "r1", "msg_01BgS2HHHH", text("The welcome email is sent inline: 900 ms of SMTP."), 14, cr=1700, stop="end_turn"))
    agent_log(signup, g, "Profile signup")


def compaction_lost_parent():
    s = Session("lostparent", version="2.1.19")
    sid = s.sid
    e = []
    e.append(s.user("u1", None, "Move the orders table to the v2 schema"))
    e.append(s.assistant("a1", "u1", "msg_01Lp1AAAA", tool("toolu_01AgentLpA", "Agent", {"subagent_type": "Explore", "description": "Map the orders table", "prompt": "List every column of the orders table and where the code uses it"}), 140, cw=6000, stop="tool_use"))
    e.append(s.result("r1", "a1", "toolu_01AgentLpA", [text("orders has id, customer_id, total_cents, status; status is read in src/orders/report.py.")],
                      tool_use_result={"status": "completed", "agentId": "f1e2d3c4", "totalTokens": 3120}))
    e.append(s.assistant("a2", "r1", "msg_01Lp2BBBB", tool("toolu_01BashLpBB", "Bash", {"command": "alembic revision -m 'orders v2'", "description": "Create the migration"}), 52, cr=6000, stop="tool_use"))
    e.append(s.result("r2", "a2", "toolu_01BashLpBB", "Generating migrations/versions/0042_orders_v2.py ...  done",
                      tool_use_result={"stdout": "Generating migrations/versions/0042_orders_v2.py ...  done", "stderr": "", "interrupted": False, "isImage": False}))
    e.append(s.assistant("a3", "r2", "msg_01Lp3CCCC", tool("toolu_01EditLpCC", "Edit", {"file_path": "/home/dev/shop/migrations/versions/0042_orders_v2.py", "old_string": "    pass", "new_string": "    op.add_column('orders', sa.Column('currency', sa.String(3)))"}), 88, cr=6100, stop="tool_use"))
    e.append(s.result("r3", "a3", "toolu_01EditLpCC", "The file /home/dev/shop/migrations/versions/0042_orders_v2.py has been updated."))
    e.append(s.assistant("a4", "r3", "msg_01Lp4DDDD", text("The migration adds a currency column."), 15, cr=6200, stop="end_turn"))
    # The boundary's logical parent was never written to this file.
    b = s.base("cb", None, "system", subtype="compact_boundary", content="Conversation compacted", isMeta=False, level="info",
               compactMetadata={"trigger": "auto", "preTokens": 167433})
    b["logicalParentUuid"] = uid("lostparent-never-written")
    e.append(b)
    e.append(s.user("cs", "cb", "This session is being continued from a previous conversation that ran out of context. Summary: a migration adding orders.currency was written.", isCompactSummary=True))
    e.append(s.user("u2", "cs", "Now apply it"))
    e.append(s.assistant("a5", "u2", "msg_01Lp5EEEE", tool("toolu_01BashLpEE", "Bash", {"command": "alembic upgrade head", "description": "Apply the migration"}), 40, cw=2100, stop="tool_use"))
    e.append(s.result("r5", "a5", "toolu_01BashLpEE", "INFO  Running upgrade 0041 -> 0042, orders v2",
                      tool_use_result={"stdout": "INFO  Running upgrade 0041 -> 0042, orders v2", "stderr": "", "interrupted": False, "isImage": False}))
    e.append(s.assistant("a6", "r5", "msg_01Lp6FFFF", text("Applied: orders now has a currency column."), 12, cr=2100, stop="end_turn"))
    dump("err/compaction-logical-parent-outside-file/%s.jsonl" % sid, e)

    x = Session("lostparent-x", version="2.1.19", start=400)
    x.sid = sid
    sc = dict(sidechain=True, agent="f1e2d3c4")
    f = []
    f.append(x.user("u1", None, "List every column of the orders table and where the code uses it", **sc))
    f.append(x.assistant("a1", "u1", "msg_01LpX1GGGG", tool("toolu_01GrepLpXG", "Grep", {"pattern": "orders\\.", "path": "/home/dev/shop/src", "output_mode": "files_with_matches"}), 45, cw=900, stop="tool_use", **sc))
    f.append(x.result("r1", "a1", "toolu_01GrepLpXG", "Found 1 file\nsrc/orders/report.py", **sc))
    f.append(x.assistant("a2", "r1", "msg_01LpX2HHHH", text("orders has id, customer_id, total_cents, status; status is read in src/orders/report.py."), 30, cr=900, stop="end_turn", **sc))
    dump("err/compaction-logical-parent-outside-file/%s/subagents/agent-f1e2d3c4.jsonl" % sid, f)


def workflow_agent_nested():
    # The Workflow tool's layout as daaain/claude-code-log models it (test/test_data/
    # workflow_scriptpath, 2.1.x): agent logs in subagents/workflows/<run>/ with a
    # journal.jsonl beside them; the async launch's result names the run, not the agent.
    s = Session("workflow", version="2.1.2")
    sid = s.sid
    e = []
    e.append(s.user("u1", None, "Run the docs sweep workflow"))
    e.append(s.assistant("a1", "u1", "msg_01Wf1AAAA", tool("toolu_01WorkflowA", "Workflow", {"scriptPath": "/home/dev/sweeps/docs-sweep.workflow.js", "args": {"target": "docs/"}}), 60, cw=3000, stop="tool_use"))
    e.append(s.result("r1", "a1", "toolu_01WorkflowA", "Workflow launched in background. Task ID: task_wf01",
                      tool_use_result={"isAsync": True, "status": "async_launched", "runId": "wf_01", "taskId": "task_wf01", "transcriptDir": "%s/subagents/workflows/wf_01" % sid}))
    e.append(s.assistant("a2", "r1", "msg_01Wf2BBBB", text("The sweep runs in the background."), 12, cr=3000, stop="end_turn"))
    dump("err/workflow-agent-log-nested-in-subagents/%s.jsonl" % sid, e)
    w = Session("workflow-w", version="2.1.2", start=500)
    w.sid = sid
    sc = dict(sidechain=True, agent="wf01ag01")
    f = []
    f.append(w.user("u1", None, "Sweep docs/ for stale pages", **sc))
    f.append(w.assistant("a1", "u1", "msg_01WfW1CCCC", tool("toolu_01GlobWfCC", "Glob", {"pattern": "docs/**/*.md"}), 30, cw=800, stop="tool_use", **sc))
    f.append(w.result("r1", "a1", "toolu_01GlobWfCC", "docs/index.md\ndocs/old-api.md", **sc))
    f.append(w.assistant("a2", "r1", "msg_01WfW2DDDD", text("docs/old-api.md is stale."), 14, cr=800, stop="end_turn", **sc))
    run = "err/workflow-agent-log-nested-in-subagents/%s/subagents/workflows/wf_01/" % sid
    dump(run + "agent-wf01ag01.jsonl", f)
    with open(os.path.join(HERE, run + "agent-wf01ag01.meta.json"), "w") as m:
        m.write(json.dumps({"agentType": "workflow-subagent"}) + "\n")
    dump(run + "journal.jsonl", [{"type": "started", "key": "v2:sweep0", "agentId": "wf01ag01"},
                                 {"type": "result", "key": "v2:sweep0", "agentId": "wf01ag01", "result": "docs/old-api.md is stale."}])


def dynamic_workflow(outcome, name, missing_agent=False):
    # A dynamic workflow that ran to its end (claude-code-log's workflow.py and test data,
    # 2.1.x): the journal (started/result per agent), two agents' logs with .meta.json, and
    # the snapshot workflows/<runId>.json written at the end (status, phases, progress).
    s = Session("workflow-" + name, version="2.1.2")
    sid = s.sid
    e = []
    e.append(s.user("u1", None, "Sweep the docs with the workflow"))
    e.append(s.assistant("a1", "u1", "msg_01Dw1AAAA", tool("toolu_01WorkflowD", "Workflow", {"scriptPath": "/home/dev/sweeps/docs-sweep.workflow.js", "args": {"batches": ["a", "b"]}}), 60, cw=3000, stop="tool_use"))
    e.append(s.result("r1", "a1", "toolu_01WorkflowD", "Workflow launched in background. Task ID: task_dw01",
                      tool_use_result={"isAsync": True, "status": "async_launched", "runId": "wf_dw01", "taskId": "task_dw01", "transcriptDir": "%s/subagents/workflows/wf_dw01" % sid}))
    e.append(s.assistant("a2", "r1", "msg_01Dw2BBBB", text("The sweep is done: two stale pages."), 14, cr=3000, stop="end_turn"))
    dump("%s/%s/%s.jsonl" % (outcome, name, sid), e)
    run = "%s/%s/%s/subagents/workflows/wf_dw01/" % (outcome, name, sid)
    agents = [("dwag0001", "sweep:a", "docs/old-api.md is stale."), ("dwag0002", "sweep:b", "docs/v1.md is stale.")]
    for n, (agent, label, answer) in enumerate(agents):
        if missing_agent and n == 1:
            continue
        w = Session("workflow-%s-%s" % (name, agent), version="2.1.2", start=500 + 100 * n)
        w.sid = sid
        sc = dict(sidechain=True, agent=agent)
        f = [w.user("u1", None, "Sweep docs batch %s for stale pages" % label[-1], **sc),
             w.assistant("a1", "u1", "msg_01%sAA" % agent, tool("toolu_01Glob%s" % agent, "Glob", {"pattern": "docs/%s/**/*.md" % label[-1]}), 30, cw=800, stop="tool_use", **sc),
             w.result("r1", "a1", "toolu_01Glob%s" % agent, "docs/old-api.md\ndocs/v1.md", **sc),
             w.assistant("a2", "r1", "msg_01%sBB" % agent, text(answer), 14, cr=800, stop="end_turn", **sc)]
        dump(run + "agent-%s.jsonl" % agent, f)
        with open(os.path.join(HERE, run + "agent-%s.meta.json" % agent), "w") as m:
            m.write(json.dumps({"agentType": "workflow-subagent"}) + "\n")
    journal = []
    for agent, label, _ in agents:
        journal.append({"type": "started", "key": "v2:" + label, "agentId": agent})
    for agent, label, answer in agents:
        journal.append({"type": "result", "key": "v2:" + label, "agentId": agent, "result": answer})
    dump(run + "journal.jsonl", journal)
    snapshot = {"runId": "wf_dw01", "taskId": "task_dw01", "status": "completed", "workflowName": "docs-sweep",
                "timestamp": "2026-03-14T09:00:05.000Z", "durationMs": 2400, "agentCount": 2, "totalTokens": 1688,
                "totalToolCalls": 2, "defaultModel": "claude-sonnet-4-6",
                "script": "export const meta = {\n  name: 'docs-sweep',\n  phases: [{ title: 'Sweep' }],\n}\n",
                "scriptPath": "/home/dev/sweeps/docs-sweep.workflow.js", "args": {"batches": ["a", "b"]},
                "summary": "Sweep the docs tree in batches", "result": "2 stale pages: docs/old-api.md, docs/v1.md",
                "phases": [{"title": "Sweep", "detail": "one agent per batch"}],
                "workflowProgress": [{"type": "workflow_phase", "index": 1, "title": "Sweep"}] + [
                    {"type": "workflow_agent", "index": n, "label": label, "phaseIndex": 1, "phaseTitle": "Sweep",
                     "agentId": agent, "model": "claude-sonnet-4-6", "state": "done", "attempt": 1, "tokens": 844,
                     "toolCalls": 1, "durationMs": 900, "resultPreview": answer[:20]}
                    for n, (agent, label, answer) in enumerate(agents)]}
    path = os.path.join(HERE, "%s/%s/%s/workflows/wf_dw01.json" % (outcome, name, sid))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(json.dumps(snapshot, indent=2) + "\n")


def simplified():
    e = [
        {"role": "user", "content": "Fix the bug in auth.ts"},
        {"type": "text", "text": "I'll analyze the auth module..."},
        {"type": "tool_use", "id": "toolu_01SeedAAAA", "name": "Read", "input": {"file_path": "/src/auth.ts"}},
        {"type": "tool_result", "tool_use_id": "toolu_01SeedAAAA", "output": "export function check(token) { return true }", "is_error": False},
        {"role": "assistant", "content": [{"type": "text", "text": "The token validation ignores expiry."},
                                          {"type": "tool_use", "id": "toolu_01SeedBBBB", "name": "Edit", "input": {"file_path": "/src/auth.ts", "old_string": "return true", "new_string": "return !expired(token)"}}]},
        {"type": "tool_result", "output": "File edited successfully", "is_error": False},
        {"type": "tool_use", "name": "Bash", "input": {"command": "npm test"}},
        {"type": "tool_result", "output": "All tests passed", "is_error": False},
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        {"type": "text", "text": "I've fixed the bug and verified tests pass."},
        {"type": "stop", "stop_reason": "end_turn", "success": True},
        {"type": "result", "result": "Task completed successfully", "success": True},
    ]
    dump("ok/simplified-seed-format.jsonl", e)


def seed_transcripts_layout():
    # The seed's layout: {project}/{session-id}/transcripts/{agent-id}.jsonl, each agent a file
    # of its own in the seed's event format; two sessions that both have an agent-a.jsonl.
    base = "ok/seed-transcripts-layout/%s/transcripts/%s.jsonl"
    one = uid("seed-session-one")
    dump(base % (one, "agent-a"), [
        {"role": "user", "content": "Add input validation to the signup form"},
        {"type": "text", "text": "I'll have a helper list the form's fields first."},
        {"type": "tool_use", "id": "toolu_01SdOneAAAA", "name": "Task", "input": {"prompt": "List the fields of the signup form in src/forms/signup.ts", "run_in_background": False}},
        {"type": "tool_result", "tool_use_id": "toolu_01SdOneAAAA", "output": "email, password, display_name", "is_error": False},
        {"type": "tool_use", "id": "toolu_01SdOneBBBB", "name": "Edit", "input": {"file_path": "/src/forms/signup.ts", "old_string": "fields: [email, password, display_name]", "new_string": "fields: [email, password, display_name].map(required)"}},
        {"type": "tool_result", "tool_use_id": "toolu_01SdOneBBBB", "output": "File edited successfully", "is_error": False},
        {"type": "text", "text": "Every signup field is now required."},
        {"type": "stop", "stop_reason": "end_turn", "success": True},
    ])
    dump(base % (one, "agent-b"), [
        {"role": "user", "content": "List the fields of the signup form in src/forms/signup.ts"},
        {"type": "tool_use", "id": "toolu_01SdOneCCCC", "name": "Read", "input": {"file_path": "/src/forms/signup.ts"}},
        {"type": "tool_result", "tool_use_id": "toolu_01SdOneCCCC", "output": "export const signup = form({ fields: [email, password, display_name] })", "is_error": False},
        {"type": "text", "text": "email, password, display_name"},
        {"type": "stop", "stop_reason": "end_turn", "success": True},
    ])
    # In the second session the root is agent-b: which agent is the root comes from the
    # calls, not from the file names.
    two = uid("seed-session-two")
    dump(base % (two, "agent-a"), [
        {"role": "user", "content": "Read the last nightly CI log and say which step failed"},
        {"type": "tool_use", "id": "toolu_01SdTwoAAAA", "name": "Bash", "input": {"command": "gh run view --log-failed", "description": "Show the failed steps"}},
        {"type": "tool_result", "tool_use_id": "toolu_01SdTwoAAAA", "output": "lint  src/ci.ts:1:8  'fs' is defined but never used", "is_error": False},
        {"type": "text", "text": "The lint step failed: an unused import in src/ci.ts."},
        {"type": "stop", "stop_reason": "end_turn", "success": True},
    ])
    dump(base % (two, "agent-b"), [
        {"role": "user", "content": "Why is the nightly build red?"},
        {"type": "tool_use", "id": "toolu_01SdTwoBBBB", "name": "Task", "input": {"prompt": "Read the last nightly CI log and say which step failed"}},
        {"type": "tool_result", "tool_use_id": "toolu_01SdTwoBBBB", "output": "The lint step failed: an unused import in src/ci.ts.", "is_error": False},
        {"type": "text", "text": "The nightly build fails at lint: an unused import in src/ci.ts."},
        {"type": "result", "result": "Nightly failure explained", "success": True},
    ])


def broken():
    s = Session("broken")
    e = []
    e.append(s.user("u1", None, "Check the deploy script"))
    e.append(s.assistant("a1", "u1", "msg_01Br1AAAA", tool("toolu_01BashBrAA", "Bash", {"command": "bash -n deploy.sh"}), 30, cw=2000, stop="tool_use"))
    e.append('{"parentUuid":"' + uid("brokena1") + '","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01Bash')
    # A result for a call that is not in the log.
    e.append(s.result("r2", "a1", "toolu_01NeverSeen", "ok"))
    # A sidechain nobody spawned: no Task call names it or sent its prompt.
    sc = dict(sidechain=True, agent="e5f60718")
    e.append(s.user("s1", None, "Warm up the cache", **sc))
    e.append(s.assistant("s2", "s1", "msg_01Br2BBBB", text("Cache warmed."), 5, cw=100, stop="end_turn", **sc))
    e.append(s.assistant("a2", "r2", "msg_01Br3CCCC", text("The script parses."), 8, cr=2000, stop="end_turn"))
    dump("err/torn-line-orphan-result-unlinked-sidechain.jsonl", e)


def not_a_session_log():
    # An empty file where a session log was expected.
    dump("err/empty-session-log.jsonl", [])
    # `claude -p --output-format stream-json --verbose` output (2.1.x record shapes: snake
    # case session_id, no parentUuid / sessionId) handed to the importer by mistake.
    sid = uid("stream-json-session")
    init = {"type": "system", "subtype": "init", "cwd": CWD, "session_id": sid, "tools": ["Task", "Bash", "Edit", "Read"],
            "mcp_servers": [], "model": "claude-sonnet-4-6", "permissionMode": "default", "apiKeySource": "none",
            "claude_code_version": "2.1.30", "output_style": "default", "uuid": uid("sj-init")}
    msg = {"id": "msg_01SjAAAA", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
           "content": [tool("toolu_01SjBashAA", "Bash", {"command": "git status --short", "description": "Show changes"})],
           "stop_reason": None, "stop_sequence": None,
           "usage": {"input_tokens": 4, "cache_creation_input_tokens": 3900, "cache_read_input_tokens": 0, "output_tokens": 60, "service_tier": "standard"}}
    assistant = {"type": "assistant", "message": msg, "parent_tool_use_id": None, "session_id": sid, "uuid": uid("sj-a1")}
    result_block = {"tool_use_id": "toolu_01SjBashAA", "type": "tool_result", "content": " M src/app.py", "is_error": False}
    user = {"type": "user", "message": {"role": "user", "content": [result_block]}, "parent_tool_use_id": None,
            "session_id": sid, "uuid": uid("sj-u1"), "tool_use_result": {"stdout": " M src/app.py", "stderr": "", "interrupted": False, "isImage": False}}
    result = {"type": "result", "subtype": "success", "is_error": False, "duration_ms": 4211, "duration_api_ms": 3977,
              "num_turns": 2, "result": "One file changed: src/app.py.", "session_id": sid, "total_cost_usd": 0.0163,
              "usage": {"input_tokens": 8, "cache_creation_input_tokens": 3900, "cache_read_input_tokens": 3900, "output_tokens": 81},
              "uuid": uid("sj-result")}
    dump("err/stream-json-not-a-session-log.jsonl", [init, assistant, user, result])


if __name__ == "__main__":
    sidechain_task()
    sidechain_agent_id_on_user_entries()
    rewind_and_hook_fork()
    compaction()
    nested_subagents()
    parallel_calls()
    parallel_calls_off_hook_progress()
    parallel_calls_off_hook_attachments()
    background_agents_off_agent_progress()
    compaction_lost_parent()
    workflow_agent_nested()
    dynamic_workflow("ok", "dynamic-workflow-journal-snapshot-2.1")
    dynamic_workflow("err", "dynamic-workflow-agent-transcript-missing-2.1", missing_agent=True)
    simplified()
    seed_transcripts_layout()
    broken()
    not_a_session_log()
