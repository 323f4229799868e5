#!/bin/bash
# Issue 26's --tune budget on this GPU node: `bench --tune` with --tune-seconds S must end within S + 2 s, the
# final confirmation included, at one size and at a list of sizes over several collectives.
# Usage (repo root on the device): tools/device/issue26_tune.sh DD_DIR. Writes $OUT/tune26/.
set -u
DIR=$(cd "${1:?distdoctor dir}" && pwd)
O=${OUT:-${TMPDIR:-/tmp}/dd-issue26}/tune26
mkdir -p "$O"
S=$O/summary.txt
: >"$S"
. "$(dirname "$0")/torch_nccl_env.sh" "$DIR"
tune() {  # label budget args...
  local label=$1 budget=$2; shift 2
  local t0=$EPOCHREALTIME
  timeout 300 "$DIR/distdoctor" bench --tune --tune-seconds "$budget" --nccl-lib "$NCCL" "$@" >"$O/$label.txt" 2>&1
  local rc=$? w
  w=$(secs "$t0")
  echo "$label: rc=$rc wall $w s, budget $budget s, over by $(python3 -c "print('%.2f' % ($w - $budget))") s: $*" >>"$S"
  grep -E "comm.tune|recommended|time budget|^export" "$O/$label.txt" | head -6 >>"$S"
}
tune ar8g_60 60 -c all_reduce --tune-bytes 8G -b 8G -e 8G
tune multi_30 30 -c all_reduce,all_gather,reduce_scatter --tune-bytes 64M,1G -e 1G
tune ar1g_15 15 -c all_reduce --tune-bytes 1G -e 1G
cat "$S"
