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
machine otherwise idle, or with AXT_BENCH_FIFO=1, which runs each command under `chrt -f
1` (SCHED_FIFO: the other sessions' ordinary tasks wait while it runs; needs root or
CAP_SYS_NICE). Even so, under a load of 8-16 a row's 2v1 ratio ranged 1.4-2.0 over 21
alternated runs of one binary: judge medians of many runs, or the quiet machine's.

peers: `axt import STORE` (and `axt usage STORE`) against the tools
that read the same store (PEER_PACKAGES below, versions pinned, installed into target/peers
by npm or pip, runs offline) on the same
generated logs: one session of about 198 MiB, and 100 sessions of 2 MiB, of Claude Code
(scripts/claude-code-sessions.py) and of Codex, Copilot CLI, Gemini CLI, Qwen Code and
OpenCode's database (scripts/store-sessions.py, under a home directory as each agent keeps
them). CPU time (user + sys) and peak RSS of each, from GNU time; a CPU and a memory target
per peer (AXT_BENCH_STORES=claude-code,codex,... chooses the stores).

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
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The binary `cargo build --release` makes (CARGO_TARGET_DIR is followed).
AXT = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release" / "axt"
DATA = ROOT / "target" / "bench-data"
PEERS = ROOT / "target" / "peers"
RUNS = int(os.environ.get("AXT_BENCH_RUNS", "3"))


def build() -> None:
    subprocess.run(["cargo", "build", "--release", "--locked", "--quiet"], cwd=ROOT, check=True)


class Measured:
    """One command's run under GNU time: wall seconds, CPU seconds, peak RSS in MiB."""

    def __init__(self, wall: float, cpu: float, rss_mib: float):
        self.wall, self.cpu, self.rss_mib = wall, cpu, rss_mib


def timed(command: list[str], env: dict | None = None, stdout=subprocess.DEVNULL) -> Measured:
    # The wall time by the clock here, not GNU time's %e: that is in hundredths of a
    # second, so a batch row's 0.17 s run (the Parquet export's, on two cores) reads
    # anywhere in 0.165-0.175 s, and its 2v1 ratio moved by up to 0.08x on rounding alone.
    # (What this clock adds, time's own fork and exec, is the same for every command.)
    started = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%U %S %M"] + command,
        stdout=stdout, stderr=subprocess.PIPE, env={**os.environ, **(env or {})}, text=True,
    )
    wall = time.perf_counter() - started
    last = done.stderr.strip().splitlines()[-1]
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}")
    user, system, rss_kb = last.split()
    return Measured(wall, float(user) + float(system), int(rss_kb) / 1024)


def medians(runs: list[Measured]) -> Measured:
    return Measured(
        statistics.median(r.wall for r in runs),
        statistics.median(r.cpu for r in runs),
        statistics.median(r.rss_mib for r in runs),
    )


def interleaved(commands: dict[str, tuple]) -> dict[str, Measured]:
    """The median of RUNS runs of each command, one of each per round. A command is
    (argv, env) or (argv, env, before): `before()` runs ahead of each run, untimed."""
    runs: dict[str, list[Measured]] = {name: [] for name in commands}
    for _ in range(RUNS):
        for name, (command, env, *before) in commands.items():
            for step in before:
                step()
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


# The peers, each pinned and installed by npm or pip into target/peers/<name> (every run
# after the first is offline). What each reads is checked on these generated stores: a peer
# that finds nothing in a store is no row of it.
PEER_PACKAGES = {
    # The last release in pure JavaScript; it reads Claude Code alone.
    "ccusage-18": "ccusage@18.0.11",
    # The all-agent release in Rust (ccusage PR #1000, its Rust hot path PR #1096): Claude
    # Code, Codex, Copilot CLI's session logs, Gemini CLI, Qwen Code, OpenCode's database.
    # 20.0.24 is the newest whose linux-x64 binary package the registry serves here (20.0.26
    # names a binary package it lacks); its binary is run, not through the Node launcher.
    "ccusage-20": "ccusage@20.0.24",
    # The JavaScript Codex reader released beside ccusage 18.
    "ccusage-codex-18": "@ccusage/codex@18.0.11",
    # tokscale's Rust command line (its linux-x64-gnu binary package): Claude Code, Codex,
    # Gemini CLI, Qwen Code and OpenCode's database. Its Copilot CLI reader reads only the
    # CLI's OpenTelemetry file export (~/.copilot/otel), not the session logs axt imports.
    "tokscale-4": "@tokscale/cli-linux-x64-gnu@4.17.0",
    # agentsview (Go; its PyPI wheel carries the binary, installed by pip): `agentsview sync`
    # parses every session of every agent it finds into its SQLite database and exits, the
    # peer doing what `axt import` does (the others above read usage only). Claude Code,
    # Codex, Copilot CLI's session logs, Gemini CLI, Qwen Code, OpenCode's database.
    "agentsview-0": "agentsview==0.46.1",
}
PEER_BINARIES = {
    "ccusage-18": "node_modules/.bin/ccusage",
    "ccusage-20": "node_modules/@ccusage/ccusage-linux-x64/bin/ccusage",
    "ccusage-codex-18": "node_modules/.bin/ccusage-codex",
    "tokscale-4": "node_modules/@tokscale/cli-linux-x64-gnu/bin/tokscale",
    "agentsview-0": "agentsview/bin/agentsview",
}
# The stores `axt import` reads besides Claude Code: where each lives under a home directory
# (scripts/store-sessions.py writes them so), the name ccusage and tokscale give the agent,
# and the peers that read it.
STORES = {
    "codex": (".codex", "codex",
              ["ccusage-20", "tokscale-4", "ccusage-codex-18", "agentsview-0"]),
    "copilot": (".copilot", "copilot", ["ccusage-20", "agentsview-0"]),
    "gemini": (".gemini", "gemini", ["ccusage-20", "tokscale-4", "agentsview-0"]),
    "qwen": (".qwen", "qwen", ["ccusage-20", "tokscale-4", "agentsview-0"]),
    "opencode": (".local/share/opencode", "opencode",
                 ["ccusage-20", "tokscale-4", "agentsview-0"]),
}
SIZES = [("one-198mib", 1, 198), ("100x2mib", 100, 2)]
# Tools that read a store, searched for and found unable to read the one generated here
# (printed with the store's rows, so that a missing row says why).
NO_ROW = {
    "copilot": "tokscale 4.17.0 reads Copilot CLI's OpenTelemetry file export "
               "(~/.copilot/otel), not its session logs",
    "opencode": "@ccusage/opencode 18.0.11 reads OpenCode's JSON files (0.5-1.1), not the "
                "database of 1.2 and later",
    "*": "agtrace (@lanegrid/agtrace) is not served by the npm registry here; claude-code-log "
         "renders HTML, no usage or import to time",
}


def peer_binary(name: str) -> Path:
    """The peer's binary, installed into target/peers/<name> the first time."""
    binary = PEERS / name / PEER_BINARIES[name]
    if not binary.exists():
        (PEERS / name).mkdir(parents=True, exist_ok=True)
        if "==" in PEER_PACKAGES[name]:
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                            "--disable-pip-version-check", "--root-user-action=ignore",
                            "--target", str(PEERS / name), PEER_PACKAGES[name]], check=True)
        else:
            subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix",
                            str(PEERS / name), PEER_PACKAGES[name]], check=True)
    binary.chmod(0o755)  # a package's file, not a declared bin: npm and pip leave it 644
    return binary


def peer_command(name: str, agent: str, home: Path,
                 claude_dir: Path | None = None) -> tuple[str, list[str], dict]:
    """The label, command and environment of a peer's read of one agent's store under `home`
    (Claude Code's under `claude_dir`, its CLAUDE_CONFIG_DIR layout)."""
    binary = str(peer_binary(name))
    version = PEER_PACKAGES[name].replace("==", "@").rsplit("@", 1)[1]
    env = {"HOME": str(home), "TZ": "UTC"}
    if claude_dir is not None:
        env["CLAUDE_CONFIG_DIR"] = str(claude_dir)
    if name == "ccusage-18":
        return (f"ccusage {version} session --json", [binary, "session", "--json", "--offline"],
                env)
    if name == "ccusage-codex-18":
        return (f"@ccusage/codex {version} session", [binary, "session", "--json", "--offline"],
                env)
    if name == "ccusage-20":
        return (f"ccusage {version} {agent} session",
                [binary, agent, "session", "--json", "--offline"], env)
    if name == "agentsview-0":
        # A fresh database each run (into the same one, sync would find nothing changed),
        # no daemon left behind, nothing asked of the network.
        data = DATA / "agentsview-data"
        env.update({"AGENTSVIEW_DATA_DIR": str(data), "AGENTSVIEW_NO_DAEMON": "1",
                    "AGENTSVIEW_DISABLE_UPDATE_CHECK": "1", "AGENTSVIEW_TELEMETRY_ENABLED": "0",
                    "AGENTSVIEW_NO_BROWSER": "1"})
        return (f"agentsview {version} sync",
                ["sh", "-c", 'rm -rf "$1" && shift && exec "$@"', "sh", str(data), binary,
                 "sync"], env)
    # tokscale keeps what it read in a cache under its config directory and reads only what
    # changed the next time: emptied before each run, so each is a first read, as axt's
    # `--replace` import is. Its prices come from the network unless told to use its cache.
    config = DATA / "tokscale-config"
    env.update({"TOKSCALE_CONFIG_DIR": str(config), "TOKSCALE_PRICING_CACHE_ONLY": "1"})
    return (f"tokscale {version} -c {agent} --json",
            ["sh", "-c", 'rm -rf "$1" && shift && exec "$@"', "sh", str(config), binary,
             "--json", "--no-spinner", "-c", agent, "--home", str(home),
             "--group-by", "session,model"], env)


def store_home(store: str, name: str, count: int, mib: float, seed: int) -> Path:
    """A home directory holding a generated store of `store` (scripts/store-sessions.py),
    made once."""
    home = DATA / f"peers-{store}-{name}"
    if not (home / ".done").exists():
        shutil.rmtree(home, ignore_errors=True)
        subprocess.run([sys.executable, str(ROOT / "scripts" / "store-sessions.py"), store,
                        str(home), str(count), str(mib), "--seed", str(seed)], check=True)
        (home / ".done").touch()
    return home


def size_of(root: Path) -> float:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) / (1 << 20)


def compare(targets: Targets, title: str, axt: tuple[list[str], dict | None],
            peer_names: list[str], agent: str, home: Path, claude_dir: Path | None,
            size: float, usage: tuple[list[str], dict | None] | None = None) -> None:
    """axt and each peer interleaved; a CPU and a peak-RSS row per peer, for `axt import`
    and, for a store `axt usage` reads (`usage`, its command), for `axt usage` too: the
    peers' own job (usage only) against axt's."""
    commands = {f"axt import {title.split()[0]}": axt}
    if usage is not None:
        commands[f"axt usage {title.split()[0]}"] = usage
    for name in peer_names:
        label, command, env = peer_command(name, agent, home, claude_dir)
        commands[label] = (command, env)
    results = interleaved(commands)
    print(f"\n{title}: {size:.0f} MiB, medians of {RUNS}, load average {load()}")
    table(results)
    mine, *theirs = results.values()
    used = theirs.pop(0) if usage is not None else None
    for name, peer in zip(peer_names, theirs):
        who = PEER_PACKAGES[name]
        targets.add(f"import {title}: {who} CPU / axt CPU", peer.cpu / mine.cpu, 1.0, "x")
        targets.add(f"import {title}: {who} peak RSS / axt peak RSS",
                    peer.rss_mib / mine.rss_mib, 1.0, "x")
        if used is not None:
            targets.add(f"usage {title}: {who} CPU / axt usage CPU", peer.cpu / used.cpu,
                        1.0, "x")
            targets.add(f"usage {title}: {who} peak RSS / axt usage peak RSS",
                        peer.rss_mib / used.rss_mib, 1.0, "x")


def peers() -> None:
    wanted = os.environ.get("AXT_BENCH_STORES", "claude-code," + ",".join(STORES)).split(",")
    targets = Targets("peers")
    if "claude-code" in wanted:
        for name, count, mib in SIZES:
            folder = sessions(f"peers-{name}", count, mib, 31)
            # tokscale finds Claude Code's logs only at <home>/.claude/projects.
            home = folder / "home"
            # Relative, so that the data directory can move (a link to an absolute path
            # would dangle, and `exists()` follows it).
            link = home / ".claude" / "projects"
            if link.is_symlink() and not link.exists():
                link.unlink()
            if not link.exists():
                (home / ".claude").mkdir(parents=True, exist_ok=True)
                link.symlink_to(Path("..") / ".." / "projects")
            out = DATA / f"peers-{name}.out"
            shutil.rmtree(out, ignore_errors=True)
            axt = ([str(AXT), "import", "claude-code", str(folder / "projects"), "--out",
                    str(out), "--replace"], None)
            usage = ([str(AXT), "usage", "claude-code", str(folder / "projects"), "--json"],
                     None)
            compare(targets, f"claude-code peers-{name}", axt,
                    ["ccusage-18", "ccusage-20", "tokscale-4", "agentsview-0"], "claude", home,
                    folder, size_mib(folder / "projects"), usage)
    for store, (root, agent, readers) in STORES.items():
        if store not in wanted:
            continue
        for name, count, mib in SIZES:
            home = store_home(store, name, count, mib, 31)
            out = DATA / f"peers-{store}-{name}.out"
            shutil.rmtree(out, ignore_errors=True)
            axt = ([str(AXT), "import", store, str(home / root), "--out", str(out), "--replace"],
                   None)
            # `axt usage` reads every store: its rows beside the import's.
            usage = ([str(AXT), "usage", store, str(home / root), "--json"], None)
            compare(targets, f"{store} peers-{name}", axt, readers, agent, home, None,
                    size_of(home / root), usage)
        if store in NO_ROW:
            print(f"  no row: {NO_ROW[store]}")
    print(f"\nno row anywhere: {NO_ROW['*']}")
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
    parquet = DATA / "batch-parquet.out"
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
        "export --to parquet (a directory)": [str(AXT), "export", "--to", "parquet", "--quiet",
                                              str(runs), "--out", str(parquet)],
    }
    # A fresh dataset each time (into the same one, every run would be "unchanged"), the
    # old one removed before the clock starts: its removal is no part of the export.
    fresh = {"export --to parquet (a directory)": lambda: shutil.rmtree(parquet,
                                                                        ignore_errors=True)}
    for name, command in jobs.items():
        before = [fresh[name]] if name in fresh else []
        for step in before:
            step()
        probe = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)
        if probe.returncode not in (0, 1):
            print(f"\n{name}: cannot run: {probe.stderr.strip()[:300]}")
            targets.not_measured(f"{name}: 2 cores / 1 core", ">= 1.8x", "unsupported")
            continue
        fifo = ["chrt", "-f", "1"] if os.environ.get("AXT_BENCH_FIFO") == "1" else []
        results = interleaved({
            "one core (taskset -c 0)": (fifo + ["taskset", "-c", "0"] + command, None, *before),
            "every core": (fifo + command, None, *before),
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
