#!/usr/bin/env bash
# Crash soak (make soak): SIGKILL at random moments, SOAK_KILLS times (default 1000), taking
# turns between four victims:
#
#   recorder   examples/soak.rs writing from two threads (short lines and 256 KiB ones) into
#              one run, restarted on the same file after every kill (a new run every 40 kills)
#   agent      the agent under `axt exec` (axt must then finish the run: run.completed)
#   exec       `axt exec` itself, mid-recording (its agent must die with it: the watchdog)
#   normalize  `axt normalize --out` reading a live agent's stream, mid-recording
#
# After each kill of exec or normalize the command line reopens the run first
# (`axt check --repair`, which moves a torn final line aside); then, for every victim,
# `soak verify` reopens it with a recorder and checks every line decodes with seq 1, 2, 3,
# ... in file order, that no acked seq is missing, that the bytes verified before the kill
# are unchanged, that no torn line was left after the command line's reopen, and that the
# next record gets the next seq.
#
# Then a disk that fills and frees: SOAK_DISK_RUNS (default 20) runs of `axt exec` into a
# real 1 MiB tmpfs (mounted when root; else this part says SKIPPED and why), a filler
# taking every free byte at a random moment and giving it back up to half a second later.
# Each run must exit 0 with its run whole (run.completed, every message) and its raw copy
# byte for byte the agent's output.
#
# The first failure stops the soak (exit 1). SOAK_KEEP=1 keeps the work directory.
set -euo pipefail

kills=${SOAK_KILLS:-1000}
cargo build --locked --quiet --example soak --bin axt
soak=$PWD/target/debug/examples/soak
axt=$PWD/target/debug/axt
work=$(mktemp -d "${TMPDIR:-/tmp}/axt-soak.XXXXXX")
trap '[ -n "${SOAK_KEEP:-}" ] && echo "kept $work" || rm -rf "$work"' EXIT

# A random pause of 0 to $1 - 1 milliseconds.
pause() { sleep "$(printf '0.%03d' $((RANDOM % $1)))"; }

declare -A killed=([recorder]=0 [agent]=0 [exec]=0 [normalize]=0)
torn=0 lines=0 repaired=0 orphans=0
SECONDS=0

verify() { # DIR RUN OPTIONS...: runs soak verify, counts lines and torn tails
    local out
    if ! out=$("$soak" verify "$@" 2>&1); then
        echo "soak: after kill $i ($victim): $out" >&2
        exit 1
    fi
    if grep -q '^torn ' <<<"$out"; then torn=$((torn + 1)); fi
    lines=$((lines + $(sed -n 's/^ok //p' <<<"$out")))
}

# The command line reopens a run a killed command left: a torn final line goes aside.
reopen() { # FILE
    [ -e "$1" ] || return 0
    local out
    out=$("$axt" check --repair "$1" 2>&1 >/dev/null) || true
    if grep -q 'moved the torn final line' <<<"$out"; then repaired=$((repaired + 1)); fi
}

for i in $(seq 1 "$kills"); do
    case $((i % 5)) in
        0 | 1) victim=recorder ;;
        2) victim=agent ;;
        3) victim=exec ;;
        4) victim=normalize ;;
    esac
    case $victim in
        recorder)
            run=writer-$((i / 40))
            "$soak" write "$work/rec" "$run" >"$work/acks" &
            pid=$!
            pause 60
            kill -9 "$pid"
            wait "$pid" 2>/dev/null || true
            acked=$(tail -n 1 "$work/acks" | tr -cd 0-9)
            verify "$work/rec" "$run" --acked "${acked:-0}" --state "$work/$run.state"
            ;;
        agent | exec)
            run=$victim-$i
            rm -f "$work/agent.pid"
            "$axt" exec -p claude --out "$work/exec" --run-id "$run" --grace-secs 2 -- \
                sh -c "echo \$\$ > '$work/agent.pid'; exec '$soak' agent" \
                >/dev/null 2>"$work/exec.err" &
            pid=$!
            until [ -s "$work/agent.pid" ]; do sleep 0.005; done
            agent=$(cat "$work/agent.pid")
            pause 200
            if [ "$victim" = agent ]; then
                kill -9 "$agent"
                status=0
                wait "$pid" || status=$?
                if [ "$status" != 137 ]; then
                    echo "soak: axt exec exited $status after its agent was killed" >&2
                    cat "$work/exec.err" >&2
                    exit 1
                fi
                verify "$work/exec" "$run" --finished
            else
                kill -9 "$pid"
                wait "$pid" 2>/dev/null || true
                # The watchdog stops the agent's group: SIGTERM, SIGKILL 2 s later.
                for _ in $(seq 1 400); do
                    kill -0 "$agent" 2>/dev/null || break
                    sleep 0.01
                done
                if kill -0 "$agent" 2>/dev/null; then
                    orphans=$((orphans + 1))
                    kill -9 "$agent" 2>/dev/null || true
                fi
                reopen "$work/exec/$run.jsonl"
                verify "$work/exec" "$run" --whole
            fi
            ;;
        normalize)
            run=normalize-$i
            mkdir -p "$work/normalize"
            "$soak" agent 2>/dev/null | "$axt" normalize -p claude --out "$work/normalize" \
                --run-id "$run" >/dev/null 2>&1 &
            pid=$!
            pause 200
            # $! is the last command of the pipeline: axt normalize.
            kill -9 "$pid"
            wait "$pid" 2>/dev/null || true
            reopen "$work/normalize/$run.jsonl"
            verify "$work/normalize" "$run" --whole
            ;;
    esac
    killed[$victim]=$((killed[$victim] + 1))
done

if [ "$orphans" -gt 0 ]; then
    echo "soak: $orphans agents outlived the axt exec that was killed" >&2
    exit 1
fi
printf 'soak: %d kills (recorder %d, agent %d, axt exec %d, axt normalize %d), %d torn tails moved aside by the recorder, %d by axt check --repair, %d line checks, no agent outlived its axt exec, %d s\n' \
    "$kills" "${killed[recorder]}" "${killed[agent]}" "${killed[exec]}" "${killed[normalize]}" \
    "$torn" "$repaired" "$lines" "$SECONDS"

# A disk that fills and frees during the run.
disk_runs=${SOAK_DISK_RUNS:-20}
disk=$work/disk
mkdir -p "$disk"
if ! mount_error=$(mount -t tmpfs -o size=1048576 tmpfs "$disk" 2>&1); then
    echo "soak: disk part SKIPPED: cannot mount a tmpfs (root is needed): $mount_error"
    exit 0
fi
trap 'umount -l "$disk" 2>/dev/null; [ -n "${SOAK_KEEP:-}" ] && echo "kept $work" || rm -rf "$work"' EXIT
"$soak" agent --messages 400 >"$work/expected.raw"
refused=0
SECONDS=0
for i in $(seq 1 "$disk_runs"); do
    run=disk-$i
    "$axt" exec -p claude --out "$disk/runs" --run-id "$run" --grace-secs 5 -- \
        "$soak" agent --messages 400 >/dev/null 2>"$work/disk.err" &
    pid=$!
    pause 100
    # Every free byte taken, given back up to half a second later.
    dd if=/dev/zero of="$disk/filler" bs=64k 2>/dev/null || true
    pause 500
    rm -f "$disk/filler"
    status=0
    wait "$pid" || status=$?
    if [ "$status" != 0 ]; then
        echo "soak: disk run $i: axt exec exited $status" >&2
        cat "$work/disk.err" >&2
        exit 1
    fi
    if grep -q 'wait for the disk\|kept in memory and retried' "$work/disk.err"; then
        refused=$((refused + 1))
    fi
    if ! cmp -s "$disk/runs/$run.raw" "$work/expected.raw"; then
        echo "soak: disk run $i: the raw copy is not the agent's output" >&2
        exit 1
    fi
    messages=$(grep -c '"type":"message.assistant"' "$disk/runs/$run.jsonl" || true)
    if [ "$messages" != 400 ]; then
        echo "soak: disk run $i: $messages of 400 messages in the transcript" >&2
        exit 1
    fi
    out=$("$soak" verify "$disk/runs" "$run" --finished --whole 2>&1) || {
        echo "soak: disk run $i: $out" >&2
        exit 1
    }
    rm -f "$disk/runs/$run.jsonl" "$disk/runs/$run.raw"
done
printf 'soak: %d runs on a 1 MiB tmpfs filled and freed mid-run, %d of them refused writes and lost nothing, %d s\n' \
    "$disk_runs" "$refused" "$SECONDS"
