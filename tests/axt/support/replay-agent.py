#!/usr/bin/env python3
"""A stand-in agent CLI for `axt exec` tests: replays a provider output fixture on stdout.

Each line is written in pieces (split at --splits points, flushed separately, with --delay-ms
between writes), so the reader sees records cut across reads as it would from a real agent.

    replay-agent.py FIXTURE [--delay-ms N] [--splits K]
        [--wait-for FILE --after-line L]   stop after line L until FILE exists
        [--kill-self-after-line L]         SIGKILL itself after writing line L
        [--cut-line-at BYTES]              with --kill-self: write only part of line L+1 first
        [--close-and-sleep SECS]           close stdout after the last line, then sleep
        [--exit CODE]                      exit code (default 0)
        [--stderr TEXT]                    write TEXT to stderr first
        [--echo-stdin]                     copy stdin to stderr first (stdin pass-through)
        [--repeat-for SECS]                replay the fixture's lines over and over for SECS
        [--ignore-signals]                 ignore SIGINT, SIGTERM and SIGHUP
"""

import argparse
import os
import signal
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("fixture")
    parser.add_argument("--delay-ms", type=float, default=0.0)
    parser.add_argument("--splits", type=int, default=2)
    parser.add_argument("--wait-for")
    parser.add_argument("--after-line", type=int, default=0)
    parser.add_argument("--kill-self-after-line", type=int)
    parser.add_argument("--cut-line-at", type=int, default=0)
    parser.add_argument("--close-and-sleep", type=float)
    parser.add_argument("--exit", type=int, default=0)
    parser.add_argument("--stderr")
    parser.add_argument("--echo-stdin", action="store_true")
    parser.add_argument("--repeat-for", type=float)
    parser.add_argument("--ignore-signals", action="store_true")
    args = parser.parse_args()

    if args.ignore_signals:
        for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(number, signal.SIG_IGN)

    if args.stderr:
        sys.stderr.write(args.stderr)
        sys.stderr.flush()
    if args.echo_stdin:
        sys.stderr.write(sys.stdin.read())
        sys.stderr.flush()

    out = sys.stdout.buffer
    delay = args.delay_ms / 1000.0

    def write(piece):
        if piece:
            out.write(piece)
            out.flush()
            if delay:
                time.sleep(delay)

    with open(args.fixture, "rb") as fixture:
        lines = fixture.read().splitlines(keepends=True)
    if args.repeat_for is not None:
        until = time.monotonic() + args.repeat_for
        while time.monotonic() < until:
            for line in lines:
                write(line)
        sys.exit(args.exit)
    for number, line in enumerate(lines, start=1):
        if args.kill_self_after_line is not None and number > args.kill_self_after_line:
            write(line[: args.cut_line_at])
            os.kill(os.getpid(), signal.SIGKILL)
        step = max(1, len(line) // (args.splits + 1))
        for at in range(0, len(line), step):
            write(line[at : at + step])
        if args.wait_for and number == args.after_line:
            while not os.path.exists(args.wait_for):
                time.sleep(0.005)

    if args.close_and_sleep is not None:
        out.close()
        os.close(1)
        time.sleep(args.close_and_sleep)
    sys.exit(args.exit)


if __name__ == "__main__":
    main()
