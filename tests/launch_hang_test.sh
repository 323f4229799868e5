#!/bin/bash
# `distdoctor launch` and hangs, without a GPU: the first watchdog timeout line a worker prints stops the job at
# once (no --hang-timeout) and the odd one out is named (rank 3's BROADCAST where ranks 0-2 have ALLREDUCE at
# SeqNum 7); a job whose ranks all spin silently is hung after --hang-timeout and the rank spinning elsewhere is
# named from the stacks launch's hook took (faulthandler, no py-spy); the Flight Recorder variables reach the
# workers unless --no-flight-recorder; a user's own sitecustomize.py still runs; the lines PyTorch prints when a
# dump is asked for do not count as output (else launch's own early dump request would keep a hang alive); a
# rank stopped with SIGSTOP (state T) while the others wait idle is named with its state.
set -u
BIN=$(realpath "${1:-build/distdoctor}")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/launch/launch_test_lib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed for the test workers"; exit 77; }
WD="$HERE/launch/watchdog.py"
mkdir -p "$T/usersite"
echo 'import sys; sys._user_site_ran = True' >"$T/usersite/sitecustomize.py"

start=$SECONDS
check "a watchdog timeout line: exit 124" 124 L CASE=desync PYTHONPATH="$T/usersite" --nproc-per-node 4 \
  --job-id wd --json -- python3 "$WD"
took=$((SECONDS - start))
Q finding launch.hang >"$T/f"
expect "rank 3 is named, not the majority" "$T/f" "the job hung: rank 3 called BROADCAST where ranks 0, 1, 2 called ALLREDUCE at SeqNum 7"
expect "how it was declared" "$T/f" 'printed: "[E1127 00:28:17.968229302 ProcessGroupNCCL.cpp:689]'
expect "stacks from the hook" "$T/f" "stack (faulthandler, through launch's stack hook)"
[ $took -le 6 ] && echo "ok: stopped $took s after the start (the lines come at 1 s)" ||
  { echo "FAIL: took $took s"; fails=$((fails + 1)); }
expect "the Flight Recorder is on" "$T/logs/wd/0/node0.rank1.log" "FR=2000 stack_file=True"
expect "the user's sitecustomize ran" "$T/logs/wd/0/node0.rank1.log" "user_site=True"
[ -f "$T/logs/wd/0/stacks/node0.rank3.txt" ] && grep -q "most recent call first" "$T/logs/wd/0/stacks/node0.rank3.txt" &&
  echo "ok: rank 3's stack file holds a dump" || { echo "FAIL: no stack dump for rank 3"; fails=$((fails + 1)); }

start=$SECONDS
check "every rank spins silently: hung after --hang-timeout 2" 124 L CASE=spin --nproc-per-node 3 --job-id spin \
  --hang-timeout 2 --json -- python3 "$WD"
took=$((SECONDS - start))
Q finding launch.hang >"$T/f"
expect "rank 2 is named from its stack" "$T/f" "the job hung: rank 2 waits at watchdog.py:"
expect "in the function where it spins" "$T/f" "in spin_elsewhere, where no other rank is"
[ $took -le 7 ] && echo "ok: declared and stopped in $took s" || { echo "FAIL: took $took s"; fails=$((fails + 1)); }

start=$SECONDS
check "dump-request echoes are not progress: hung after --hang-timeout 2" 124 L CASE=echo --nproc-per-node 2 \
  --job-id echo --hang-timeout 2 --json -- python3 "$WD"
took=$((SECONDS - start))
[ $took -le 7 ] && echo "ok: declared and stopped in $took s" || { echo "FAIL: took $took s"; fails=$((fails + 1)); }

start=$SECONDS
check "a rank stopped with SIGSTOP while the others wait: hung after --hang-timeout 2" 124 L CASE=stop \
  --nproc-per-node 3 --job-id stop --hang-timeout 2 --grace 1 --json -- python3 "$WD"
took=$((SECONDS - start))
Q finding launch.hang >"$T/f"
expect "the stopped rank is named" "$T/f" "the job hung: rank 1 is stopped (state T) while ranks 0,2 wait"
expect "found by its state" "$T/f" "culprit: rank 1 (found by: process state)"
[ $took -le 9 ] && echo "ok: declared and stopped in $took s" || { echo "FAIL: took $took s"; fails=$((fails + 1)); }

check "--no-flight-recorder" 124 L CASE=spin --nproc-per-node 2 --job-id nofr --hang-timeout 3 \
  --no-flight-recorder --json -- python3 "$WD"
expect "no Flight Recorder, no hook" "$T/logs/nofr/0/node0.rank0.log" "FR=- stack_file=False"
cli_finish launch_hang_test
