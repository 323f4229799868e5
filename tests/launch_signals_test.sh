#!/bin/bash
# `distdoctor launch` and the signals a scheduler or a user sends it, with tests/launch/signals.py as the job:
# SIGUSR1 reaches the workers, which save a checkpoint and exit 0 (Slurm's --signal=USR1@T): exit 0, nothing
# killed; SIGUSR2 and SIGALRM reach them too and the launcher goes on; a second Ctrl-C ends a --grace 20 at
# once (workers and MindSpore's scheduler trapping SIGTERM), the end lines still written; a process that
# changes its pid every few ms, each time in a new session, is gone when the launch ends; `killall -9
# distdoctor` or `pkill -9 -f distdoctor` (the launcher and every process under it by that name) leaves no
# worker and no worker's child.
set -u
BIN=$(realpath "${1:-build/distdoctor}")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/launch/launch_test_lib.sh"
S="$HERE/launch/signals.py"
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# until SECONDS COMMAND...: polls the condition every 50 ms; false when it does not hold in time.
until_ok() {
  local end=$((SECONDS + $1)) ; shift
  until "$@"; do [ $SECONDS -ge $end ] && return 1; sleep 0.05; done
}
ready() { local r; for r in "$@"; do [ -e "$SD/ready.$r" ] || return 1; done; }
# start MODE JOB RANKS ARGS...: the launch in the background (LPID), once every named rank has its handlers.
start() {
  local mode=$1 job=$2 ranks=$3
  shift 3
  SD="$T/sig_$job"
  mkdir -p "$SD"
  SIG_DIR="$SD" SIG_MODE=$mode DD_LAUNCH_TEST_MARK="$job$$" "$BIN" launch --log-dir "$T/logs" --job-id "$job" \
    --no-preflight "$@" -- python3 "$S" >"$T/out" 2>"$T/err" &
  LPID=$!
  until_ok 20 ready $ranks || fail "$job: the workers did not start: $(cat "$T/err")"
}
# finish: the launch's exit code in rc, within 30 s (else it is killed).
finish() {
  until_ok 30 eval '! kill -0 $LPID 2>/dev/null' || { fail "the launch did not end"; kill -9 $LPID; }
  wait $LPID
  rc=$?
}
ended_as() {  # JOB RANK TEXT: the rank's log ends with launch's end line saying TEXT
  local line
  line=$(tail -n 1 "$T/logs/$1/0/node0.rank$2.log")
  [[ $line == *"distdoctor launch: rank $2 (pid "*") $3" ]] && echo "ok: rank $2's log ends: $3" ||
    fail "rank $2's last log line: $line"
}

# SIGUSR1: each worker saves its checkpoint and exits 0; before, the launcher died (rc 138) and its guard
# SIGKILLed the workers inside their handler.
start checkpoint usr1 "0 1" --nproc-per-node 2
kill -USR1 $LPID
finish
[ $rc = 0 ] && echo "ok: SIGUSR1: exit 0" || { fail "SIGUSR1: exit $rc"; cat "$T/err"; }
for r in 0 1; do
  [ -s "$SD/ckpt.$r" ] && echo "ok: rank $r saved its checkpoint" || fail "rank $r saved no checkpoint"
  ended_as usr1 $r "exited with status 0"
done
expect_out "the report says where SIGUSR1 went" "SIGUSR1 at "
expect_out "to both workers' process groups" "passed on to 2 worker process groups"

# SIGUSR2, then SIGALRM: the launcher goes on after each, the workers get both and exit 0.
start record usr2 "0 1" --nproc-per-node 2
got() { grep -qs "$1" "$SD/got.0" && grep -qs "$1" "$SD/got.1"; }
kill -USR2 $LPID
until_ok 10 got SIGUSR2 && echo "ok: SIGUSR2 reached both workers" || fail "SIGUSR2 did not reach the workers"
kill -0 $LPID 2>/dev/null && echo "ok: the launcher runs on after SIGUSR2" || fail "SIGUSR2 ended the launcher"
kill -ALRM $LPID
until_ok 10 got SIGALRM && echo "ok: SIGALRM reached both workers" || fail "SIGALRM did not reach the workers"
finish
[ $rc = 0 ] && echo "ok: SIGUSR2 and SIGALRM: exit 0" || { fail "SIGUSR2 and SIGALRM: exit $rc"; cat "$T/err"; }

# A second Ctrl-C ends the grace at once: workers and MindSpore's scheduler (the same command) trap SIGTERM
# and SIGINT; --grace 20. Before, the scheduler got its whole grace after the workers were killed.
start stubborn int2 "0 1 sched" --nproc-per-node 2 --grace 20 --mindspore
kill -INT $LPID
until_ok 10 grep -qs "got SIGINT" "$T/logs/int2/0/node0.rank1.log" || fail "the first SIGINT did not reach rank 1"
t0=$(date +%s%N)
kill -INT $LPID
finish
ms=$((($(date +%s%N) - t0) / 1000000))
# DD_TIME_SCALE: set by the sanitizer runs; the limit stays well under the 20 s grace it must cut.
limit=$((5000 * ${DD_TIME_SCALE:-1}))
[ $limit -le 15000 ] || limit=15000
[ $ms -lt $limit ] && echo "ok: second Ctrl-C: ended in $ms ms (--grace 20)" || fail "second Ctrl-C: $ms ms"
[ $rc = 130 ] && echo "ok: exit 130" || fail "exit $rc after two Ctrl-Cs"
for r in 0 1; do ended_as int2 $r "was stopped by launch (SIGKILL)"; done
[ "$(marked int2$$)" = 0 ] && echo "ok: nothing of the job is left" || fail "$(marked int2$$) processes left"

# A process that changes its pid every few ms in a new session each time (fork, setsid, the parent exits),
# left by attempt 0: gone before attempt 1 starts (while the launcher, a child subreaper, still runs), and
# after the launch. A scan of /proc misses a pid that lives 4 ms: the hopper writes each new pid to a file,
# and it is gone when that pid is not running and no new one came 300 ms later.
hopper_gone() {
  local a b
  a=$(cat "$SD/hop.pid" 2>/dev/null)
  sleep 0.3
  b=$(cat "$SD/hop.pid" 2>/dev/null)
  [ -n "$a" ] && [ "$a" = "$b" ] && ! grep -qs ') [RSDT]' "/proc/$b/stat"
}
start hop hop "0" --nproc-per-node 2 --max-restarts 1
[ -s "$SD/hop.pid" ] && echo "ok: attempt 0 left a pid-hopping process" || fail "no pid-hopping process started"
hopper_gone && echo "ok: the pid-hopping process is gone before the next attempt" ||
  fail "the pid-hopping process outlived its attempt (now pid $(cat "$SD/hop.pid"))"
touch "$SD/go"
finish
[ $rc = 0 ] && echo "ok: the hopping job: exit 0 on attempt 1" || fail "the hopping job: exit $rc"
hopper_gone && echo "ok: the pid-hopping process is gone after the launch" ||
  { fail "the pid-hopping process outlived the launch"; until_ok 40 hopper_gone; }

# killall -9 distdoctor / pkill -9 -f distdoctor, on this launch only: the launcher and the processes under
# it whose name or command line says distdoctor. Each worker started a `sleep 1000` of its own.
MARK=ka$$
DD_LAUNCH_TEST_MARK=$MARK OTHERS_ACTION=sleep "$BIN" launch --log-dir "$T/logs" --nproc-per-node 2 --job-id ka \
  --no-preflight -- sh -c 'sleep 1000 & exec sh "$0"' "$W" >"$T/out" 2>"$T/err" &
LPID=$!
until_ok 20 eval '[ "$(marked $MARK)" -ge 4 ]' || fail "2 workers and 2 children did not start ($(marked $MARK))"
named=$(pgrep -P $LPID -x distdoctor; pgrep -P $LPID -f distdoctor)
kill -9 $LPID $named
wait $LPID 2>/dev/null
if until_ok 3 eval '[ "$(marked $MARK)" = 0 ]'; then
  echo "ok: launcher and its namesakes SIGKILLed: no worker or worker's child left"
else
  fail "$(marked $MARK) processes outlived the launcher and its namesakes (${named:-none})"
  for p in /proc/[0-9]*; do grep -qs "DD_LAUNCH_TEST_MARK=$MARK" "$p/environ" && kill -9 "${p#/proc/}"; done
fi
cli_finish launch_signals_test
