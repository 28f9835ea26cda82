#!/usr/bin/env bash
# Crash soak (make soak): SIGKILL at random moments, SOAK_KILLS times (default 1000), taking
# turns between three victims:
#
#   recorder  examples/soak.rs writing from two threads (short lines and 256 KiB ones) into
#             one run, restarted on the same file after every kill (a new run every 40 kills)
#   agent     the agent under `axt exec` (axt must then finish the run: run.completed)
#   exec      `axt exec` itself, mid-recording
#
# After each kill `soak verify` reopens the run with a recorder (a torn tail is moved
# aside), checks every line decodes with seq 1, 2, 3, ... in file order, that no acked seq
# is missing, that the bytes verified before the kill are unchanged, and that the next
# record gets the next seq. The first failure stops the soak (exit 1). SOAK_KEEP=1 keeps
# the work directory.
set -euo pipefail

kills=${SOAK_KILLS:-1000}
cargo build --locked --quiet --example soak --bin axt
soak=$PWD/target/debug/examples/soak
axt=$PWD/target/debug/axt
work=$(mktemp -d "${TMPDIR:-/tmp}/axt-soak.XXXXXX")
trap '[ -n "${SOAK_KEEP:-}" ] && echo "kept $work" || rm -rf "$work"' EXIT

# A random pause of 0 to $1 - 1 milliseconds.
pause() { sleep "$(printf '0.%03d' $((RANDOM % $1)))"; }

declare -A killed=([recorder]=0 [agent]=0 [exec]=0)
torn=0 lines=0
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

for i in $(seq 1 "$kills"); do
    case $((i % 4)) in
        0 | 1) victim=recorder ;;
        2) victim=agent ;;
        3) victim=exec ;;
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
                kill -9 "$agent" 2>/dev/null || true
                verify "$work/exec" "$run"
            fi
            ;;
    esac
    killed[$victim]=$((killed[$victim] + 1))
done

printf 'soak: %d kills (recorder %d, agent %d, axt exec %d), %d torn tails moved aside, %d line checks, %d s\n' \
    "$kills" "${killed[recorder]}" "${killed[agent]}" "${killed[exec]}" "$torn" "$lines" "$SECONDS"
