#!/bin/bash
# `distdoctor launch` faults on one node: a hang (the rank that sleeps is named, /proc state shown, exit 124),
# the launcher killed by SIGKILL (no worker or grandchild left, by a /proc scan), Ctrl-C (every worker stopped,
# exit 130), a setsid child left behind (named, stopped), restarts (attempt number in env and log dir, every
# attempt in the report) and a worker writing
# 200 MiB fast (every byte in its log, the other rank not slowed down).
set -u
BIN=$(realpath "${1:-build/distdoctor}")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/launch/launch_test_lib.sh"

# --hang-timeout 3: rank 1 is named as the idle one (under 2% CPU over the window), and the window holds python's own
# start-up (about 0.05 s of CPU): 2 s left it at the edge.
start=$SECONDS
check "a hang: exit 124" 124 L --nproc-per-node 3 --job-id hang --hang-timeout 3 --json -- python3 "$HERE/launch/hang.py"
took=$((SECONDS - start))
Q finding launch.hang >"$T/f"
expect "the hang names rank 1" "$T/f" "the job hung: rank 1 "
expect "its stack, without py-spy" "$T/f" 'hang.py", line 8 in <module>'
expect "with its /proc state" "$T/f" "sleeping"
[ $took -le 12 ] && echo "ok: hang reported and stopped in $took s" || { echo "FAIL: took $took s"; fails=$((fails + 1)); }

MARK=kill$$
DD_LAUNCH_TEST_MARK=$MARK OTHERS_ACTION=sleep "$BIN" launch --log-dir "$T/logs" --nproc-per-node 3 --job-id k9 \
  -- sh -c 'sleep 1000 & exec sh "$0"' "$W" >"$T/k9.out" 2>&1 &
LPID=$!
for _ in $(seq 100); do [ "$(marked $MARK)" -ge 6 ] && break; sleep 0.1; done
[ "$(marked $MARK)" -ge 6 ] && echo "ok: 3 workers and 3 grandchildren running" || { echo "FAIL: $(marked $MARK) marked processes"; fails=$((fails + 1)); }
kill -9 $LPID
wait $LPID 2>/dev/null
for _ in $(seq 30); do [ "$(marked $MARK)" = 0 ] && break; sleep 0.1; done
[ "$(marked $MARK)" = 0 ] && echo "ok: launcher SIGKILLed, no worker or grandchild left" ||
  { echo "FAIL: $(marked $MARK) processes outlived the launcher"; fails=$((fails + 1)); pkill -9 -f "sleep 1000"; }

MARK=int$$
DD_LAUNCH_TEST_MARK=$MARK OTHERS_ACTION=sleep "$BIN" launch --log-dir "$T/logs" --nproc-per-node 2 --job-id int -- sh "$W" >"$T/out" 2>"$T/err" &
LPID=$!
for _ in $(seq 100); do [ "$(marked $MARK)" -ge 2 ] && break; sleep 0.1; done
kill -INT $LPID
wait $LPID
rc=$?
[ $rc = 130 ] && echo "ok: Ctrl-C: exit 130" || { echo "FAIL: Ctrl-C exit $rc"; cat "$T/out" "$T/err"; fails=$((fails + 1)); }
[ "$(marked $MARK)" = 0 ] && echo "ok: no worker left after Ctrl-C" || { echo "FAIL: workers left"; fails=$((fails + 1)); }
expect_out "the report says it was interrupted" "launch.interrupted"

# A second Ctrl-C skips the grace period: workers that ignore SIGINT/SIGTERM are killed at once, not after
# --grace 30 (docs/launch.md says so; it was not so).
MARK=int2$$
DD_LAUNCH_TEST_MARK=$MARK OTHERS_ACTION=stubborn "$BIN" launch --log-dir "$T/logs" --nproc-per-node 2 --grace 30 \
  --job-id int2 -- sh "$W" >"$T/out" 2>"$T/err" &
LPID=$!
for _ in $(seq 100); do [ "$(marked $MARK)" -ge 2 ] && break; sleep 0.1; done
kill -INT $LPID
sleep 1
istart=$SECONDS
kill -INT $LPID
wait $LPID
rc=$?
took=$((SECONDS - istart))
[ $took -le 3 ] && [ "$(marked $MARK)" = 0 ] && echo "ok: second Ctrl-C: stopped in $took s (exit $rc), no worker left" ||
  { echo "FAIL: second Ctrl-C: $took s, exit $rc, $(marked $MARK) left"; fails=$((fails + 1)); pkill -9 -f "sleep 1000"; }

check "restarts: attempts 0 and 1 fail, 2 succeeds" 0 L FAIL_UNTIL_ATTEMPT=2 OTHERS_ACTION=ok \
  --nproc-per-node 2 --job-id rs --max-restarts 3 --json -- sh "$W"
[ "$(Q attempts)" = 3 ] && echo "ok: three attempts in the report" || { echo "FAIL: $(Q attempts) attempts"; fails=$((fails + 1)); }
for a in 0 1; do expect "attempt $a log" "$T/logs/rs/$a/node0.rank1.log" "rank 1 fails on attempt $a"; done
expect "attempt 2 log" "$T/logs/rs/2/node0.rank1.log" "worker rank 1 done"
Q ids | grep -q "launch.attempt.failed" && echo "ok: earlier attempts listed" || { echo "FAIL: $(Q ids)"; fails=$((fails + 1)); }
check "restarts exhausted: the job failed (exit 4)" 4 L FAIL_UNTIL_ATTEMPT=5 --nproc-per-node 2 --job-id rs2 --max-restarts 1 -- sh "$W"

# A worker that leaves a process in its own session (setsid) behind: launch (a child subreaper) gets it back,
# names it and stops it; the job's exit code stays the workers'.
check "a setsid child left behind: exit 0" 0 L WORKER_RANK=1 WORKER_ACTION=stray:31337 OTHERS_ACTION=ok \
  --nproc-per-node 2 --job-id stray -- sh "$W"
expect_out "the report names the process left behind" "sleep 31337"
expect_out "and says launch stopped it" "launch.job.strays"
sleep 0.2
if pgrep -f "sleep 31337" >/dev/null; then echo "FAIL: sleep 31337 still runs"; pkill -f "sleep 31337"; fails=$((fails + 1));
else echo "ok: nothing the workers started outlived the launch"; fi

fstart=$SECONDS
check "200 MiB from rank 0" 0 L FLOOD_MB=200 --nproc-per-node 2 --job-id flood --tee none -- sh "$HERE/launch/flood.sh"
# The worker's bytes, then launch's line saying how it ended (logs/launch_end_line.h), after a newline of its
# own: the worker's last line (200 MiB folded at 99) has none.
end_line=$(tail -n 1 "$T/logs/flood/0/node0.rank0.log")
size=$(( $(stat -c %s "$T/logs/flood/0/node0.rank0.log") - ${#end_line} - 2 ))
[ "$size" = $((200 * 1048576 + 200 * 1048576 / 99)) ] && echo "ok: every byte of rank 0's 200 MiB in its log" ||
  { echo "FAIL: rank 0's log has $size bytes before launch's end line"; fails=$((fails + 1)); }
[[ "$end_line" == *" distdoctor launch: rank 0 (pid "*") exited with status 0" ]] &&
  echo "ok: launch's end line closes the log" || { echo "FAIL: last line: $end_line"; fails=$((fails + 1)); }
expect "rank 1 finished its work" "$T/logs/flood/0/node0.rank1.log" "rank 1 work took"
echo "info: $(cat "$T/logs/flood/0/node0.rank1.log") while rank 0 flooded; the launch took $((SECONDS - fstart)) s"
# A rank that fails while its process is still ending (its main thread gone, a thread still exiting, as a
# killed CUDA process's for seconds): launch names it as it ends, from /proc, without waiting for waitpid.
# Before, 4 ranks on 4x H100 with one SIGKILLed read as a hang "none stands out" after --hang-timeout.
estart=$SECONDS
check "a rank whose process ends slowly: the job failed (4)" 4 L --nproc-per-node 3 --job-id slow_exit --hang-timeout 20 \
  --grace 2 --json -- python3 "$HERE/launch/slow_exit.py"
took=$((SECONDS - estart))
Q finding launch.rank.failed >"$T/f"
expect "it names rank 1 and its status" "$T/f" "rank 1 (local rank 1) on node 0"
expect "with the status of its main thread" "$T/f" "exited with status 7"
expect "its status is the worker's exit code" "$T/out" '"worker_exit_code": 7' 
expect "and says its process was still ending" "$T/f" "seen in /proc as it ended (state Z (zombie))"
Q finding launch.rank.stopped >"$T/f"
expect "launch stopped the two that waited" "$T/f" "launch stopped 2 ranks after rank 1 failed"
[ $took -le 10 ] && echo "ok: reported in $took s (its process lived 60 s)" || { echo "FAIL: took $took s"; fails=$((fails + 1)); }
for r in 0 1 2; do  # the slow-exit job: how each rank ended, in its own log, for `distdoctor logs` later
  want="was stopped by launch (SIGTERM)"; [ $r = 1 ] && want="exited with status 7"
  grep -q "distdoctor launch: rank $r (pid [0-9]*) $want" "$T/logs/slow_exit/0/node0.rank$r.log" &&
    echo "ok: rank $r's log ends with: $want" || { echo "FAIL: rank $r's log lacks '$want'"; fails=$((fails + 1)); }
done
# The same end after a watchdog timeout line: a witness of a hang, not its cause; the line starts the hang
# diagnosis, as when such a rank is reaped at once.
check "a rank that ends after printing a watchdog timeout: a hang" 124 L WITNESS=1 --nproc-per-node 3 \
  --job-id witness --hang-timeout 20 --grace 2 --json -- python3 "$HERE/launch/slow_exit.py"
Q ids >"$T/f"
expect "the report is a hang" "$T/f" "launch.hang"
grep -q "launch.rank.failed" "$T/f" && { echo "FAIL: the witness was named as the failed rank"; fails=$((fails + 1)); } ||
  echo "ok: the witness is not named as the failed rank"
cli_finish launch_faults_test
