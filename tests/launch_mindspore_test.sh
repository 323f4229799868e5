#!/bin/bash
# `distdoctor launch --mindspore` with a stand-in MindSpore script (tests/launch/ms_stand_in.py), 127.0.0.1
# only: every worker and the scheduler get msrun's variables, the scheduler (the same command, MS_ROLE=MS_SCHED)
# runs with its own log and ends by itself, also with two node agents on this host (only node rank 0 starts
# one); a scheduler that exits 1 early is named in the report (not a rank), launch exits 1 and nothing is left
# running; without the flag no MindSpore variable and no scheduler; --bind-gpu is refused with it.
set -u
BIN=$(realpath "${1:-build/distdoctor}")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/launch/launch_test_lib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed for the test workers"; exit 77; }
unset MS_ROLE MS_WORKER_NUM MS_SCHED_HOST MS_SCHED_PORT MS_NODE_ID RANK_ID RANK_SIZE MS_TOPO_TIMEOUT
SI="$HERE/launch/ms_stand_in.py"
# Processes whose environment holds this run's marker: the scheduler, the workers and their children.
marked() {
  local p n=0
  for p in /proc/[0-9]*; do grep -qs "DD_LAUNCH_TEST_MARK=$1" "$p/environ" && n=$((n + 1)); done
  echo $n
}

check "2 workers and the scheduler: exit 0" 0 L EXPECT_WORKERS=2 EXPECT_TOPO=600 \
  --mindspore --nproc-per-node 2 --job-id ms --json -- python3 "$SI"
expect_out "the report says the job succeeded" '"launch.job.ok"'
for r in 0 1; do expect "rank $r joined" "$T/logs/ms/0/node0.rank$r.log" "worker $r: joined the scheduler and is done"; done
expect "the scheduler has its own log and saw both workers" "$T/logs/ms/0/node0.scheduler.log" "scheduler: all 2 workers done (0,1)"
grep -q "launch.mindspore.scheduler" "$T/out" && { echo "FAIL: a scheduler finding after a good run"; fails=$((fails + 1)); } ||
  echo "ok: a scheduler that exits 0 is not mentioned"
python3 - "$T/out" <<'PY' && echo "ok: the scheduler's record: exit 0, not stopped" || fails=$((fails + 1))
import json, sys
s = json.load(open(sys.argv[1]))["attempts"][-1]["nodes"][0]["scheduler"]
assert s["exit_code"] == 0 and not s["stopped_by_us"] and s["log_path"].endswith("node0.scheduler.log"), s
PY

check "--hang-timeout 25 gives MS_TOPO_TIMEOUT=25; --tee all shows the scheduler" 0 L EXPECT_WORKERS=3 EXPECT_TOPO=25 \
  --mindspore --nproc-per-node 3 --hang-timeout 25 --tee all --job-id ms3 -- python3 "$SI"
expect_out "its lines are prefixed" "[scheduler]: scheduler: all 3 workers done (0,1,2)"

MARK=ms$$
start=$SECONDS
check "the scheduler exits 1 before the workers joined: exit 4" 4 L DD_LAUNCH_TEST_MARK=$MARK STANDIN_SCHED_EXIT=1 \
  EXPECT_WORKERS=2 EXPECT_TOPO=40 --mindspore --nproc-per-node 2 --hang-timeout 40 --job-id msfail --json -- python3 "$SI"
took=$((SECONDS - start))
[ $took -le 15 ] && echo "ok: stopped in $took s (the workers would wait 40 s)" || { echo "FAIL: took $took s"; fails=$((fails + 1)); }
[ "$(Q root | cut -d' ' -f1,3)" = "scheduler_failed 1" ] && echo "ok: the stop names the scheduler, status 1" ||
  { echo "FAIL: root $(Q root)"; fails=$((fails + 1)); }
Q finding launch.mindspore.scheduler >"$T/f"
expect "the finding names MindSpore's scheduler and its status" "$T/f" "MindSpore's scheduler on node 0"
expect "with its exit status" "$T/f" "exited with status 1 before the workers finished"
expect "and the tail of its log" "$T/f" "| scheduler: giving up before the workers joined"
expect "and the log path" "$T/f" "logs/msfail/0/node0.scheduler.log"
Q ids | grep -q "launch.rank.failed" && { echo "FAIL: a rank blamed: $(Q ids)"; fails=$((fails + 1)); } ||
  echo "ok: no rank blamed"
Q ids | grep -q "launch.rank.stopped" && echo "ok: the workers were stopped" || { echo "FAIL: ids $(Q ids)"; fails=$((fails + 1)); }
sleep 0.2
[ "$(marked $MARK)" = 0 ] && echo "ok: no scheduler or worker left running" ||
  { echo "FAIL: $(marked $MARK) processes left"; fails=$((fails + 1)); }

# Two node agents on this host (127.0.0.1): node rank 0 starts the one scheduler, node rank 1's workers are
# ranks 2 and 3 of MS_WORKER_NUM=4 and reach it at node rank 0's MS_SCHED_HOST:MS_SCHED_PORT.
P=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
for n in 0 1; do
  DISTDOCTOR_TOKEN=ms-test-token-0123456789 EXPECT_WORKERS=4 EXPECT_TOPO=600 timeout 60 "$BIN" launch --mindspore \
    --no-preflight --nnodes 2 --node-rank $n --master 127.0.0.1:$P --nproc-per-node 2 --log-dir "$T/logs$n" \
    --job-id two --json -- python3 "$SI" >"$T/two$n.out" 2>"$T/two$n.err" &
done
wait %1; rc0=$?
wait %2; rc1=$?
[ "$rc0$rc1" = 00 ] && echo "ok: two nodes: both exit 0" ||
  { echo "FAIL: two nodes: exit $rc0 and $rc1"; tail -5 "$T/two0.err" "$T/two1.err"; fails=$((fails + 1)); }
expect "two nodes: the scheduler on node rank 0 saw all 4 workers" "$T/logs0/two/0/node0.scheduler.log" \
  "scheduler: all 4 workers done (0,1,2,3)"
expect "rank 3 on node rank 1 joined it" "$T/logs1/two/0/node1.rank3.log" "worker 3: joined the scheduler and is done"
[ -z "$(ls "$T/logs1/two/0" | grep scheduler)" ] && echo "ok: no scheduler on node rank 1" ||
  { echo "FAIL: node rank 1 ran a scheduler"; fails=$((fails + 1)); }

check "without --mindspore: no MindSpore variable" 0 L --nproc-per-node 2 --job-id plain -- \
  sh -c 'for v in MS_ROLE MS_WORKER_NUM MS_SCHED_HOST MS_SCHED_PORT MS_NODE_ID RANK_ID RANK_SIZE MS_TOPO_TIMEOUT; do
    eval "[ -z \"\${$v+x}\" ]" || { echo "$v is set"; exit 1; }; done'
[ -e "$T/logs/plain/0/node0.scheduler.log" ] && { echo "FAIL: a scheduler ran without --mindspore"; fails=$((fails + 1)); } ||
  echo "ok: and no scheduler"
check "--mindspore with --bind-gpu: refused (exit 3)" 3 "$BIN" launch --mindspore --bind-gpu -- true
cli_finish launch_mindspore_test
