#!/bin/bash
# Device check of the refusals that need a GPU's facts (issue 13, flags and values): bench buffers larger
# than the GPU's memory are refused up front (exit 3, message names --max-bytes, nothing run), and a size
# that fits still runs. Usage (repo root on the device): tools/device/bad_flags_gpu.sh [DIR with distdoctor]
# Writes summary.txt under $OUT.
set -u
export NCCL_NVLS_ENABLE=0
BIN=$(cd "${1:-.devcarry}" && pwd)/distdoctor
O=${OUT:-${TMPDIR:-/tmp}/dd-bad-flags-gpu}
mkdir -p "$O"
S=$O/summary.txt
nvidia-smi --query-gpu=name,memory.total --format=csv >"$S" 2>&1
run() {  # description, expected rc, args...
  local desc=$1 want=$2
  shift 2
  local t0=$(date +%s.%N)
  "$BIN" "$@" >"$O/out.txt" 2>"$O/err.txt"
  local rc=$? t1=$(date +%s.%N)
  echo "$desc: rc=$rc want=$want $(awk "BEGIN{printf \"%.2fs\", $t1-$t0}") | $(head -c 300 "$O/err.txt" | tr '\n' ' ')" >>"$S"
}
run "bench --max-bytes 512G (beyond GPU memory)" 3 bench --engine nccl --nproc 1 -b 8 -e 512G -n 1 -w 0
run "bench --max-bytes 48G on an 80G GPU (two buffers do not fit)" 3 bench --engine nccl --nproc 1 -b 8 -e 48G
run "bench --max-bytes 64M (fits)" 0 bench --engine nccl --nproc 1 -b 8 -e 64M -n 2 -w 1
cat "$S"
