#!/bin/bash
# `distdoctor launch` on one node with small shell and Python workers: success, every torchrun/Paddle variable
# inside the workers, a rank exiting 7 (root cause, others stopped within 0.5 s, exit code 7), a rank killed
# by SIGKILL, a Python exception (traceback in the report), complete per-rank logs after a crash, the same
# --job-id run twice (a second folder, the first untouched), the terminal
# tee (whole prefixed lines), and bad input (no command, bad flags, a command that does not exist).
set -u
BIN=$(realpath "${1:-build/distdoctor}")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/launch/launch_test_lib.sh"

check "4 workers that succeed: exit 0" 0 L --nproc-per-node 4 --job-id ok --json -- sh "$W"
expect_out "the report says the job succeeded" '"launch.job.ok"'
for r in 0 1 2 3; do expect "rank $r log complete" "$T/logs/ok/0/node0.rank$r.log" "worker rank $r done"; done

# The same --job-id again: a new folder (ok.2), the first run's logs untouched and not mixed with the second's.
check "the same --job-id again: exit 0" 0 L --nproc-per-node 2 --job-id ok -- sh "$W"
expect_out "the report names the new folder, with the real attempt" "logs/ok.2/0/nodeN.rankR.log ("
expect_out "and the earlier run's" "logs/ok holds an earlier run of this job id)"
expect "rank 0 of the second run logs into ok.2" "$T/logs/ok.2/0/node0.rank0.log" "worker rank 0 done"
expect "the first run's rank 3 log is still there" "$T/logs/ok/0/node0.rank3.log" "worker rank 3 done"
[ "$(ls "$T/logs/ok/0" | grep -c '^node0.rank[0-9]*.log$')" = 4 ] && echo "ok: the first run's folder has its 4 logs" ||
  { echo "FAIL: $T/logs/ok/0 holds: $(ls "$T/logs/ok/0")"; fails=$((fails + 1)); }

mkdir -p "$T/env"
check "env worker" 0 env ENV_OUT="$T/env" CUDA_VISIBLE_DEVICES=4,5,6,7 \
  "$BIN" launch --no-preflight --bind-gpu --log-dir "$T/logs" --nproc-per-node 4 --job-id envjob -- python3 "$HERE/launch/env_dump.py"
python3 - "$T/env" <<'PY' && echo "ok: torchrun and Paddle variables in every worker" || fails=$((fails + 1))
import json, sys
d = sys.argv[1]
envs = [json.load(open("%s/rank%d.json" % (d, r))) for r in range(4)]
ports = set()
for r, e in enumerate(envs):
    want = {"RANK": str(r), "LOCAL_RANK": str(r), "WORLD_SIZE": "4", "LOCAL_WORLD_SIZE": "4", "GROUP_RANK": "0",
            "NODE_RANK": "0", "ROLE_RANK": str(r), "MASTER_ADDR": "127.0.0.1", "TORCHELASTIC_RESTART_COUNT": "0",
            "TORCHELASTIC_RUN_ID": "envjob", "PADDLE_TRAINER_ID": str(r), "PADDLE_TRAINERS_NUM": "4",
            "PADDLE_RANK_IN_NODE": str(r), "FLAGS_selected_gpus": "0", "CUDA_VISIBLE_DEVICES": str(4 + r),
            "PYTHONUNBUFFERED": "1"}
    for k, v in want.items():
        assert e[k] == v, "rank %d: %s=%r, want %r" % (r, k, e[k], v)
    assert 0 < int(e["MASTER_PORT"]) < 65536, e["MASTER_PORT"]
    eps = e["PADDLE_TRAINER_ENDPOINTS"].split(",")
    assert len(eps) == 4 and eps[r] == e["PADDLE_CURRENT_ENDPOINT"], e
    ports.add(e["MASTER_PORT"])
assert len(ports) == 1, ports
assert envs[0]["PADDLE_TRAINER_ENDPOINTS"] == envs[3]["PADDLE_TRAINER_ENDPOINTS"]
PY

check "rank 2 of 4 exits 7: launch exits 4 (the job failed)" 4 L WORKER_RANK=2 WORKER_ACTION=exit:7 --nproc-per-node 4 --job-id exit7 --json -- sh "$W"
[ "$(Q root)" = "worker_failed 2 7 0" ] && echo "ok: rank 2 named as the root cause" || { echo "FAIL: root $(Q root)"; fails=$((fails + 1)); }
spread=$(Q stop_spread_ms)
[ "$spread" -ge 0 ] && [ "$spread" -le 500 ] && echo "ok: the others stopped ${spread} ms after rank 2 died" ||
  { echo "FAIL: others stopped $spread ms after the failure"; fails=$((fails + 1)); }
Q ids | grep -q "launch.rank.stopped" && echo "ok: stopped ranks listed" || { echo "FAIL: ids $(Q ids)"; fails=$((fails + 1)); }
expect "rank 2's stderr is in its log" "$T/logs/exit7/0/node0.rank2.log" "worker rank 2 exits 7"
expect_out "the worker's own exit code is in the JSON" '"worker_exit_code": 7' 

check "rank 1 killed by SIGKILL: exit 4" 4 L WORKER_RANK=1 WORKER_ACTION=kill:KILL --nproc-per-node 3 --job-id kill -- sh "$W"
expect_out "the text report names the signal" "SIGKILL"
expect_out "and the rank" "rank 1"
expect_out "and the worker's status" "the failing worker's exit code: 137"

check "a Python worker raising: exit 4" 4 L --nproc-per-node 2 --job-id py --json -- python3 "$HERE/launch/raise.py"
Q finding launch.rank.failed >"$T/f"
expect "the traceback is in the report" "$T/f" "ValueError: bad batch shape (3, 224) for rank 1"
expect "with the frame that raised" "$T/f" "in load_batch"

check "rank 0 prints 20000 lines then exits 3: launch exits 4" 4 L WORKER_RANK=0 WORKER_ACTION=lines:20000 --nproc-per-node 2 --job-id lines --tee none -- sh "$W"
n=$(grep -c "of rank 0" "$T/logs/lines/0/node0.rank0.log")
[ "$n" = 20000 ] && echo "ok: all 20000 lines in rank 0's log" || { echo "FAIL: $n lines in the log"; fails=$((fails + 1)); }

# The terminal shows every rank by default (was rank 0 only); --tee 0 narrows it (launch_output_test: the rest).
check "default tee: every rank" 0 L --nproc-per-node 3 --job-id tee -- sh "$W"
for r in 0 1 2; do expect_out "rank $r line prefixed" "[rank$r]: worker rank $r done"; done
check "--tee 0: rank 0 only" 0 L --nproc-per-node 3 --job-id tee0 --tee 0 -- sh "$W"
expect_out "rank 0 shown" "[rank0]: worker rank 0 done"
grep -qF "[rank1]" "$T/out" && { echo "FAIL: rank 1 shown with --tee 0"; fails=$((fails + 1)); } || echo "ok: rank 1 not shown"

mkdir -p "$T/env2"
check "--job-port fixes MASTER_PORT" 0 L ENV_OUT="$T/env2" --no-preflight --nproc-per-node 2 --job-port 29555 --job-id port -- python3 "$HERE/launch/env_dump.py"
expect "rank 1 got MASTER_PORT 29555" "$T/env2/rank1.json" '"MASTER_PORT": "29555"'
check "bad --tee: exit 3" 3 "$BIN" launch --tee sometimes -- true
check "no command: exit 3" 3 "$BIN" launch --nproc-per-node 2
grep -q "give the command to run after --" "$T/err" && echo "ok: says where the command goes" || fails=$((fails + 1))
check "bad --nproc-per-node: exit 3" 3 "$BIN" launch --nproc-per-node many -- true
expect "names the bad value" "$T/err" '"many"'
check "unknown command: exit 4 (the job failed)" 4 L --nproc-per-node 2 --job-id nocmd -- no-such-program-dd
expect_out "says it cannot run it, as a shell would" "command not found: no-such-program-dd"
expect_out "names a real local rank (was 'local rank -1')" "rank 0 (local rank 0)"

# `logs` on the --log-dir of many jobs reads the newest job only and says so (was: every job's logs mixed, the
# first job's attempt record, and charts read as logs).
printf '<svg><text>NCCL WARN not a log</text></svg>\n' >"$T/logs/nocmd/0/chart.svg"
check "logs on a folder of jobs: the newest failed, exit 2" 2 "$BIN" logs "$T/logs"
expect_out "says which job it read" "launch jobs in the inputs: read the newest, $T/logs/nocmd"
expect_out "the newest job's failure" "command not found: no-such-program-dd"
grep -qF "not a log" "$T/out" && { echo "FAIL: the chart was read as a log"; fails=$((fails + 1)); } ||
  echo "ok: the chart is not read"
cli_finish launch_basic_test
