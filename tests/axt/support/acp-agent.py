#!/usr/bin/env python3
"""A stand-in ACP agent for `axt exec --acp` tests: replays the agent's side of a captured
ACP exchange (bare JSON-RPC, one message a line) over stdin/stdout, with a real client.

Each message of the exchange the client sent (its requests, its answers to the agent's
requests) is awaited on stdin instead: the client's own message takes its place, so the
client's ids are answered with the client's ids, and the agent's requests (permission, files,
terminals) are really asked and really answered by the client. Every message the agent sent
is written as it is, but for the fixture's working directory, `--fixture-cwd` (default
/home/dev/project), which becomes the `cwd` the client's `session/new` names. The client's
answers are logged on stderr as `client answered <method>: <result>`.

    acp-agent.py FIXTURE [--fixture-cwd DIR] [--delay-ms N] [--exit CODE]
        [--ignore-stdin-eof]    keep running after the client closes stdin (until killed)
"""

import argparse
import json
import sys
import time

CLIENT_METHODS = {
    "initialize", "authenticate", "logout", "session/new", "session/load", "session/resume",
    "session/prompt", "session/cancel", "session/set_mode", "session/set_config_option",
    "session/list", "session/close", "session/delete",
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("fixture")
    parser.add_argument("--fixture-cwd", default="/home/dev/project")
    parser.add_argument("--delay-ms", type=float, default=0.0)
    parser.add_argument("--exit", type=int, default=0)
    parser.add_argument("--ignore-stdin-eof", action="store_true")
    args = parser.parse_args()

    with open(args.fixture, encoding="utf-8") as f:
        messages = [json.loads(line) for line in f if line.strip()]

    out = sys.stdout
    cwd = args.fixture_cwd
    ids = {}            # the fixture's client request ids -> the client's
    asked = {}          # the agent's request ids still waiting -> (method, when asked)
    client_waiting = {}  # the fixture's client request ids still waiting -> when asked

    def read_client():
        line = sys.stdin.readline()
        if not line:
            sys.stderr.write("acp-agent: the client closed stdin early\n")
            sys.exit(3)
        return json.loads(line)

    renamed = {}  # the fixture's terminal ids -> the client's

    def localize(value):
        text = json.dumps(value).replace(args.fixture_cwd, cwd)
        for old, new in renamed.items():
            text = text.replace(json.dumps(old), json.dumps(new))
        return json.loads(text)

    for at, message in enumerate(messages):
        method = message.get("method")
        mid = message.get("id")
        # A response answers the newer of the two requests of its id (ids are per side).
        from_client = (method in CLIENT_METHODS) or (
            method is None and mid in asked
            and (mid not in client_waiting or asked[mid][1] > client_waiting[mid])
        )
        if from_client:
            real = read_client()
            if method is not None:
                if real.get("method") != method:
                    sys.stderr.write(f"acp-agent: expected {method}, the client sent {real.get('method')}\n")
                    sys.exit(4)
                if mid is not None:
                    ids[mid] = real.get("id")
                    client_waiting[mid] = at
                if method == "session/new":
                    cwd = real.get("params", {}).get("cwd", cwd)
            else:
                what = asked.pop(mid)[0]
                result = real.get("result", real.get("error"))
                expected = message.get("result") or {}
                if isinstance(expected, dict) and isinstance(result, dict) and "terminalId" in expected:
                    renamed[expected["terminalId"]] = result.get("terminalId")
                sys.stderr.write(f"client answered {what}: {json.dumps(result)}\n")
            continue
        if args.delay_ms:
            time.sleep(args.delay_ms / 1000.0)
        sent = localize(message)
        if method is None and mid is not None:
            # The agent's answer to a client request: under the client's id.
            client_waiting.pop(mid, None)
            sent["id"] = ids.get(mid, mid)
        elif method is not None and mid is not None:
            asked[mid] = (method, at)
        out.write(json.dumps(sent, separators=(",", ":")) + "\n")
        out.flush()

    if args.ignore_stdin_eof:
        while True:
            time.sleep(1)
    # Serve until the client closes the connection.
    while sys.stdin.readline():
        pass
    sys.exit(args.exit)


if __name__ == "__main__":
    main()
