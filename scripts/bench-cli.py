"""The command line's benchmarks for issue 31, each a ratio measured in one run:

    python3 scripts/bench-cli.py batch          # make bench-batch
    python3 scripts/bench-cli.py peers          # make bench-peers
    python3 scripts/bench-cli.py stats-memory   # make bench-stats-memory

batch: `axt normalize` over a directory of inputs, `axt import`, `axt stats` and
`axt export` (OTLP and AgentLog) over a directory of runs, and `axt stats` over 16,000
small transcripts, each on one core (`taskset -c 0`) and on every core (unpinned): the
speed-up on two cores against one, and the peak RSS of both. With autogroup scheduling
(Linux's default for sessions), a machine busy with other sessions' work gives a process
about the same CPU however many threads it runs: these ratios mean something only on a
machine otherwise idle.

peers: `axt import claude-code` against ccusage's usage-only read (`ccusage session
--json --offline`, version pinned below, installed into target/peers by npm) on the same
generated Claude Code logs: one session of about 198 MiB, and 100 sessions of 2 MiB.
CPU time (user + sys) and peak RSS of each, from GNU time.

stats-memory: `axt stats` peak RSS on a directory of 1,000, 16,000 and 32,000 small
transcripts: the ratio of 16,000 to 1,000, and the growth from 16,000 to 32,000 (flat when
nothing is kept per file).

Every figure is the median of AXT_BENCH_RUNS runs (default 3), methods interleaved run by
run so host noise lands on each alike. The release binary is built first (cargo build
--release). The targets each measured are written to target/bench/<name>.tsv for
`scripts/bench-table.py`, and printed. Inputs are generated into target/bench-data (kept
between runs: delete it to regenerate) by scripts/claude-code-sessions.py and the
normalize bench's own stream generator (AXT_BENCH_SAVE).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The binary `cargo build --release` makes (CARGO_TARGET_DIR is followed).
AXT = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release" / "axt"
DATA = ROOT / "target" / "bench-data"
PEERS = ROOT / "target" / "peers"
CCUSAGE_VERSION = "18.0.11"  # The last release in pure JavaScript that npm installs here.
RUNS = int(os.environ.get("AXT_BENCH_RUNS", "3"))


def build() -> None:
    subprocess.run(["cargo", "build", "--release", "--locked", "--quiet"], cwd=ROOT, check=True)


class Measured:
    """One command's run under GNU time: wall seconds, CPU seconds, peak RSS in MiB."""

    def __init__(self, wall: float, cpu: float, rss_mib: float):
        self.wall, self.cpu, self.rss_mib = wall, cpu, rss_mib


def timed(command: list[str], env: dict | None = None, stdout=subprocess.DEVNULL) -> Measured:
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%e %U %S %M"] + command,
        stdout=stdout, stderr=subprocess.PIPE, env={**os.environ, **(env or {})}, text=True,
    )
    last = done.stderr.strip().splitlines()[-1]
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}")
    wall, user, system, rss_kb = last.split()
    return Measured(float(wall), float(user) + float(system), int(rss_kb) / 1024)


def medians(runs: list[Measured]) -> Measured:
    return Measured(
        statistics.median(r.wall for r in runs),
        statistics.median(r.cpu for r in runs),
        statistics.median(r.rss_mib for r in runs),
    )


def interleaved(commands: dict[str, tuple[list[str], dict | None]]) -> dict[str, Measured]:
    """The median of RUNS runs of each command, one of each per round."""
    runs: dict[str, list[Measured]] = {name: [] for name in commands}
    for _ in range(RUNS):
        for name, (command, env) in commands.items():
            runs[name].append(timed(command, env))
    return {name: medians(r) for name, r in runs.items()}


class Targets:
    """The rows of target/bench/<bench>.tsv (see scripts/bench-table.py)."""

    def __init__(self, bench: str):
        self.bench, self.rows = bench, []

    def add(self, target: str, measured: float, required: float, unit: str,
            floor: bool = True) -> None:
        met = measured >= required if floor else measured <= required
        row = [target, f"{measured:.2f}{unit}", f"{'>=' if floor else '<='} {required}{unit}",
               "met" if met else "not met"]
        print("target: " + " | ".join(row))
        self.rows.append("\t".join(row))

    def not_measured(self, target: str, required: str, why: str) -> None:
        row = [target, f"({why})", required, "not met"]
        print("target: " + " | ".join(row))
        self.rows.append("\t".join(row))

    def save(self) -> None:
        folder = ROOT / "target" / "bench"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{self.bench}.tsv").write_text("".join(r + "\n" for r in self.rows))


def sessions(name: str, count: int, mib: float, seed: int) -> Path:
    """A directory of generated Claude Code logs (CLAUDE_CONFIG_DIR layout), made once."""
    folder = DATA / name
    if not (folder / "projects").exists():
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run([sys.executable, str(ROOT / "scripts" / "claude-code-sessions.py"),
                        str(folder), str(count), str(mib), "--seed", str(seed)], check=True)
    return folder


def size_mib(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*.jsonl")) / (1 << 20)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def table(results: dict[str, Measured]) -> None:
    print(f"  {'method':<34} {'wall s':>8} {'CPU s':>8} {'peak RSS MiB':>13}")
    for name, m in results.items():
        print(f"  {name:<34} {m.wall:>8.2f} {m.cpu:>8.2f} {m.rss_mib:>13.1f}")


def peers() -> None:
    ccusage = PEERS / "node_modules" / ".bin" / "ccusage"
    if not ccusage.exists():
        PEERS.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(PEERS),
                        f"ccusage@{CCUSAGE_VERSION}"], check=True)
    targets = Targets("peers")
    for name, count, mib in [("peers-one-198mib", 1, 198), ("peers-100x2mib", 100, 2)]:
        folder = sessions(name, count, mib, 31)
        out = DATA / f"{name}.out"
        shutil.rmtree(out, ignore_errors=True)
        results = interleaved({
            "axt import claude-code": (
                [str(AXT), "import", "claude-code", str(folder / "projects"), "--out", str(out),
                 "--replace"], None),
            f"ccusage {CCUSAGE_VERSION} session --json": (
                [str(ccusage), "session", "--json", "--offline"],
                {"CLAUDE_CONFIG_DIR": str(folder), "TZ": "UTC"}),
        })
        print(f"\n{name}: {count} session(s), {size_mib(folder):.0f} MiB, "
              f"medians of {RUNS}, load average {load()}")
        table(results)
        axt, peer = results.values()
        targets.add(f"import {name}: ccusage CPU / axt CPU", peer.cpu / axt.cpu, 1.0, "x")
        targets.add(f"import {name}: ccusage peak RSS / axt peak RSS",
                    peer.rss_mib / axt.rss_mib, 1.0, "x")
    targets.save()


def transcripts(name: str, count: int, lines: int) -> Path:
    """A directory of `count` small transcripts of `lines` events each, made once."""
    folder = DATA / name
    if folder.exists() and len(list(folder.iterdir())) == count:
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for n in range(count):
        run = f"run-{n:05d}"
        events = [("run.started", "", {"name": "bench", "kind": "workflow"}),
                  ("step.started", "agent", {"name": "agent", "kind": "agent"})]
        for i in range(lines):
            events.append(("message.assistant", "agent", {"role": "assistant", "blocks": [
                {"type": "tool_use", "fidelity": "agent_emitted", "tool_name": "Bash",
                 "tool_id": f"t{i}", "tool_input": {"command": "ls"}}]}))
            events.append(("tool.result", "agent", {"name": "Bash", "call_id": f"t{i}",
                           "input": None, "output": "x" * 200, "fidelity": "agent_emitted"}))
        events.append(("step.completed", "agent", {"name": "agent", "kind": "agent"}))
        events.append(("run.completed", "", {"name": "bench", "kind": "workflow", "result": {
            "status": "completed", "duration_ms": 1000}}))
        with open(folder / f"{run}.jsonl", "w") as f:
            for seq, (kind, path, payload) in enumerate(events, 1):
                f.write(json.dumps({"seq": seq, "run_id": run, "type": kind, "path": path,
                                    "iteration": 0, "timestamp": "2026-06-08T08:14:42.123456Z",
                                    "payload": payload}, separators=(",", ":")) + "\n")
    return folder


def stats_memory() -> None:
    targets = Targets("stats-memory")
    counts = [1000, 16000, 32000]
    folders = {n: transcripts(f"stats-{n}", n, 5) for n in counts}
    results = interleaved({
        f"axt stats ({n:,} transcripts)": ([str(AXT), "stats", str(folders[n])], None)
        for n in counts
    })
    print(f"\nstats memory: medians of {RUNS}, load average {load()}")
    table(results)
    one, sixteen, thirty_two = results.values()
    targets.add("stats peak RSS, 16,000 files / 1,000 files", sixteen.rss_mib / one.rss_mib,
                1.25, "x", floor=False)
    # What grows with the number of files, apart from what any long count reaches (the
    # jobs in flight, the allocator's caches): the slope between the two larger points.
    # The file list this replaced was ~260 bytes a file, 4 MiB over these 16,000 files.
    growth = (thirty_two.rss_mib - sixteen.rss_mib) * 1024
    print(f"  peak RSS growth, 16,000 -> 32,000 files: {growth:.0f} KiB "
          f"({growth * 1024 / 16000:.0f} bytes a file)")
    targets.add("stats peak RSS growth, 16,000 -> 32,000 files", growth, 512, " KiB",
                floor=False)
    targets.save()


def provider_streams(count: int) -> Path:
    """`count` Claude stream-json inputs cut from the normalize bench's stream, made once."""
    folder = DATA / "normalize-inputs"
    if folder.exists() and len(list(folder.iterdir())) == count:
        return folder
    saved = DATA / "streams"
    if not (saved / "claude.jsonl").exists():
        # Only the generator is wanted: the release profile builds in minutes, the bench
        # profile's fat LTO in tens of them.
        subprocess.run(["cargo", "bench", "--locked", "--profile", "release", "--bench",
                        "normalize"], cwd=ROOT,
                       check=True, stdout=subprocess.DEVNULL,
                       env={**os.environ, "AXT_BENCH_MB": "100", "AXT_BENCH_REPS": "1",
                            "AXT_BENCH_PROVIDERS": "claude", "AXT_BENCH_SAVE": str(saved),
                            "AXT_BENCH_TARGETS": str(DATA / "ignored")})
    lines = (saved / "claude.jsonl").read_bytes().splitlines(keepends=True)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    per = len(lines) // count + 1
    for n in range(count):
        (folder / f"input-{n:03d}.jsonl").write_bytes(b"".join(lines[n * per:(n + 1) * per]))
    return folder


def batch() -> None:
    targets = Targets("batch")
    inputs = provider_streams(40)
    logs = sessions("peers-100x2mib", 100, 2, 31)
    runs = DATA / "batch-runs"
    subprocess.run([str(AXT), "import", "claude-code", str(logs / "projects"), "--out",
                    str(runs), "--replace"], check=True, stderr=subprocess.DEVNULL)
    out = DATA / "batch-normalize.out"
    normalize = [str(AXT), "normalize", "--provider", "claude", "--clock",
                 "fixed:2026-06-08T08:14:42Z", "--replace", "--out", str(out), str(inputs)]
    jobs = {
        "normalize (40 inputs, --out)": normalize,
        "import (100 sessions)": [str(AXT), "import", "claude-code", str(logs / "projects"),
                                  "--out", str(DATA / "batch-import.out"), "--replace"],
        "stats (a directory of runs)": [str(AXT), "stats", str(runs)],
        # Many tiny files: what is handed over per file, not the counting, is measured.
        "stats (16,000 small transcripts)": [str(AXT), "stats",
                                             str(transcripts("stats-16000", 16000, 5))],
        "export --to otlp (a directory)": [str(AXT), "export", "--to", "otlp", str(runs),
                                           "-o", "/dev/null"],
        # Every export target over a directory: a new one (Parquet) is a line here.
        "export --to agentlog (a directory)": [str(AXT), "export", "--to", "agentlog",
                                               str(runs), "-o", "/dev/null"],
        # A fresh dataset each time: into the same one, every run would be "unchanged".
        "export --to parquet (a directory)": [
            "sh", "-c", 'rm -rf "$1" && exec "$2" export --to parquet --quiet "$3" --out "$1"',
            "sh", str(DATA / "batch-parquet.out"), str(AXT), str(runs)],
    }
    for name, command in jobs.items():
        probe = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)
        if probe.returncode not in (0, 1):
            print(f"\n{name}: cannot run: {probe.stderr.strip()[:300]}")
            targets.not_measured(f"{name}: 2 cores / 1 core", ">= 1.8x", "unsupported")
            continue
        results = interleaved({
            "one core (taskset -c 0)": (["taskset", "-c", "0"] + command, None),
            "every core": (command, None),
        })
        print(f"\n{name}: medians of {RUNS}, load average {load()}")
        table(results)
        one, every = results.values()
        targets.add(f"{name}: speed-up, 2 cores / 1 core", one.wall / every.wall, 1.8, "x")
    targets.save()


def main() -> int:
    if len(sys.argv) != 2 or sys.argv[1] not in ("batch", "peers", "stats-memory"):
        sys.exit(__doc__)
    build()
    print(f"{os.cpu_count()} CPUs, load average {load()}")
    {"batch": batch, "peers": peers, "stats-memory": stats_memory}[sys.argv[1]]()
    return 0


if __name__ == "__main__":
    sys.exit(main())
