#!/usr/bin/env python3
"""Batch throughput and live latency of `axt normalize`, two binaries side by side.

    scripts/normalize-live.py BEFORE AFTER [INPUT] [--rounds N]

Throughput: INPUT (a Claude Code stream-json file; default target/bench-input/claude.jsonl,
made with `AXT_BENCH_PROVIDERS=claude AXT_BENCH_MB=150 AXT_BENCH_REPS=1
AXT_BENCH_SAVE=target/bench-input cargo bench --bench normalize`) is normalized from a file to
a file, from a file to a pipe, and from a pipe to a pipe, the two binaries interleaved round by
round so that a busy host slows both alike. Printed: median and minimum wall time, MB/s at
the minimum, median CPU time of the pipeline (user + system of every process in it), and the
ratios AFTER / BEFORE.

Latency: a stand-in agent writes the records of corpus/normalize/claude/ok/plain-session-thinking-text-
bash.jsonl up to its first tool call, then pauses for 2 s, as an agent does while it thinks;
printed is how long after that record was written the `tool.call` event is on axt's stdout.

BEFORE and AFTER are release builds of the two commits, e.g.
    git stash; cargo build --release; cp target/release/axt /tmp/axt-before; git stash pop
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURE = os.path.join(ROOT, "corpus/normalize/claude/ok/plain-session-thinking-text-bash.jsonl")
SCENARIOS = {
    "file->file": "{b} normalize --run-id r {i} > {o}",
    "file->pipe": "{b} normalize --run-id r {i} | cat > /dev/null",
    "pipe->pipe": "cat {i} | {b} normalize -p claude --run-id r - | cat > /dev/null",
}
PAUSE = 2.0


def throughput(binaries, path, rounds, scratch):
    size = os.path.getsize(path)
    subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)  # into the page cache
    results = {(s, b): ([], []) for s in SCENARIOS for b in binaries}
    for r in range(rounds):
        for scenario, command in SCENARIOS.items():
            order = list(binaries)
            for name in order if r % 2 == 0 else order[::-1]:
                cmd = command.format(b=binaries[name], i=path, o=scratch)
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                subprocess.run(["sh", "-c", cmd], check=True)
                wall = time.perf_counter() - start
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
                results[(scenario, name)][0].append(wall)
                results[(scenario, name)][1].append(cpu)
    print(f"throughput: {path}, {size:,} bytes, {rounds} interleaved rounds")
    print(f"{'':11} {'':7} {'wall median':>11} {'wall min':>9} {'MB/s':>6} {'CPU median':>10}")
    for scenario in SCENARIOS:
        for name in binaries:
            wall, cpu = results[(scenario, name)]
            print(
                f"{scenario:11} {name:7} {statistics.median(wall):10.3f}s {min(wall):8.3f}s"
                f" {size / min(wall) / 1e6:6.0f} {statistics.median(cpu):9.3f}s"
            )
        (bw, bc), (aw, ac) = results[(scenario, "before")], results[(scenario, "after")]
        print(
            f"{scenario:11} after/before: wall median {statistics.median(aw) / statistics.median(bw):.2f},"
            f" wall min {min(aw) / min(bw):.2f}, CPU median {statistics.median(ac) / statistics.median(bc):.2f}"
        )


def latency(binaries):
    with open(FIXTURE, "rb") as f:
        lines = f.read().splitlines(keepends=True)
    cut = next(n for n, line in enumerate(lines, 1) if b'"tool_use"' in line)
    print(f"latency: the input pauses {PAUSE} s after line {cut} (the first tool call's record)")
    for name, binary in binaries.items():
        delays = []
        for _ in range(5):
            axt = subprocess.Popen(
                [binary, "normalize", "-p", "claude", "-"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
            written = threading.Event()

            def agent():
                axt.stdin.write(b"".join(lines[:cut]))
                axt.stdin.flush()
                written.set()
                time.sleep(PAUSE)
                axt.stdin.write(b"".join(lines[cut:]))
                axt.stdin.close()

            thread = threading.Thread(target=agent)
            thread.start()
            written.wait()
            start = time.perf_counter()
            for line in axt.stdout:
                if json.loads(line)["type"] == "tool.call":
                    delays.append(time.perf_counter() - start)
                    break
            axt.stdout.read()
            axt.wait()
            thread.join()
        print(f"{name:7} tool.call on stdout {statistics.median(delays) * 1000:8.1f} ms after its record (median of 5)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("input", nargs="?", default=os.path.join(ROOT, "target/bench-input/claude.jsonl"))
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    if not os.path.exists(args.input):
        sys.exit(f"{args.input}: missing; see this script's documentation to generate it")
    binaries = {"before": args.before, "after": args.after}
    scratch = os.path.join(ROOT, "target/normalize-live.out.jsonl")
    throughput(binaries, args.input, args.rounds, scratch)
    os.remove(scratch)
    latency(binaries)


if __name__ == "__main__":
    main()
