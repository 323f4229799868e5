#!/usr/bin/env bash
# `distdoctor launch` on the same faults as tools/device/record_hangs.sh (tools/device/hang_worker.py, 4 ranks on
# 4 GPUs): each case's --json report, the attempt's logs, stacks and Flight Recorder dumps, the moment of the
# fault and the launcher's exit (epoch ms), so bench/results/hangs.md can give the time from the fault to the
# report. PG_TIMEOUT=600 (PyTorch's default is 10 min) leaves the silent hangs to --hang-timeout 10; the
# "_wd" cases use PyTorch's watchdog at 10 s instead (launch acts on its first line). Then the step time of a
# healthy job with the Flight Recorder on and off (--no-flight-recorder), alternating, alone on the machine.
# Usage: tools/device/launch_hangs.sh DIR [NAME:CASE:PG_TIMEOUT[:--flag]...] (DIR: a stripped distdoctor and
# lib/, see tools/device/stage_binary.sh); named runs replace the default list and run in two lanes.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
DIR=$(cd "$1" && pwd)
export LD_LIBRARY_PATH=$DIR/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
HERE=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-device_out}
L=$O/launch_hangs
mkdir -p "$L"

run_case() {  # name case pg_timeout [extra launch flags...]
  local name=$1 c=$2 pg=$3; shift 3
  local d=$L/$name t0
  mkdir -p "$d"
  t0=$(date +%s%3N)
  FAULT_FILE="$d/fault" PG_TIMEOUT=$pg timeout -k 5 120 "$DIR/distdoctor" launch --nproc-per-node 4 \
    --hang-timeout 10 --log-dir "$d/logs" --job-id "$name" --tee none --json "$@" -- \
    python3 "$HERE/hang_worker.py" "$c" > "$d/report.json" 2> "$d/launch.err"
  local rc=$? t1; t1=$(date +%s%3N)
  echo "$rc $t0 $t1" > "$d/exit_ms"
  local f=-; [ -f "$d/fault" ] && f=$(( t1 - $(cat "$d/fault") ))
  echo "$name: exit $rc, $(( t1 - t0 )) ms in all, $f ms after the fault"
  python3 - "$d/report.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print("  no JSON report:", e); sys.exit()
for f in r.get("findings", [])[:2]:
    print("  ", f["id"], "|", f["title"][:300])
PY
}

if [ $# -gt 1 ]; then
  shift
  specs=("$@")
  lane() { local i; for ((i = $1; i < ${#specs[@]}; i += 2)); do IFS=: read -r n c p f <<<"${specs[$i]}"; run_case "$n" "$c" "$p" $f; done; }
  lane 0 & lane 1 & wait
else
( run_case desync_op_wd desync_op 10; run_case desync_op desync_op 600; run_case desync_pg desync_pg 600
  run_case stall_busy stall_busy 600; run_case late_init late_init 600; run_case exception exception 600 ) &
( run_case stall_idle stall_idle 600; run_case desync_size desync_size 600; run_case desync_pg_wd desync_pg 10
  run_case stall_idle_wd stall_idle 10; run_case sigkill sigkill 600; run_case dataloader dataloader 600 ) &
wait
fi
for rep in $([ -n "${NO_HEALTHY:-}" ] || echo 1 2 3); do  # NO_HEALTHY=1: skip the step-time runs
  for fr in on off; do
    flags=(); [ $fr = off ] && flags=(--no-flight-recorder)
    d=$L/healthy_${fr}_$rep; mkdir -p "$d"
    STEPS=300 ELEMS=16777216 timeout -k 5 120 "$DIR/distdoctor" launch --nproc-per-node 4 --log-dir "$d/logs" \
      --job-id h --tee none --json "${flags[@]}" -- python3 "$HERE/hang_worker.py" healthy > "$d/report.json" 2> "$d/launch.err"
    rc=$?
    med=$(for f in "$d"/logs/h/0/node0.rank*.log; do grep -o 'done in [0-9.]*' "$f" | awk '{print $3}' | tail -n +11; done |
      sort -n | awk '{a[NR]=$1} END {print a[int(NR/2)+1]}')
    echo "healthy FR $fr $rep: exit $rc, median step $med ms (steps 10-299 of every rank), verdict $(python3 -c "import json;print(json.load(open('$d/report.json'))['verdict'])" 2>&1)"
  done
done
find "$L" \( -name '*.pipe' -o -name '*.fifo' \) -delete
(cd "$O" && tar czf launch_hangs.tgz launch_hangs && rm -rf launch_hangs)
ls -la "$O"
