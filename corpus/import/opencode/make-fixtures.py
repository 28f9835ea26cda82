#!/usr/bin/env python3
"""Writes the OpenCode store corpus: invented sessions in the shapes OpenCode keeps them in
under its data directory (`~/.local/share/opencode/`).

Shapes: OpenCode's `MessageV2` info and parts (packages/opencode/src/session/message-v2.ts),
the task tool's child session (`parentID`, the call's `state.metadata.sessionId`,
packages/opencode/src/tool/task.ts), and either layout:
- JSON files, OpenCode 0.5 to 1.1 (packages/opencode/src/storage/storage.ts, and the paths
  its 1.2 migration reads, storage/json-migration.ts): `storage/session/<project>/<id>.json`,
  `storage/message/<session>/<id>.json`, `storage/part/<message>/<id>.json`, pretty-printed;
- the SQLite database of 1.2 and later (packages/opencode/src/session/session.sql.ts, as of
  1.18.34): `opencode.db`, tables session, message, part, their `data` the JSON without the
  ids the columns hold; rollback-journal mode, so that reading it creates no file beside it.
No capture is copied. Re-run to regenerate; the JSON files come out byte for byte, the
databases as this Python's SQLite writes them.
"""

import copy
import json
import os
import shutil
import sqlite3

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = "4b0ea68d7af9a6031a7ffda7ad66e0cb83315750"
CWD = "/home/dev/shop"
T0 = 1767261600000  # 2026-01-01T10:00:00Z in ms


def tokens(inp, out, reasoning=0, read=0, write=0):
    return {"input": inp, "output": out, "reasoning": reasoning,
            "cache": {"read": read, "write": write}}


class Session:
    def __init__(self, sid, version, title, parent=None):
        self.id = sid
        self.version = version
        self.info = {"id": sid, "slug": sid[-8:], "version": version, "projectID": PROJECT,
                     "directory": CWD, "title": title,
                     "time": {"created": T0, "updated": T0}}
        if parent:
            self.info["parentID"] = parent
        self.messages = []  # (info, [parts])
        self.n = 0

    def _id(self, kind):
        self.n += 1
        return f"{kind}_{self.id[4:12]}{self.n:04d}"

    def user(self, ms, text, extra_parts=()):
        mid = self._id("msg")
        info = {"id": mid, "sessionID": self.id, "role": "user", "time": {"created": T0 + ms},
                "agent": "build", "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}}
        parts = [{"id": self._id("prt"), "sessionID": self.id, "messageID": mid, "type": "text",
                  "text": text}]
        for extra in extra_parts:
            part = {"id": self._id("prt"), "sessionID": self.id, "messageID": mid}
            part.update(extra)
            parts.append(part)
        self.messages.append((info, parts))
        self.info["time"]["updated"] = T0 + ms
        return mid

    def assistant(self, ms, parts, finish="stop", error=None, done=True):
        mid = self._id("msg")
        total = {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}}
        cost = 0.0
        for part in parts:
            if part["type"] == "step-finish":
                total = part["tokens"]  # the message keeps its last step's tokens
                cost += part["cost"]
        info = {"id": mid, "sessionID": self.id, "role": "assistant",
                "time": {"created": T0 + ms}, "parentID": self.messages[-1][0]["id"],
                "modelID": "claude-sonnet-4-5", "providerID": "anthropic", "mode": "build",
                "agent": "build", "path": {"cwd": CWD, "root": CWD}, "cost": round(cost, 6),
                "tokens": total}
        if done:
            info["time"]["completed"] = T0 + ms + 900
            info["finish"] = finish
        if error:
            info["error"] = error
        full = []
        for part in parts:
            part = dict(part)
            part = {"id": self._id("prt"), "sessionID": self.id, "messageID": mid, **part}
            full.append(part)
        self.messages.append((info, full))
        self.info["time"]["updated"] = T0 + ms + 900
        return mid


def step_finish(reason, tok, cost):
    return {"type": "step-finish", "reason": reason, "tokens": tok, "cost": cost}


def shell(call, command, output, ms, exit_code=0, status="completed"):
    state = {"status": status, "input": {"command": command, "description": "Runs the tests"}}
    if status == "completed":
        state.update({"output": output, "title": command,
                      "metadata": {"exit": exit_code, "output": output, "description": "Runs the tests"},
                      "time": {"start": T0 + ms, "end": T0 + ms + 400}})
    elif status == "running":
        state.update({"time": {"start": T0 + ms}})
    return {"type": "tool", "callID": call, "tool": "bash", "state": state}


def task(call, child, ms, prompt, answer):
    return {"type": "tool", "callID": call, "tool": "task", "state": {
        "status": "completed",
        "input": {"description": "Find the flaky test", "prompt": prompt, "subagent_type": "general"},
        "output": f"task_id: {child} (for resuming to continue this task if needed)\n\n<task_result>\n{answer}\n</task_result>",
        "title": "Find the flaky test",
        "metadata": {"sessionId": child, "model": {"modelID": "claude-sonnet-4-5", "providerID": "anthropic"}},
        "time": {"start": T0 + ms, "end": T0 + ms + 5000}}}


def shell_and_task(version, root_id="ses_4f0a1b2c3d4eroot", child_id="ses_7c1d2e3f4a5bchild"):
    """A root session: a reasoning step, a shell call, a task spawning a child session."""
    root = Session(root_id, version, "Fix the failing test")
    root.user(0, "The cart test fails. Fix it.", [
        {"type": "file", "mime": "text/plain", "filename": "cart.test.ts",
         "url": "file:///home/dev/shop/cart.test.ts"},
        {"type": "text", "synthetic": True,
         "text": "Called the Read tool with the following input: {\"filePath\":\"/home/dev/shop/cart.test.ts\"}"},
    ])
    root.assistant(1000, [
        {"type": "step-start", "snapshot": "a1b2c3"},
        {"type": "reasoning", "text": "Run the tests first.", "time": {"start": T0 + 1000, "end": T0 + 1200}},
        {"type": "text", "text": "Running the tests.", "time": {"start": T0 + 1200, "end": T0 + 1300}},
        shell("toolu_01shell", "npm test", "1 failing: cart total", 1300, exit_code=1),
        step_finish("tool-calls", tokens(1200, 40, reasoning=12, read=800, write=300), 0.0042),
        {"type": "step-start", "snapshot": "a1b2c4"},
        task("toolu_02task", child_id, 2000, "Find why the cart total test is flaky.",
             "The rounding uses floats; use cents."),
        step_finish("tool-calls", tokens(300, 25, read=2100), 0.0021),
        {"type": "step-start", "snapshot": "a1b2c5"},
        {"type": "text", "text": "The total rounds floats; I switched it to cents."},
        {"type": "patch", "hash": "d4e5f6", "files": ["/home/dev/shop/cart.ts"]},
        step_finish("stop", tokens(150, 30, read=2400), 0.0016),
    ])
    child = Session(child_id, version, "Find the flaky test (@general subagent)", parent=root.id)
    child.user(2100, "Find why the cart total test is flaky.")
    child.assistant(2500, [
        {"type": "step-start"},
        {"type": "text", "text": "The rounding uses floats; use cents."},
        step_finish("stop", tokens(900, 15, read=400), 0.0011),
    ])
    return [root, child]


# The JSON files' sessions have ids of their own, so that a home with both layouts (the
# discovery test's) has two sessions.
FILES = {"root_id": "ses_2e8f9a0b1c2droot", "child_id": "ses_3a9b0c1d2e3fchild"}


def write_json(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        out.write(json.dumps(value, indent=2))


def write_storage(root_dir, sessions):
    storage = os.path.join(root_dir, "storage")
    for session in sessions:
        write_json(os.path.join(storage, "session", PROJECT, f"{session.id}.json"), session.info)
        for info, parts in session.messages:
            write_json(os.path.join(storage, "message", session.id, f"{info['id']}.json"), info)
            for part in parts:
                write_json(os.path.join(storage, "part", info["id"], f"{part['id']}.json"), part)
    write_json(os.path.join(storage, "project", f"{PROJECT}.json"),
               {"id": PROJECT, "worktree": CWD, "vcs": "git", "time": {"created": T0}})
    return storage


SCHEMA = """
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, vcs text, name text,
  time_created integer NOT NULL, time_updated integer NOT NULL, sandboxes text NOT NULL);
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL REFERENCES project(id)
  ON DELETE cascade, workspace_id text, parent_id text, slug text NOT NULL,
  directory text NOT NULL, path text, title text NOT NULL, version text NOT NULL, share_url text,
  summary_additions integer, summary_deletions integer, summary_files integer,
  summary_diffs text, cost real DEFAULT 0 NOT NULL, tokens_input integer DEFAULT 0 NOT NULL,
  tokens_output integer DEFAULT 0 NOT NULL, tokens_reasoning integer DEFAULT 0 NOT NULL,
  tokens_cache_read integer DEFAULT 0 NOT NULL, tokens_cache_write integer DEFAULT 0 NOT NULL,
  revert text, permission text, goal text, agent text, model text,
  time_created integer NOT NULL, time_updated integer NOT NULL, time_compacting integer,
  time_archived integer);
CREATE INDEX session_parent_idx ON session (parent_id);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL REFERENCES session(id)
  ON DELETE cascade, time_created integer NOT NULL, time_updated integer NOT NULL,
  data text NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL REFERENCES message(id)
  ON DELETE cascade, session_id text NOT NULL, time_created integer NOT NULL,
  time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
"""


def write_db(path, sessions, journal="DELETE"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA journal_mode = {journal}")
    db.executescript(SCHEMA)
    db.execute("INSERT INTO project VALUES (?, ?, 'git', NULL, ?, ?, '[]')", (PROJECT, CWD, T0, T0))
    insert_sessions(db, sessions)
    db.commit()
    db.close()


def insert_sessions(db, sessions):
    for session in sessions:
        info = session.info
        db.execute(
            "INSERT OR REPLACE INTO session (id, project_id, parent_id, slug, directory, title, version, "
            "time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (info["id"], PROJECT, info.get("parentID"), info["slug"], CWD, info["title"],
             info["version"], info["time"]["created"], info["time"]["updated"]))
        for minfo, parts in session.messages:
            insert_message(db, minfo, parts)


def insert_message(db, minfo, parts):
    data = {k: v for k, v in minfo.items() if k not in ("id", "sessionID")}
    created = minfo["time"]["created"]
    db.execute("INSERT OR REPLACE INTO message VALUES (?, ?, ?, ?, ?)",
               (minfo["id"], minfo["sessionID"], created, created, json.dumps(data)))
    for part in parts:
        pdata = {k: v for k, v in part.items() if k not in ("id", "sessionID", "messageID")}
        db.execute("INSERT OR REPLACE INTO part VALUES (?, ?, ?, ?, ?, ?)",
                   (part["id"], minfo["id"], minfo["sessionID"], created, created, json.dumps(pdata)))


def fixture(outcome, name):
    path = os.path.join(HERE, outcome, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def main():
    # ok: the JSON files of 1.1, a shell call and a task's child session.
    write_storage(fixture("ok", "storage-shell-call-task-subagent-1.1"), shell_and_task("1.1.0", **FILES))

    # ok: the same in the database of 1.18.34, the session resumed later (a second prompt
    # after a compaction) in the same session.
    sessions = shell_and_task("1.18.34")
    root = sessions[0]
    root.user(60000, "Also check the tax test.")
    root.assistant(61000, [
        {"type": "step-start"},
        {"type": "compaction", "auto": True},
        {"type": "text", "text": "The tax test passes."},
        step_finish("stop", tokens(400, 12, read=3000), 0.0012),
    ])
    write_db(os.path.join(fixture("ok", "db-task-subagent-resumed-1.18.34"), "opencode.db"), sessions)

    # err: a part file cut mid-write (OpenCode died while writing it).
    sessions = shell_and_task("1.1.0", **FILES)
    storage = write_storage(fixture("err", "storage-part-file-cut-mid-write-1.1"), sessions)
    info, parts = sessions[0].messages[1]
    cut = os.path.join(storage, "part", info["id"], f"{parts[3]['id']}.json")
    with open(cut, "r+", encoding="utf-8") as f:
        text = f.read()
        f.seek(0)
        f.truncate()
        f.write(text[: len(text) // 2])

    # err: an empty session file: refused.
    storage = write_storage(fixture("err", "storage-empty-session-file-1.1"), shell_and_task("1.1.0", **FILES)[:1])
    open(os.path.join(storage, "session", PROJECT, "ses_2e8f9a0b1c2droot.json"), "w").close()
    shutil.rmtree(os.path.join(storage, "message"))
    shutil.rmtree(os.path.join(storage, "part"))

    # err: the task's child session is not in the database (deleted, or never written).
    sessions = shell_and_task("1.18.34")
    write_db(os.path.join(fixture("err", "db-subagent-session-missing-1.18.34"), "opencode.db"), sessions[:1])

    # ok (with a warning): a reply still streaming: its shell call running, no step-finish
    # yet; the database is consistent, the reply is not finished.
    sessions = shell_and_task("1.18.34")
    root = sessions[0]
    root.user(60000, "Run the linter.")
    root.assistant(61000, [
        {"type": "step-start"},
        {"type": "text", "text": "Running the linter."},
        shell("toolu_03lint", "npm run lint", "", 61200, status="running"),
    ], done=False)
    write_db(os.path.join(fixture("ok", "db-reply-still-streaming-1.18.34"), "opencode.db"), sessions)


if __name__ == "__main__":
    main()
