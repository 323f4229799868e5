#!/bin/bash
# On the GPU machine: `mpirun -np N distdoctor check` with N = GPU count (expect no procs_gt_gpus) and
# N = GPU count + 1 (expect cluster.shape.procs_gt_gpus naming the node). Writes both JSON reports to $OUT.
# Usage: tools/device/cluster_gpu_check.sh [build/distdoctor]
set -u
BIN=$(realpath "${1:-build/distdoctor}")
OUT=${OUT:-${TMPDIR:-/tmp}}
command -v mpirun >/dev/null || { echo "mpirun not installed"; exit 77; }
NGPU=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$NGPU" -gt 0 ] || { echo "no GPU visible"; exit 77; }
ROOT=$([ "$(id -u)" = 0 ] && echo --allow-run-as-root)
for np in $NGPU $((NGPU + 1)); do
  timeout 120 mpirun $ROOT --oversubscribe -np $np "$BIN" check --json --timeout 60 >"$OUT/cluster_np$np.json" 2>"$OUT/cluster_np$np.err"
  echo "np=$np exit=$? procs_gt_gpus=$(grep -c '"cluster.shape.procs_gt_gpus"' "$OUT/cluster_np$np.json")"
done
