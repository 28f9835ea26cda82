#!/usr/bin/env bash
# The size of `axt view`'s page and its load time in headless Chromium, for a ~100 MB
# transcript and for a directory of 1,000 runs, both generated here (deterministic: a fixed
# seed), in a temporary directory removed on exit.
#
#   scripts/view-size.sh                   # 100 MB and 1,000 runs
#   AXT_VIEW_MB=20 AXT_VIEW_RUNS=200 scripts/view-size.sh
#   AXT_VIEW_KEEP=1 scripts/view-size.sh   # keep the generated inputs and pages
#
# The large run is one agent session, like a long Claude Code run normalized by axt: turns of
# a prompt-sized user message, assistant Markdown, thinking, one to three tool calls (shell
# commands, reads, edits with old and new text, searches; one in twelve fails) and their
# output (a few lines to a few hundred), a sub-agent step every 200 turns, a second apart in
# time so the timeline has durations. The directory holds 1,000 such runs of 2 to 40 turns
# (log-uniform: most runs short, a few long), of each provider in turn, started
# over 60 days, one in nine failed.
#
# Reported: the page's size; `axt view`'s time and peak memory (GNU time; a release build
# without LTO, as CI builds the Python wheel); in Chromium (through tests/axt/support/
# view-browser.mjs, a fresh profile, 1400x1000): the time to the page's ready mark
# (performance.mark "axt-ready", from navigation start), a search's time to its first match
# drawn, and a link's to an event near the end. Needs Chromium and scripts/web-tools.sh's
# tools, as the browser tests do.
set -euo pipefail
cd "$(dirname "$0")/.."

MB=${AXT_VIEW_MB:-100}
RUNS=${AXT_VIEW_RUNS:-1000}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/axt-view-size.XXXXXX")
if [ -n "${AXT_VIEW_KEEP:-}" ]; then
  echo "keeping the inputs and pages in $TMP"
else
  trap 'rm -rf "$TMP"' EXIT
fi

bash scripts/web-tools.sh >/dev/null
CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
  cargo build --release --locked --quiet
AXT=target/release/axt

python3 - "$TMP" "$MB" "$RUNS" <<'PY'
import json, os, random, sys
from datetime import datetime, timedelta, timezone

tmp, mb, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
words = ("the a config parser token stream reader writer error test build cache index value "
         "request response handler module function returns missing failed update release "
         "branch commit file path line offset schema version field").split()

def sentence(rng, n):
    return " ".join(rng.choice(words) for _ in range(n)).capitalize() + "."

def markdown(rng):
    parts = ["## " + sentence(rng, 4), sentence(rng, 25), ""]
    parts += ["- " + sentence(rng, 8) for _ in range(rng.randint(2, 5))]
    parts += ["", "```rust", *("    let x = %s(%d);" % (rng.choice(words), i) for i in range(rng.randint(3, 12))), "```", sentence(rng, 15)]
    return "\n".join(parts)

def output(rng):
    n = rng.choice((3, 8, 20, 60, 300))
    return "\n".join("%s:%d: %s" % (rng.choice(words), i, sentence(rng, 9)) for i in range(n))

class Run:
    def __init__(self, path, run_id, name, start):
        self.f = open(path, "w")
        self.run_id, self.seq, self.t, self.size = run_id, 0, start, 0
        self.put("run.started", "", {"name": name, "kind": "agent"})

    def put(self, type_, path, payload, seconds=0.0):
        self.seq += 1
        self.t += timedelta(seconds=seconds)
        line = json.dumps({"seq": self.seq, "run_id": self.run_id, "type": type_, "path": path,
                           "iteration": 0, "timestamp": self.t.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                           "payload": payload}, separators=(",", ":")) + "\n"
        self.f.write(line)
        self.size += len(line)

def turn(run, rng, path, n):
    run.put("message.user", path, {"role": "user", "blocks": [{"type": "text", "fidelity": "agent_emitted", "text": "Step %d: %s" % (n, sentence(rng, 30))}]}, 0.2)
    calls = []
    blocks = [{"type": "thinking", "fidelity": "agent_emitted", "thinking": sentence(rng, 60)},
              {"type": "text", "fidelity": "agent_emitted", "text": markdown(rng)}]
    for k in range(rng.randint(1, 3)):
        kind = rng.choice(("Bash", "Read", "Edit", "Grep"))
        tid = "toolu_%d_%d_%d" % (run.seq, n, k)
        if kind == "Bash":
            arg = {"command": "cargo test %s -- --nocapture" % rng.choice(words)}
        elif kind == "Read":
            arg = {"file_path": "/src/%s.rs" % rng.choice(words)}
        elif kind == "Edit":
            old = "\n".join(sentence(rng, 6) for _ in range(rng.randint(1, 6)))
            arg = {"file_path": "/src/%s.rs" % rng.choice(words), "old_string": old,
                   "new_string": old.replace("the", "a", 1) + "\n" + sentence(rng, 5)}
        else:
            arg = {"pattern": rng.choice(words), "path": "src"}
        blocks.append({"type": "tool_use", "fidelity": "agent_emitted", "tool_name": kind, "tool_id": tid, "tool_input": arg})
        calls.append((kind, tid, arg))
    run.put("message.assistant", path, {"role": "assistant", "blocks": blocks, "message_id": "msg_%d" % run.seq}, rng.uniform(1, 6))
    for kind, tid, arg in calls:
        run.put("tool.call", path, {"name": kind, "call_id": tid, "input": arg, "output": None, "fidelity": "agent_emitted"}, 0.001)
    for kind, tid, arg in calls:
        failed = rng.random() < 1 / 12
        payload = {"name": kind, "call_id": tid, "input": None, "output": output(rng), "fidelity": "agent_emitted"}
        if failed:
            payload["error"] = "exit status 101"
            payload["exit_code"] = 101
        run.put("tool.result", path, payload, rng.uniform(0.05, 3))
    return run

def session(path, run_id, provider, model, start, turns=None, size=None, failed=False, seed=0):
    rng = random.Random(seed)
    run = Run(path, run_id, provider, start)
    run.put("step.started", "agent", {"name": "agent", "kind": "agent"})
    n = 0
    while (turns is not None and n < turns) or (size is not None and run.size < size):
        n += 1
        turn(run, rng, "agent", n)
        if n % 200 == 0:
            sub = "agent.toolu_sub_%d" % n
            run.put("step.started", sub, {"name": "Explore", "kind": "agent"}, 0.1)
            for m in range(3):
                turn(run, rng, sub, m)
            run.put("step.completed", sub, {"name": "Explore", "kind": "agent"}, 0.1)
    run.put("message.assistant", "agent", {"role": "assistant", "blocks": [{"type": "text", "fidelity": "agent_emitted", "text": markdown(rng)}]}, 1)
    error = {"error": "the agent exited with code 1"} if failed else {}
    run.put("step.completed", "agent", {"name": "agent", "kind": "agent", **error}, 0.1)
    usage = {"input_tokens": n * 800, "output_tokens": n * 400, "cache_read_tokens": n * 9000, "cache_write_tokens": n * 300, "reasoning_tokens": 0}
    result = {"provider": provider, "model": model, "usage": usage, "status": "failed" if failed else "completed", "report": {"records": {}, "unreadable": 0}}
    if provider == "claude":
        result["cost_usd"] = round(n * 0.013, 4)
    run.put("run.completed", "", {"name": provider, "kind": "agent", "result": result, **error}, 0.1)
    run.f.close()
    return run.size

start = datetime(2026, 6, 8, 8, 0, tzinfo=timezone.utc)
big = session(os.path.join(tmp, "big.jsonl"), "big-run", "claude", "claude-sonnet-4-6", start, size=mb << 20, seed=1)
os.mkdir(os.path.join(tmp, "runs"))
# The providers axt reads (its corpus's folders), each with a made-up model of its own.
providers = [(p, p + "-model-1") for p in sorted(os.listdir("corpus/normalize"))]
total = 0
for i in range(runs):
    rng = random.Random(1000 + i)
    provider, model = providers[i % len(providers)]
    when = start - timedelta(days=rng.uniform(0, 60))
    total += session(os.path.join(tmp, "runs", "run-%04d.jsonl" % i), "run-%04d" % i, provider, model, when,
                     turns=int(2 ** rng.uniform(1, 5.33)), failed=i % 9 == 0, seed=i)
print("generated: big.jsonl %d bytes; runs/: %d files, %d bytes" % (big, runs, total))
PY

measure() { # name, inputs...: writes $TMP/$name.html, prints axt's time and memory
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$TMP/$name.time" "$AXT" view -q -o "$TMP/$name.html" "$@"
  read -r seconds kb < "$TMP/$name.time"
  printf '%s: page %s bytes (%d MiB); axt view %s s, peak %d MiB\n' "$name" \
    "$(stat -c %s "$TMP/$name.html")" $(( $(stat -c %s "$TMP/$name.html") >> 20 )) "$seconds" $(( kb >> 10 ))
}
measure big "$TMP/big.jsonl"
measure runs "$TMP/runs"

last_seq=$(tail -n 1 "$TMP/big.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["seq"] - 3)')
cat > "$TMP/plan.json" <<JSON
{"playwright": "$(pwd)/target/web/node_modules/playwright-core/index.mjs",
 "chromium": "${AXT_CHROMIUM:-/usr/bin/chromium}", "timeout": 600000,
 "cases": [
  {"name": "big", "url": "file://$TMP/big.html", "actions": [
    {"do": "timing"}, {"do": "counts"}, {"do": "search", "query": "cargo test parser"},
    {"do": "goto", "fresh": true, "hash": "#run=big-run&seq=$last_seq"}]},
  {"name": "runs", "url": "file://$TMP/runs.html", "actions": [
    {"do": "timing"}, {"do": "counts"}, {"do": "fill", "selector": "#filter", "text": "gemini failed"},
    {"do": "rows"}, {"do": "goto", "fresh": true, "hash": "#run=run-0999&seq=5"}]}
 ]}
JSON
node tests/axt/support/view-browser.mjs "$TMP/plan.json" > "$TMP/seen.json"
python3 - "$TMP/seen.json" <<'PY'
import json, sys
for case in json.load(open(sys.argv[1])):
    r = {x["do"] + str(i): x for i, x in enumerate(case["results"])}
    timing = case["results"][0]
    counts = case["results"][1]
    line = "%s in Chromium: ready %.0f ms after navigation start (%.0f ms wall to data-ready); %s rows, %s steps, %s tool calls drawn" % (
        case["name"], timing["readyMs"], timing["wallMs"], counts["rows"], counts["steps"], counts["tools"])
    for x in case["results"][2:]:
        if x["do"] == "search":
            line += "; search: %d matches, first drawn in %d ms" % (x["matches"], x["ms"])
        if x["do"] == "goto":
            line += "; link to seq %s shown in %d ms" % (x["seq"], x["ms"])
        if x["do"] == "rows":
            line += "; filter: %d rows" % len(x["ids"])
    print(line)
    quiet = all(not case[k] for k in ("console", "errors", "dialogs", "requests", "csp"))
    if not quiet:
        print("  not quiet:", {k: case[k][:3] for k in ("console", "errors", "dialogs", "requests", "csp")})
        sys.exit(1)
PY
