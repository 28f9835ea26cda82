#!/usr/bin/env python3
"""Regenerate the Claude fixtures whose point is in the raw bytes.

These files cannot be edited safely by hand (an editor would normalise line endings, drop a
BOM, turn U+2028 into a line break, escape or strip NUL, or add a final newline), so they are
written from here. Every other fixture under corpus/normalize/claude/ is plain data and is edited
directly. Run from anywhere:

    python3 corpus/normalize/claude/make-byte-fixtures.py

Output is deterministic: running it twice gives identical files. It writes only the files
listed in BYTE_FIXTURES below. Check the result with `od -c` / `xxd`.
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

VERSION = "2.1.178"
MODEL = "claude-sonnet-4-6"


def dump(obj):
    """Compact JSON the way the CLI's JSON.stringify writes it: no spaces, non-ASCII raw."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def usage(inp, cc, cr, out, h1=True):
    return {
        "input_tokens": inp,
        "cache_creation_input_tokens": cc,
        "cache_read_input_tokens": cr,
        "cache_creation": {
            "ephemeral_5m_input_tokens": 0 if h1 else cc,
            "ephemeral_1h_input_tokens": cc if h1 else 0,
        },
        "output_tokens": out,
        "service_tier": "standard",
        "inference_geo": "not_available",
    }


def mangle(cwd):
    """Project directory name the CLI derives from the cwd."""
    return "".join("-" if c in "/\\:." else c for c in cwd)


def init(sid, uid, cwd, tools=("Task", "Bash", "Edit", "Glob", "Grep", "Read", "WebFetch", "WebSearch", "Write")):
    return {
        "type": "system",
        "subtype": "init",
        "cwd": cwd,
        "session_id": sid,
        "tools": list(tools),
        "mcp_servers": [],
        "model": MODEL,
        "permissionMode": "bypassPermissions",
        "slash_commands": ["compact", "context", "init", "review", "security-review"],
        "apiKeySource": "none",
        "claude_code_version": VERSION,
        "output_style": "default",
        "agents": ["claude", "Explore", "general-purpose", "Plan"],
        "skills": [],
        "plugins": [],
        "analytics_disabled": False,
        "product_feedback_disabled": False,
        "uuid": uid,
        "memory_paths": {"auto": "/home/dev/.claude/projects/" + mangle(cwd) + "/memory/"},
        "fast_mode_state": "off",
    }


def assistant(sid, uid, msg_id, req_id, block, use, parent=None, model=MODEL, extra=None):
    line = {
        "type": "assistant",
        "message": {
            "model": model,
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": None,
            "stop_sequence": None,
            "stop_details": None,
            "usage": use,
            "diagnostics": None,
            "context_management": None,
        },
        "parent_tool_use_id": parent,
        "session_id": sid,
        "uuid": uid,
        "request_id": req_id,
    }
    if extra:
        line.update(extra)
    return line


def tool_result(sid, uid, ts, tool_use_id, content, is_error=False, tool_use_result=None, parent=None):
    line = {
        "type": "user",
        "message": {
            "role": "user",
            "content": [{"tool_use_id": tool_use_id, "type": "tool_result", "content": content, "is_error": is_error}],
        },
        "parent_tool_use_id": parent,
        "session_id": sid,
        "uuid": uid,
        "timestamp": ts,
    }
    if tool_use_result is not None:
        line["tool_use_result"] = tool_use_result
    return line


def result(sid, uid, text, turns, dur, dur_api, cost, use, model_usage, stop="end_turn", subtype="success",
           is_error=False, terminal="completed", denials=()):
    return {
        "type": "result",
        "subtype": subtype,
        "is_error": is_error,
        "api_error_status": None,
        "duration_ms": dur,
        "duration_api_ms": dur_api,
        "ttft_ms": 1874,
        "ttft_stream_ms": 912,
        "time_to_request_ms": 61,
        "num_turns": turns,
        "result": text,
        "stop_reason": stop,
        "session_id": sid,
        "total_cost_usd": cost,
        "usage": use,
        "modelUsage": model_usage,
        "permission_denials": list(denials),
        "terminal_reason": terminal,
        "fast_mode_state": "off",
        "uuid": uid,
    }


def result_usage(inp, cc, cr, out, last):
    """Run-total usage as the result line carries it; `last` is the final API call's usage."""
    return {
        "input_tokens": inp,
        "cache_creation_input_tokens": cc,
        "cache_read_input_tokens": cr,
        "output_tokens": out,
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": "standard",
        "cache_creation": {"ephemeral_1h_input_tokens": cc, "ephemeral_5m_input_tokens": 0},
        "inference_geo": "not_available",
        "iterations": [
            {
                "input_tokens": last[0],
                "output_tokens": last[3],
                "cache_read_input_tokens": last[2],
                "cache_creation_input_tokens": last[1],
                "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": last[1]},
                "type": "message",
            }
        ],
        "speed": "standard",
    }


def model_usage(inp, out, cr, cc, cost, model=MODEL):
    return {
        model: {
            "inputTokens": inp,
            "outputTokens": out,
            "cacheReadInputTokens": cr,
            "cacheCreationInputTokens": cc,
            "webSearchRequests": 0,
            "costUSD": cost,
            "contextWindow": 200000,
            "maxOutputTokens": 32000,
        }
    }


def rate_limit(sid, uid):
    return {
        "type": "rate_limit_event",
        "rate_limit_info": {
            "status": "allowed",
            "resetsAt": 1782361800,
            "rateLimitType": "five_hour",
            "overageStatus": "rejected",
            "overageDisabledReason": "org_level_disabled",
            "isUsingOverage": False,
        },
        "uuid": uid,
        "session_id": sid,
    }


def write(rel, data):
    path = os.path.join(HERE, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def lf(lines):
    """Join encoded records with LF, trailing LF included."""
    return b"".join(line + b"\n" for line in lines)


def enc(obj):
    return dump(obj).encode("utf-8")


# --------------------------------------------------------------------------------------------
# ok/nul-bytes-in-tool-result-and-text.jsonl
# Raw 0x00 inside two JSON strings. JSON.stringify would have escaped them as \u0000; raw NULs
# arrive when something other than the CLI's serializer writes the bytes (awf-project/cli#361,
# #363: NUL from terminal control output). The placeholder "@@NUL@@" is replaced by the byte.


def nul_fixture():
    sid = "6d1f0c2a-93b7-4e58-a0c4-2f7e51b9d846"
    cwd = "/home/dev/src/firmware-tools"
    u = usage(3, 4210, 15872, 9)
    msg1, req1 = "msg_01Hq7RkW2mVt5sYpLc9nXe3A", "req_011CcQ7vN2bRt8YkPw4sDf6G"
    msg2, req2 = "msg_01JfB4nQx8ZcT1uWy6mKd5Rs", "req_011CcQ7wB5nMx2LqRt9vYh3K"
    tid = "toolu_01Mz3VbQ8tKp6xWn2RcYf7Ld"
    cmd = "head -c 24 build/boot.bin | tr -d '\\377'"
    raw_out = "\x7fELF\x02\x01\x01@@NUL@@@@NUL@@@@NUL@@@@NUL@@@@NUL@@@@NUL@@@@NUL@@@@NUL@@@@NUL@@\x02\x00>\x00"
    # The trailing "\x02\x00>\x00" above is written escaped by dump() (\u0002\u0000>\u0000): the
    # same string holds escaped and raw NULs, which must come out as the same code point.
    text2 = "The image starts with the ELF magic (`\\x7fELF`), class 2 (64-bit), then NUL padding: [@@NUL@@@@NUL@@] — so it is an ELF64 file, not a raw flash dump."
    lines = [
        init(sid, "0b9e4c71-5a3d-4f28-9e16-c84d2a7b3f05", cwd),
        assistant(sid, "3c8a1f64-2e9b-4d07-b5c3-71f0e9a2d648", msg1, req1,
                  {"type": "text", "text": "Let me look at the first bytes of the boot image."}, u),
        assistant(sid, "a47d2e90-6c1b-4f35-8d29-5e0b3a7c1f84", msg1, req1,
                  {"type": "tool_use", "id": tid, "name": "Bash",
                   "input": {"command": cmd, "description": "Show the first 24 bytes of the boot image"},
                   "caller": {"type": "direct"}}, u),
        tool_result(sid, "e5f1b3a8-0d7c-4a96-b241-8c3e6f9d2a17", "2026-06-25T09:41:07.318Z", tid, raw_out,
                    tool_use_result={"stdout": raw_out, "stderr": "", "interrupted": False, "isImage": False,
                                     "noOutputExpected": False}),
        assistant(sid, "71c9e2d5-4b8a-4e03-a6f7-2d1b9c5e8a30", msg2, req2,
                  {"type": "text", "text": text2}, usage(1, 388, 20082, 52)),
        result(sid, "c2a6e8f1-7d39-4b5c-8e04-9f1a3d7b6c25",
               text2, 2, 9412, 8120, 0.0318441,
               result_usage(4, 4598, 35954, 187, (1, 388, 20082, 52)),
               model_usage(4, 187, 35954, 4598, 0.0318441)),
    ]
    out = []
    for obj in lines:
        b = enc(obj)
        b = b.replace(b"@@NUL@@", b"\x00")
        out.append(b)
    write("ok/nul-bytes-in-tool-result-and-text.jsonl", lf(out))


# --------------------------------------------------------------------------------------------
# ok/crlf-line-endings.jsonl: every record ends in CR LF (stdout through a Windows console or
# a wrapper that rewrote line endings). Escaped "\r\n" inside a string must stay two chars.


def crlf_fixture():
    sid = "b83e1d07-6a4f-4c92-8d15-3f0a7c2e9b61"
    cwd = "C:\\Users\\dev\\src\\invoice-api"
    u = usage(3, 3984, 15872, 11)
    msg1, req1 = "msg_01Pd8sKx3WfB7nQm1VtLc2Ze", "req_011CcQ8aT4vBn7XkLm2RpQ9w"
    msg2, req2 = "msg_01RwT6hYc9LmN2bVx4KsJ8Pq", "req_011CcQ8bF7mKp3WxNz5TqV1c"
    tid = "toolu_01Cx5NkR8vTq2WbL7mYf3HsD"
    out_text = "On branch main\r\nYour branch is up to date with 'origin/main'.\r\n\r\nnothing to commit, working tree clean\r\n"
    lines = [
        init(sid, "5e2d9a1c-8b74-4f06-a3e9-c1b7d4f28a50", cwd),
        assistant(sid, "9f4b2c68-1e7d-4a35-b0c9-6d8e3a1f7b24", msg1, req1,
                  {"type": "tool_use", "id": tid, "name": "Bash",
                   "input": {"command": "git status", "description": "Show working tree status"},
                   "caller": {"type": "direct"}}, u),
        tool_result(sid, "2d7a5e13-9c4b-4f80-86e1-b3f9c0d27a48", "2026-06-25T10:02:44.105Z", tid, out_text,
                    tool_use_result={"stdout": out_text, "stderr": "", "interrupted": False, "isImage": False,
                                     "noOutputExpected": False}),
        assistant(sid, "c61e8b4f-3a92-4d7c-9f05-8e2b1d6a4c73", msg2, req2,
                  {"type": "text", "text": "The working tree is clean and `main` is up to date with `origin/main`."},
                  usage(1, 241, 19856, 24)),
        result(sid, "f0a3c7d9-2b6e-4158-a4d3-7c9e1b5f2a86",
               "The working tree is clean and `main` is up to date with `origin/main`.", 2, 6120, 5233, 0.0254718,
               result_usage(4, 4225, 35728, 96, (1, 241, 19856, 24)),
               model_usage(4, 96, 35728, 4225, 0.0254718)),
    ]
    write("ok/crlf-line-endings.jsonl", b"".join(enc(o) + b"\r\n" for o in lines))


# --------------------------------------------------------------------------------------------
# ok/bom-multibyte-and-line-separators.jsonl: a UTF-8 BOM before the first record, multi-byte
# text (2-, 3- and 4-byte sequences) and raw U+2028 / U+2029 inside JSON strings (legal JSON;
# JSON.stringify does not escape them; a readline-style splitter breaks the record there).


def bom_fixture():
    sid = "e4a7c2f9-1d36-4b85-9e0a-6c3f8b2d1e74"
    cwd = "/home/dev/src/café-menu"
    u = usage(3, 4102, 15872, 14)
    msg1, req1 = "msg_01Kb2WqN7xRt4mVc9LpZs6Hd", "req_011CcQ9cR8nVt2KmXb6WqL4p"
    msg2, req2 = "msg_01Ne5TyP3kLw8bXr1QmVc7Jf", "req_011CcQ9dM3kTq7WbRz2NvX8s"
    tid = "toolu_01Gw9PkT4nRx7VbQ2mLc5ZsY"
    file_lines = ["# Menu du café", "", "Crème brûlée — 6,50 €", "抹茶ラテ (matcha latte) — 5,00 €",
                  "Note:\u2028ligne séparée par U+2028\u2029paragraphe séparé par U+2029", "Dessert du jour 😀🍰"]
    file_content = "\n".join(file_lines) + "\n"
    # The Read tool's cat -n style: 6-wide line number, then U+2192 (3 bytes in UTF-8).
    content = "".join("%6d\u2192%s\n" % (n, l) for n, l in enumerate(file_lines, 1))
    text2 = ("Le fichier `menu.md` liste trois articles : Crème brûlée → 6,50 €, 抹茶ラテ → 5,00 €, et le dessert du jour 🍰.\u2028"
             "La ligne 5 contient des séparateurs U+2028/U+2029 bruts.\u2029Fin. 日本語 OK 😀")
    lines = [
        init(sid, "7a1c5e93-4f2b-4d68-b0e7-9d3a2c8f1b56", cwd),
        assistant(sid, "2b8d4f1a-6e3c-4a97-85d0-c7f2e9b1a364", msg1, req1,
                  {"type": "thinking", "thinking": "L'utilisateur veut un résumé du menu — je lis `menu.md` d'abord → puis je réponds en français.",
                   "signature": "EpgCCkYIDhgCKkB3mQ8rT1vZx2Lc7WnK4pR9sY6bH0aJ3eF5gD8iU1oP4qA7zX2cV5nM8lK1jH4gF7dS0aQ3wE6rT9yU2iO5pEgzd8Fk2xLqN4rVb7TcYaDD1hZ8wQx9RkP3mTnVbJcSa0d4yGhLx7Kq"},
                  u),
        assistant(sid, "8c3e6a2f-1b94-4d50-a7e8-3f6b0c9d2e71", msg1, req1,
                  {"type": "tool_use", "id": tid, "name": "Read",
                   "input": {"file_path": "/home/dev/src/café-menu/menu.md"}, "caller": {"type": "direct"}}, u),
        tool_result(sid, "d9f2a7c4-5e18-4b3d-9a06-1c8e4f7b2d95", "2026-06-25T10:15:31.772Z", tid, content,
                    tool_use_result={"type": "text", "file": {"filePath": "/home/dev/src/café-menu/menu.md",
                                                               "content": file_content,
                                                               "numLines": 6, "startLine": 1, "totalLines": 6}}),
        assistant(sid, "4e7b1d9c-2a65-4f83-b1c0-8d5e3a9f6b27", msg2, req2,
                  {"type": "text", "text": text2}, usage(1, 512, 19974, 97)),
        result(sid, "a5c8e2b7-3f91-4d64-8e0b-2b7d6f1a9c38", text2, 2, 8833, 7710, 0.0301296,
               result_usage(4, 4614, 35846, 211, (1, 512, 19974, 97)),
               model_usage(4, 211, 35846, 4614, 0.0301296)),
    ]
    data = b"\xef\xbb\xbf" + lf([enc(o) for o in lines])
    assert "\u2028".encode() in data and "\u2029".encode() in data
    write("ok/bom-multibyte-and-line-separators.jsonl", data)


# --------------------------------------------------------------------------------------------
# err/record-over-64kib.jsonl: one user line a little over 65,536 bytes (a big Bash output),
# between valid lines. The golden harness runs with a 64 KiB record cap.


def oversized_fixture():
    sid = "1c9f4e7a-2d58-4b3c-a6e1-8f0b7d2c5a93"
    cwd = "/home/dev/src/log-shipper"
    u = usage(3, 4377, 15872, 10)
    msg1, req1 = "msg_01Tn4WbK8rQx2mYc6VpLd9Fs", "req_011CcQAeV3nBt9KxLm7RpW2q"
    msg2, req2 = "msg_01Vq8XcM2nRt5bWy3LkPs7Hd", "req_011CcQAfN6kVr4TmXb8QwZ1c"
    tid = "toolu_01Lp6RxT3vNq9WbK2mYc8ZfG"
    rows = []
    i = 0
    while sum(len(r) + 1 for r in rows) < 68000:
        rows.append("2026-06-25T08:%02d:%02d.%03dZ INFO shipper batch=%05d sent=512 bytes=65311 dest=ingest-%d.internal:4317"
                    % ((i // 60) % 60, i % 60, (i * 37) % 1000, i, i % 4))
        i += 1
    big = "\n".join(rows)
    lines = [
        init(sid, "6f2b8d1e-9a47-4c35-b8e0-3d1c7a9f2e64", cwd),
        assistant(sid, "b3e9a1c7-5d24-4f68-9b0e-7a2c6f4d8e15", msg1, req1,
                  {"type": "tool_use", "id": tid, "name": "Bash",
                   "input": {"command": "cat logs/shipper-2026-06-25.log", "description": "Print today's shipper log"},
                   "caller": {"type": "direct"}}, u),
        tool_result(sid, "8d4c2f6a-1e93-4b7d-a5c0-9f3e7b1d6a28", "2026-06-25T10:27:02.551Z", tid, big),
        assistant(sid, "e1a7c5d3-8b26-4f49-90e3-2c6f8a4b1d97", msg2, req2,
                  {"type": "text", "text": "The log is long but uniform: every batch sent 512 records, with no WARN or ERROR lines."},
                  usage(1, 16998, 20249, 31)),
        result(sid, "3f6d9b2e-7c41-4a85-b1e6-0d8a5c3f7e29",
               "The log is long but uniform: every batch sent 512 records, with no WARN or ERROR lines.", 2, 11280,
               10044, 0.0912373, result_usage(4, 21375, 36121, 118, (1, 16998, 20249, 31)),
               model_usage(4, 118, 36121, 21375, 0.0912373)),
    ]
    recs = [enc(o) for o in lines]
    assert 65536 < len(recs[2]) < 70000, len(recs[2])
    assert all(len(r) < 65536 for k, r in enumerate(recs) if k != 2)
    write("err/record-over-64kib.jsonl", lf(recs))


# --------------------------------------------------------------------------------------------
# err/truncated-last-line.jsonl: the process died while writing the result line: it stops in
# the middle of the JSON, with no trailing LF.


def truncated_fixture():
    sid = "9a2e6c1f-4b78-4d3a-8e05-c7f1b9d3a6e2"
    cwd = "/home/dev/src/weather-cli"
    u = usage(3, 3877, 15872, 8)
    msg1, req1 = "msg_01Xc3NbR7tKw9mVq2LpYs5Fd", "req_011CcQBgT5mVr8KxNb3WqL6p"
    msg2, req2 = "msg_01Zd6PqT1wLx4nBr8KmVc3Hs", "req_011CcQBhR9nKt2WmXc5VqZ7b"
    tid = "toolu_01Nr8TbW5xQc2LmK9vYp4ZdF"
    text2 = "All 14 tests pass (`cargo test`: 14 passed, 0 failed)."
    lines = [
        init(sid, "c4f8a2d6-7e13-4b59-a0c7-1e9d5b3f8a42", cwd),
        assistant(sid, "5b1d7f3a-9c62-4e84-b3a0-6f2c8e4d1a95", msg1, req1,
                  {"type": "tool_use", "id": tid, "name": "Bash",
                   "input": {"command": "cargo test --quiet", "description": "Run the test suite"},
                   "caller": {"type": "direct"}}, u),
        tool_result(sid, "e8c2a6f4-3d91-4b7e-85a2-0b6f9d1c3e57", "2026-06-25T10:33:19.904Z", tid,
                    "\nrunning 14 tests\n..............\ntest result: ok. 14 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.42s"),
        assistant(sid, "2f9e5b1c-6a38-4d07-9c4e-8b3a7f2d6e10", msg2, req2,
                  {"type": "text", "text": text2}, usage(1, 302, 19749, 21)),
        result(sid, "7d3b9f5e-1c64-4a28-b0e9-5f7a3c1d8b46", text2, 2, 15502, 6301, 0.0249907,
               result_usage(4, 4179, 35621, 88, (1, 302, 19749, 21)),
               model_usage(4, 88, 35621, 4179, 0.0249907)),
    ]
    recs = [enc(o) for o in lines]
    last = recs[-1]
    cut = last.index(b'"total_cost_usd"') + len(b'"total_cost_usd":0.02')
    write("err/truncated-last-line.jsonl", lf(recs[:-1]) + last[:cut])


BYTE_FIXTURES = [nul_fixture, crlf_fixture, bom_fixture, oversized_fixture, truncated_fixture]

if __name__ == "__main__":
    for make in BYTE_FIXTURES:
        make()
