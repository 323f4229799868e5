#!/bin/bash
# A rank SIGKILLed inside an NCCL job on 4 GPUs (launch_train.py CASE=kill: rank 1 kills itself at iteration
# 3): what launch names and how fast, for each build given, and torchrun on the same job. A watcher follows
# rank 1's process as it ends (watch_exit.py: how long /proc shows it ending before it is gone).
# Usage (repo root on the device): tools/device/rank_kill.sh REPS NAME=DIR [NAME=DIR...]; JSON reports and
# logs go to $OUT/rank_kill.tar.gz.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-${TMPDIR:-/tmp}/dd-out}
W=$(mktemp -d "${TMPDIR:-/tmp}/ddkill.XXXXXX")
mkdir -p "$O"
REPS=$1
shift
brief() {  # the first non-ok finding's id, rank and title
  python3 -c "
import json,sys
try: r=json.load(open(sys.argv[1]))
except Exception as e: print('unreadable JSON:', e); sys.exit()
fs=[f for f in r.get('findings',[]) if f.get('severity') not in ('ok','info')]
print(r.get('verdict'), '|', ' | '.join('%s rank %s: %s' % (f['id'], f.get('rank',-1), f['title'][:150]) for f in fs[:2]))" "$1"
}
since_fault() { python3 -c "import sys,time;print('%.2f' % (time.time() - int(open(sys.argv[1]).read())/1000))" "$1"; }
run_case() {  # NAME DIR N
  local name=$1 dir=$2 n=$3 D=$W/$1.$3
  mkdir -p "$D"
  (
    . "$HERE/torch_nccl_env.sh" "$dir"
    python3 "$HERE/watch_exit.py" "$D/fault" 1 120 >"$D/watch.txt" 2>&1 &
    CASE=kill FAULT_AT=3 ITERS=40 FAULT_FILE=$D/fault NCCL_SOCKET_IFNAME=lo PG_TIMEOUT=60 NCCL_DEBUG=WARN \
      timeout 150 "$dir/distdoctor" launch --nproc-per-node 4 --log-dir "$D/logs" --job-id kill \
      --hang-timeout 10 --grace 5 --json -- python3 "$HERE/launch_train.py" >"$D/launch.json" 2>"$D/launch.err"
    rc=$?
    echo "$name #$n: rc=$rc, exit $(since_fault "$D/fault") s after the fault: $(brief "$D/launch.json")"
    wait
    echo "   $(cat "$D/watch.txt")"
  )
}
for spec in "$@"; do
  for n in $(seq "$REPS"); do run_case "${spec%%=*}" "$(cd "${spec#*=}" && pwd)" "$n"; done
done
D=$W/torchrun
mkdir -p "$D"
(
  . "$HERE/torch_nccl_env.sh" "$W"
  python3 "$HERE/watch_exit.py" "$D/fault" 1 150 >"$D/watch.txt" 2>&1 &
  CASE=kill FAULT_AT=3 ITERS=40 FAULT_FILE=$D/fault NCCL_SOCKET_IFNAME=lo PG_TIMEOUT=60 NCCL_DEBUG=WARN \
    timeout 150 python3 -m torch.distributed.run --standalone --nproc_per_node 4 "$HERE/launch_train.py" \
    >"$D/torchrun.log" 2>&1
  rc=$?
  echo "torchrun: rc=$rc, exit $(since_fault "$D/fault") s after the fault; blames: $(grep -A3 'Root Cause' "$D/torchrun.log" | grep -E 'rank|exitcode' | tr -s ' ' | tr '\n' ' ')"
  wait
  echo "   $(cat "$D/watch.txt")"
)
(cd "$W" && tar czf "$O/rank_kill.tar.gz" . 2>/dev/null)
rm -rf "$W"
