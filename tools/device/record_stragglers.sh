#!/usr/bin/env bash
# Records issue 39's straggler scenarios under `distdoctor launch` on every GPU of this node
# (tools/device/straggler_worker.py): each run's --json report, stderr, and run folder (per-rank logs and the
# Flight Recorder exit dumps), then `distdoctor logs` on the run folder. Usage:
# tools/device/record_stragglers.sh DIR [CASE...] (DIR: a stripped distdoctor and lib/, see
# tools/device/stage_binary.sh). Writes $OUT/stragglers.tgz. STEPS, SLOW_S, SLOW_AFTER pass to the worker;
# NPROC (default: one per GPU) and BACKEND=gloo (the worker's CPU loop) run more ranks than the node has GPUs
# (with LAUNCH_FLAGS=--no-preflight: the preflight refuses more ranks than GPUs). LAUNCH_FLAGS: more launch flags.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/torch_nccl_env.sh" "$1"
DIR=$(cd "$1" && pwd)
shift
export PYTHONUNBUFFERED=1
O=${OUT:-device_out}
L=$O/stragglers
mkdir -p "$L"
NG=${NPROC:-$(nvidia-smi -L | wc -l)}
{ python3 -c 'import torch; print("torch", torch.__version__, "nccl", torch.cuda.nccl.version())'
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > "$L/versions.txt" 2>&1
# name worker_case env (comma-separated) launch flags (comma-separated, "-" none)
ALL=(
  "healthy healthy DURATION_S=${HEALTHY_S:-120} -"
  "fr_on healthy DURATION_S=${COST_S:-45} -"
  "fr_off healthy DURATION_S=${COST_S:-45} --no-flight-recorder"
  "cpu_sleep cpu_sleep STEPS=60 -"
  "late_slow late_slow STEPS=100,SLOW_AFTER=50 -"
  "cpu_busy cpu_busy STEPS=60 -"
  "gpu_hog gpu_hog STEPS=150 -"
  "live_late late_slow DURATION_S=${LIVE_S:-70},SLOW_AFTER_S=${SLOW_AT_S:-25} --straggler-interval,10"
  "cost_live healthy DURATION_S=${COST_S:-45} --straggler-interval,10"
  "cost_off healthy DURATION_S=${COST_S:-45} --no-flight-recorder"
  "gpu_hog_live gpu_hog DURATION_S=${LIVE_S:-70} --straggler-interval,10"
  "loader loader DURATION_S=${LIVE_S:-70} --straggler-interval,10"
  "timing_on healthy DURATION_S=${COST_S:-45} -"
  "timing_off healthy DURATION_S=${COST_S:-45},TORCH_NCCL_ENABLE_TIMING=0 -"
  "healthy2 healthy DURATION_S=${HEALTHY_S:-120} -"
  "healthy3 healthy DURATION_S=${HEALTHY_S:-120} -"
  "healthy4 healthy DURATION_S=${HEALTHY_S:-120} -"
  "healthy5 healthy DURATION_S=${HEALTHY_S:-120} -"
)
for entry in "${ALL[@]}"; do
  read -r c wcase envs flags <<<"$entry"
  [ $# -eq 0 ] || [[ " $* " == *" $c "* ]] || continue
  d=$L/$c
  mkdir -p "$d"
  [ "$flags" = - ] && flags=""
  t0=$(date +%s%3N)
  env CASE="$wcase" ${envs//,/ } timeout -k 5 300 "$DIR/distdoctor" launch --nproc-per-node "$NG" --log-dir "$d/logs" \
    --job-id "$c" --tee none --json ${LAUNCH_FLAGS:-} ${flags//,/ } -- python3 "$HERE/straggler_worker.py" > "$d/report.json" \
    2> >(while IFS= read -r l; do printf '%s %s\n' "$EPOCHREALTIME" "$l"; done > "$d/launch.err")
  rc=$?
  sleep 0.3  # the timestamping loop of launch.err ends after launch
  echo "$rc $t0 $(date +%s%3N)" > "$d/exit_ms"
  "$DIR/distdoctor" logs --json "$d/logs/$c" > "$d/logs_report.json" 2> "$d/logs.err"
  steps=$(grep -h '^step' "$d"/logs/"$c"/*/*rank0.log 2>/dev/null | awk '{print $3}' | sort -n |
    awk '{a[NR]=$1; s+=$1} END {if (NR) printf "%d steps, mean %.2f ms, median %.2f ms", NR, s/NR, a[int((NR+1)/2)]}')
  echo "$c: launch exit $rc after $(( $(date +%s%3N) - t0 )) ms; $steps"
  slow=$(grep -h '^slow from' "$d"/logs/"$c"/*/*rank1.log 2>/dev/null | awk '{print $3}')
  said=$(grep -m1 'straggler:' "$d/launch.err" | awk '{print $1}')
  [ -n "$slow" ] && echo "  slow from $slow, first live line $said: $(python3 -c "import sys; print('%.1f s after' % (float(sys.argv[2]) - float(sys.argv[1])) if sys.argv[2] else 'none')" "$slow" "${said:-}")"
  grep -c 'straggler:' "$d/launch.err" | sed 's/^/  live lines: /'
  python3 - "$d/report.json" "$d/logs_report.json" <<'PY'
import json, sys
for label, path in (("launch", sys.argv[1]), ("logs", sys.argv[2])):
    try:
        r = json.load(open(path))
    except Exception as e:
        print(f"  {label}: unreadable ({e})"); continue
    fs = [f for f in r.get("findings", []) if "straggler" in f.get("id", "")]
    print(f"  {label}: verdict {r.get('verdict')}; " + (" | ".join(f["id"] + ": " + f["title"] for f in fs) or "no straggler finding"))
PY
done
tar -czf "$O/stragglers.tgz" -C "$O" stragglers
