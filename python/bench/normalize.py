"""Throughput of `axt.normalize(...).jsonl()` against the `axt normalize` command, measured
in the same run on the same input, and the cost of `.events` (the dicts).

    python python/bench/normalize.py STREAM [--reps N]

STREAM is a provider output file: `make bench-python` generates a 50 MB Claude Code stream
with the crate's own benchmark generator (benches/claude_stream) and runs this on it. The
command is the one installed with the package (the same compiled code as the module);
its time includes starting a process, which is measured apart (`axt --version`) and
reported both ways. Each figure is the median of --reps runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import axt

#: The budget the issue sets: the module within 1.3x of the command.
LIMIT = 1.3
#: And `.events` within 1.5x of `.jsonl()`.
EVENTS_LIMIT = 1.5


def median_time(work, reps: int) -> float:
    times = []
    for _ in range(reps):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stream", type=Path)
    parser.add_argument("--provider", default="claude")
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    cli = str(Path(sys.executable).parent / "axt")
    size = args.stream.stat().st_size
    mb = size / 1e6
    clock = "fixed:2026-06-08T08:14:42Z"

    def command() -> None:
        with open(os.devnull, "wb") as sink:
            subprocess.run(
                [cli, "normalize", "--provider", args.provider, "--clock", clock,
                 "--run-id", "bench", str(args.stream)],
                stdout=sink, check=True,
            )

    def startup() -> None:
        subprocess.run([cli, "--version"], stdout=subprocess.DEVNULL, check=True)

    def module_jsonl() -> None:
        axt.normalize(args.stream, args.provider, "bench", clock=clock).jsonl()

    def module_events() -> None:
        result = axt.normalize(args.stream, args.provider, "bench", clock=clock)
        result.events

    # `.events` makes each dict when it is first read: reading every one is measured too.
    def module_every_event() -> None:
        result = axt.normalize(args.stream, args.provider, "bench", clock=clock)
        list(result.events)

    # Same output, or the comparison means nothing.
    done = subprocess.run(
        [cli, "normalize", "--provider", args.provider, "--clock", clock, "--run-id", "bench",
         str(args.stream)],
        capture_output=True, check=True,
    )
    result = axt.normalize(args.stream, args.provider, "bench", clock=clock)
    assert result.jsonl() == done.stdout, "the module and the command disagree"
    events = len(result.events)
    del result, done

    cli_s = median_time(command, args.reps)
    start_s = median_time(startup, args.reps)
    jsonl_s = median_time(module_jsonl, args.reps)
    events_s = median_time(module_events, args.reps)
    every_s = median_time(module_every_event, args.reps)
    work_s = cli_s - start_s
    ratio = jsonl_s / cli_s
    ratio_work = jsonl_s / work_s
    print(f"input: {args.stream} ({mb:.1f} MB, {args.provider}), {events} events, "
          f"median of {args.reps} runs")
    print(f"  axt normalize (command)          {cli_s * 1e3:8.0f} ms  {mb / cli_s:6.0f} MB/s")
    print(f"    of which process start-up      {start_s * 1e3:8.0f} ms  (axt --version)")
    print(f"  axt.normalize(...).jsonl()       {jsonl_s * 1e3:8.0f} ms  {mb / jsonl_s:6.0f} MB/s")
    print(f"  axt.normalize(...).events        {events_s * 1e3:8.0f} ms  {mb / events_s:6.0f} MB/s")
    print(f"  list(axt.normalize(...).events)  {every_s * 1e3:8.0f} ms  {mb / every_s:6.0f} MB/s"
          f"  (every dict made: {every_s / jsonl_s:.2f}x .jsonl())")
    print(f"ratio jsonl / command:             {ratio:.2f}x (budget {LIMIT}x)")
    print(f"ratio jsonl / command less start:  {ratio_work:.2f}x")
    print(f"cost of .events (dicts) over .jsonl(): {events_s / jsonl_s:.2f}x, "
          f"{(events_s - jsonl_s) * 1e3:.0f} ms, "
          f"{(events_s - jsonl_s) / events * 1e6:.1f} us per event")
    ok = ratio_work <= LIMIT
    print("within budget" if ok else "OVER BUDGET")
    save_targets(ratio_work, events_s / jsonl_s)
    return 0 if ok else 1


def save_targets(binding: float, events: float) -> None:
    """Issue 31's targets, for `make bench`'s table (scripts/bench-table.py)."""
    rows = [("python axt.normalize().jsonl() / axt normalize (less start-up)", binding, LIMIT),
            ("python result.events / result.jsonl()", events, EVENTS_LIMIT)]
    folder = Path(__file__).resolve().parent.parent.parent / "target" / "bench"
    folder.mkdir(parents=True, exist_ok=True)
    text = "".join(f"{name}\t{value:.2f}x\t<= {limit}x\t{'met' if value <= limit else 'not met'}\n"
                   for name, value, limit in rows)
    (folder / "python.tsv").write_text(text)


if __name__ == "__main__":
    sys.exit(main())
