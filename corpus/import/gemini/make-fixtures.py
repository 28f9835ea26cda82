#!/usr/bin/env python3
"""Writes the Gemini CLI saved-session corpus: invented sessions in the shape of real
`~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl` files, their sub-agents'
`chats/<session id>/<agent>.jsonl`, the older single-document `session-*.json`, and the
chats `/chat save` keeps (`tmp/<project>/checkpoint-<tag>.json`).

Shapes: gemini-cli's ChatRecordingService records (the metadata record `{sessionId,
projectHash, startTime, lastUpdated, kind}`, message records `{id, timestamp, type, content,
thoughts, tokens, model, toolCalls}` written again whole as a message grows, `{"$set": ...}`,
`{"$rewindTo": id}`), as the gemini-cli docs (docs/cli/session-management.md) and readers of
them (tokscale, agentsview-like peers) describe them; the saved chat as gemini-cli's
logger.ts writes it (`{history: Content[]}`). No capture is copied. Each fixture is a
directory laid out as `~/.gemini/tmp/` is. Re-run to regenerate byte for byte.
"""

import json
import os
import shutil
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
NS = uuid.UUID("6c1e0f7a-2b4d-4e8a-9c3f-5a7b9d1e3f20")
PROJECT = "9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f1a3c5e7b9d0f"


def uid(name):
    return str(uuid.uuid5(NS, name))


def line(value):
    return json.dumps(value, separators=(",", ":"))


class Chat:
    def __init__(self, name, start, kind="main"):
        self.session = uid(name)
        self.lines = [line({"sessionId": self.session, "projectHash": PROJECT, "startTime": start,
                            "lastUpdated": start, "kind": kind, "directories": ["/home/dev/shop"]})]

    def add(self, value):
        self.lines.append(line(value))

    def write(self, root, name=None, tail=""):
        name = name or f"session-2026-07-01T10-00-{self.session[:8]}.jsonl"
        path = os.path.join(root, "tmp", PROJECT, "chats", name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:
            out.write("".join(l + "\n" for l in self.lines) + tail)
        return path


def user(mid, ts, text):
    return {"id": mid, "timestamp": ts, "type": "user", "content": [{"text": text}]}


def gemini(mid, ts, text="", calls=None, tokens=None, thoughts=None):
    message = {"id": mid, "timestamp": ts, "type": "gemini", "content": text,
               "thoughts": thoughts or [], "model": "gemini-2.5-pro"}
    if calls is not None:
        message["toolCalls"] = calls
    if tokens is not None:
        message["tokens"] = tokens
    return message


def tokens(inp, out, cached=0, thoughts=0, tool=0):
    return {"input": inp, "output": out, "cached": cached, "thoughts": thoughts, "tool": tool,
            "total": inp + out + thoughts + tool}


def call(cid, name, args, ts, status="scheduled", output=None):
    c = {"id": cid, "name": name, "args": args, "status": status, "timestamp": ts,
         "displayName": name, "description": "", "renderOutputAsMarkdown": False}
    if output is not None:
        c["result"] = [{"functionResponse": {"id": cid, "name": name, "response": {"output": output}}}]
        c["resultDisplay"] = output
    return c


def rewritten(root):
    """One gemini message written three times: scheduled, answered, counted."""
    chat = Chat("rewritten", "2026-07-01T10:00:00.000Z")
    chat.add(user("u1", "2026-07-01T10:00:01.000Z", "Which tests fail?"))
    thought = [{"subject": "Running the tests", "description": "I should run the suite first.",
                "timestamp": "2026-07-01T10:00:02.000Z"}]
    shell = {"command": "make test", "description": "run the tests"}
    chat.add(gemini("g1", "2026-07-01T10:00:02.500Z", "", [call("run_shell_command-1", "run_shell_command", shell,
                                                                  "2026-07-01T10:00:02.500Z")], thoughts=thought))
    chat.add(gemini("g1", "2026-07-01T10:00:02.500Z", "", [call("run_shell_command-1", "run_shell_command", shell,
                                                                  "2026-07-01T10:00:02.500Z", "success",
                                                                  "test cart::total ... FAILED")], thoughts=thought))
    chat.add(gemini("g1", "2026-07-01T10:00:02.500Z", "", [call("run_shell_command-1", "run_shell_command", shell,
                                                                  "2026-07-01T10:00:02.500Z", "success",
                                                                  "test cart::total ... FAILED")], thoughts=thought,
                    tokens=tokens(5200, 40, cached=4096, thoughts=18)))
    chat.add(gemini("g2", "2026-07-01T10:00:05.000Z", "One test fails: `cart::total`.",
                    tokens=tokens(5300, 12, cached=5120)))
    chat.add({"$set": {"lastUpdated": "2026-07-01T10:00:05.000Z"}})
    chat.write(root)


def resumed(root):
    """A session resumed the next day in the same file, a rewind taking back one exchange."""
    chat = Chat("resumed", "2026-07-02T09:00:00.000Z")
    chat.add(user("u1", "2026-07-02T09:00:01.000Z", "Rename total to sum."))
    chat.add(gemini("g1", "2026-07-02T09:00:03.000Z", "Renamed in cart.py.", tokens=tokens(3000, 20)))
    chat.add(user("u2", "2026-07-02T09:00:10.000Z", "Also in the docs."))
    chat.add(gemini("g2", "2026-07-02T09:00:12.000Z", "Done in README.md.", tokens=tokens(3100, 15, cached=2048)))
    # The user rewinds to before their second prompt: u2 and g2 are taken back.
    chat.add({"$rewindTo": "u2"})
    chat.add({"$set": {"lastUpdated": "2026-07-02T09:00:20.000Z"}})
    # Resumed the next day: the same file goes on.
    chat.add({"$set": {"lastUpdated": "2026-07-03T08:00:00.000Z"}})
    chat.add(user("u3", "2026-07-03T08:00:01.000Z", "Now run the tests."))
    chat.add(gemini("g3", "2026-07-03T08:00:04.000Z", "They pass.", tokens=tokens(3300, 6, cached=3000)))
    chat.write(root)


def subagent(root):
    """A session and its sub-agent's recording under chats/<session id>/."""
    chat = Chat("subagent", "2026-07-04T14:00:00.000Z")
    chat.add(user("u1", "2026-07-04T14:00:01.000Z", "Investigate the slow query."))
    args = {"objective": "Find why the orders query is slow."}
    chat.add(gemini("g1", "2026-07-04T14:00:02.000Z", "", [call("codebase_investigator-1", "codebase_investigator", args,
                                                                  "2026-07-04T14:00:02.000Z", "success",
                                                                  "orders has no index on customer_id")],
                    tokens=tokens(4000, 30)))
    chat.add(gemini("g2", "2026-07-04T14:00:09.000Z", "The orders table lacks an index on customer_id.",
                    tokens=tokens(4200, 14, cached=3900)))
    chat.write(root)
    agent = Chat("subagent-investigator", "2026-07-04T14:00:02.100Z", kind="subagent")
    agent.add(user("a1", "2026-07-04T14:00:02.100Z", "Find why the orders query is slow."))
    agent.add(gemini("a2", "2026-07-04T14:00:04.000Z", "", [call("grep-1", "search_file_content", {"pattern": "CREATE INDEX"},
                                                                  "2026-07-04T14:00:04.000Z", "success", "no matches")],
                     tokens=tokens(2000, 25)))
    agent.add(gemini("a3", "2026-07-04T14:00:06.000Z", "orders has no index on customer_id",
                     tokens=tokens(2100, 9, cached=1900)))
    agent.write(root, os.path.join(chat.session, f"{agent.session}.jsonl"))


def legacy(root):
    """The older single document: metadata and every message in one JSON file."""
    session = uid("legacy")
    doc = {"sessionId": session, "projectHash": PROJECT, "startTime": "2026-03-10T08:00:00.000Z",
           "lastUpdated": "2026-03-10T08:00:06.000Z",
           "messages": [user("u1", "2026-03-10T08:00:01.000Z", "What is in src?"),
                        gemini("g1", "2026-03-10T08:00:03.000Z", "", [call("list_directory-1", "list_directory",
                                                                          {"path": "/home/dev/shop/src"},
                                                                          "2026-03-10T08:00:03.000Z", "success",
                                                                          "cart.py\norders.py")],
                               tokens=tokens(2500, 22)),
                        gemini("g2", "2026-03-10T08:00:06.000Z", "cart.py and orders.py.", tokens=tokens(2600, 8))]}
    path = os.path.join(root, "tmp", PROJECT, "chats", f"session-2026-03-10T08-00-{session[:8]}.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        json.dump(doc, out, indent=2)


def saved(root):
    """A chat saved with /chat save: the Gemini API history, no usage."""
    history = [
        {"role": "user", "parts": [{"text": "Add a test for cart.total."}]},
        {"role": "model", "parts": [{"text": "Writing it.", "thought": True},
                                    {"functionCall": {"id": "write_file-1", "name": "write_file",
                                                      "args": {"file_path": "tests/test_cart.py", "content": "def test_total(): ..."}}}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "write_file-1", "name": "write_file",
                                                         "response": {"output": "Created tests/test_cart.py"}}}]},
        {"role": "model", "parts": [{"text": "Added tests/test_cart.py."}]},
    ]
    path = os.path.join(root, "tmp", PROJECT, "checkpoint-cart-test.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        json.dump({"history": history, "authType": "oauth-personal"}, out, indent=2)


def torn(root):
    """Still being written: the last message cut mid-record, its call without a result."""
    chat = Chat("torn", "2026-07-05T16:00:00.000Z")
    chat.add(user("u1", "2026-07-05T16:00:01.000Z", "Lint it."))
    chat.add(gemini("g1", "2026-07-05T16:00:02.000Z", "", [call("run_shell_command-1", "run_shell_command",
                                                                  {"command": "make lint"}, "2026-07-05T16:00:02.000Z")]))
    cut = line(gemini("g1", "2026-07-05T16:00:02.000Z", "", [call("run_shell_command-1", "run_shell_command",
                                                                  {"command": "make lint"}, "2026-07-05T16:00:02.000Z",
                                                                  "success", "ok")], tokens=tokens(1000, 10)))
    chat.write(root, tail=cut[:120])


def empty(root):
    path = os.path.join(root, "tmp", PROJECT, "chats", f"session-2026-07-06T10-00-{uid('empty')[:8]}.jsonl")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").close()


def orphan(root):
    """A sub-agent's recording whose session file is gone."""
    parent = uid("orphan-parent")
    agent = Chat("orphan-agent", "2026-07-07T11:00:00.000Z", kind="subagent")
    agent.add(user("a1", "2026-07-07T11:00:00.100Z", "List the migrations."))
    agent.add(gemini("a2", "2026-07-07T11:00:02.000Z", "Three migrations.", tokens=tokens(900, 5)))
    agent.write(root, os.path.join(parent, f"{agent.session}.jsonl"))


def main():
    for outcome in ("ok", "err"):
        shutil.rmtree(os.path.join(HERE, outcome), ignore_errors=True)
    rewritten(os.path.join(HERE, "ok", "message-rewritten-as-it-grows-shell-call-0.46.0"))
    resumed(os.path.join(HERE, "ok", "resumed-next-day-rewind-takes-back-exchange-0.46.0"))
    subagent(os.path.join(HERE, "ok", "subagent-recording-beside-session-0.46.0"))
    legacy(os.path.join(HERE, "ok", "single-document-session-json-0.38.2"))
    saved(os.path.join(HERE, "ok", "saved-chat-checkpoint-history-0.46.0"))
    torn(os.path.join(HERE, "err", "last-line-cut-mid-write-0.46.0"))
    empty(os.path.join(HERE, "err", "empty-session-file-0.46.0"))
    orphan(os.path.join(HERE, "err", "subagent-without-its-session-file-0.46.0"))


if __name__ == "__main__":
    main()
