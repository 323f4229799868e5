#!/bin/bash
# `distdoctor launch` as a job starts and when Ctrl-C ends it, with tests/launch/interrupt.py as the job
# (rank 0 exits 0, rank 1 sleeps): before any worker prints, stderr names the job, the attempt's real log
# folder, each rank's log and whose output the terminal shows; SIGINT (no --hang-timeout) is diagnosed as a
# hang is before the stop: rank 1 named as still running with its stack (wait_for_peer), rank 0 as ended
# with status 0; exit 130 within a few seconds. Before, the start said nothing and the report only
# "interrupted ... Nothing to fix if you pressed Ctrl-C".
set -u
BIN=$(realpath "${1:-build/distdoctor}")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/launch/launch_test_lib.sh"
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# until_ok SECONDS COMMAND...: polls the condition every 50 ms; false when it does not hold in time.
until_ok() {
  local end=$((SECONDS + $1))
  shift
  until "$@"; do [ $SECONDS -ge $end ] && return 1; sleep 0.05; done
}

D="$T/intr"
mkdir -p "$D"
INTR_DIR="$D" "$BIN" launch --log-dir "$T/logs" --job-id intr --nproc-per-node 2 --no-preflight --json \
  -- python3 "$HERE/launch/interrupt.py" >"$T/out" 2>"$T/err" &
LPID=$!
until_ok 30 test -e "$D/ready" || fail "rank 1 did not get ready: $(cat "$T/err")"
t0=$(date +%s%N)
kill -INT $LPID
until_ok 20 eval '! kill -0 $LPID 2>/dev/null' || { fail "the launch did not end"; kill -9 $LPID; }
wait $LPID
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))

# What it said at start, on stderr, before rank 0's output (with --json the workers' output is on stderr too).
expect "names the job and the real log folder" "$T/err" "distdoctor launch: job intr, attempt 0: logs in $T/logs/intr/0/"
expect "names rank 0's log" "$T/err" "distdoctor launch: rank 0 log: $T/logs/intr/0/node0.rank0.log"
expect "names rank 1's log" "$T/err" "distdoctor launch: rank 1 log: $T/logs/intr/0/node0.rank1.log"
expect "says every rank is shown (the default), prefixed" "$T/err" \
  "distdoctor launch: showing every rank's output, each line prefixed [rankN]: (logs in $T/logs/intr/0/;"
said=$(grep -n "distdoctor launch: job intr" "$T/err" | head -1 | cut -d: -f1)
printed=$(grep -n "rank 0 starts" "$T/err" | head -1 | cut -d: -f1)
[ -n "$said" ] && [ -n "$printed" ] && [ "$said" -lt "$printed" ] && echo "ok: said before the workers' output" ||
  fail "the start lines (line ${said:-none}) do not come before rank 0's output (line ${printed:-none})"

# The interrupt, diagnosed.
[ $rc = 130 ] && echo "ok: Ctrl-C: exit 130" || fail "Ctrl-C: exit $rc"
limit=$((5000 * ${DD_TIME_SCALE:-1}))
[ $ms -lt $limit ] && echo "ok: ended $ms ms after Ctrl-C" || fail "ended $ms ms after Ctrl-C (limit $limit)"
Q finding launch.interrupted >"$T/f"
expect "the finding names rank 1 as still running" "$T/f" "still running when it was interrupted: rank 1"
expect "and rank 0 as ended" "$T/f" "rank 0 had already ended: exited with status 0"
expect "with rank 1's stack, in the function it sleeps in" "$T/f" "interrupt.py:24 in wait_for_peer"
expect "its whole stack in the details" "$T/f" "line 24 in wait_for_peer"
cli_finish launch_interrupt_test
