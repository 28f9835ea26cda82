"""A tiny executor: runs an agent command with Popen, records it as a step of a workflow
run through axt's seam, and prints the run's tree.

    python examples/executor.py [--provider claude] DIR -- COMMAND [ARG...]

From the repository's root, with the stand-in agent that replays a recorded Claude Code
session on its stdout:

    python python/examples/executor.py /tmp/runs -- python3 tests/axt/support/replay-agent.py \\
        corpus/normalize/claude/ok/plain-session-thinking-text-bash.jsonl

The run file is DIR/<run-id>.jsonl; `axt check` and `axt tree` read it too.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from typing import Any, Dict

import axt


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--provider", default="claude", choices=axt.PROVIDERS)
    parser.add_argument("--prompt", default="Do the task.")
    parser.add_argument("dir")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the agent's command after --")

    with axt.Run(args.dir, name="executor") as run:
        with run.step("prepare", kind="operation") as prepare:
            prepare.complete({"command": command})
        with run.step("agent", kind="agent") as step:
            agent = step.agent(args.provider, prompt=args.prompt)
            process = subprocess.Popen(command, stdout=subprocess.PIPE)
            assert process.stdout is not None
            # Each chunk the pipe gives is normalized and recorded before the next read.
            agent.feed_from(process.stdout)
            meta = agent.finish(exit_code=process.wait())
        run.step("done", kind="terminal").complete({"status": meta.get("status")})

    tree = axt.tree(run.path)
    print_run(tree["root"], "")
    for problem in tree.problems:
        print(problem, file=sys.stderr)
    return 0 if process.returncode == 0 and tree.clean else 1


def print_run(run: Dict[str, Any], indent: str) -> None:
    print(f"{indent}run {run['run_id']} {run.get('name', '')} {run['status']}"
          f" ({run['events']} events, {run['file']})")
    for child in run["children"]:
        print_node(child, indent + "  ")


def print_node(node: Dict[str, Any], indent: str) -> None:
    kind = node["node"]
    if kind == "run":
        print_run(node, indent)
        return
    if kind == "step":
        error = f": {node['error']}" if node.get("error") else ""
        print(f"{indent}step {node['path']} [{node['kind']}] {node['status']}{error}")
        for child in node["children"]:
            print_node(child, indent + "  ")
    elif kind == "message":
        print(f"{indent}{node['role']}: {', '.join(node['blocks'])}")
    elif kind == "tool":
        print(f"{indent}tool {node['name']} ({node['call_id']}) {node['outcome']}")


if __name__ == "__main__":
    sys.exit(main())
